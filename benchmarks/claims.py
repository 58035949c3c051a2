"""Claims across clones (issue 35): what `gridgit claim` costs with a remote and without, and what claims add
to a sync, each side by side in one run (interleaved rounds: the machine's load hits every side alike)."""

from __future__ import annotations

import itertools
from pathlib import Path

from benchmarks.gridref import _origin
from benchmarks.harness import GRIDGIT, Config, Row, Workspace, bench_env, interleaved, run, runner
from benchmarks.suite import benchmark

MANY = 20  # claims one sync brings in the "many" row


@benchmark("claims_cli", "claims", "gridgit claim, without a remote and with one")
def claim_cli(cfg: Config, ws: Workspace) -> list[Row]:
    alone = ws.grid_repo("claims-alone")
    clones, env = _origin(ws, "claims-cli", 2)
    local_env = bench_env(ws.home, agent="executor-001")
    paths = itertools.count()

    def claim(cwd: Path, environment: dict[str, str], *flags: str) -> None:
        # a new path each time: a claim made, not a renewal (the file grows as a mission's does)
        runner([GRIDGIT, "claim", f"src/f{next(paths)}.py", *flags], cwd, environment)()

    sides = [
        lambda: claim(alone, local_env, "--exclusive"),
        lambda: claim(clones[0], env, "--exclusive"),  # published: fetch, merge, claim, push
        lambda: claim(clones[0], env),  # shared: written here, pushed by the next sync (auto-sync's)
    ]
    repeats = cfg.repeats(20, 2)
    alone_ms, remote_ms, shared_ms = interleaved(sides, repeats, cfg.warmup(2, 1))
    return [
        Row("claims_cli", "gridgit claim --exclusive, no remote", "ms", alone_ms),
        Row("claims_cli", "gridgit claim --exclusive, with a remote (confirmed there)", "ms", remote_ms),
        Row("claims_cli", "gridgit claim (shared), with a remote (not waited for)", "ms", shared_ms),
    ]


@benchmark("claims_sync", "claims", "gridgit sync bringing claims, against one bringing an entry")
def claim_sync(cfg: Config, ws: Workspace) -> list[Row]:
    (a, b), env = _origin(ws, "claims-sync", 2)
    n = itertools.count()

    def claims(count: int) -> None:
        first = next(n) * MANY
        run([GRIDGIT, "claim", *(f"lib/c{first + i}.py" for i in range(count)), "--agent", "executor-002"], a, env)
        run([GRIDGIT, "sync"], a, env)

    def entry() -> None:
        run([GRIDGIT, "write", "-c", "discovery", "-t", "bench", "--content", f"entry {next(n)}"], a, env)
        run([GRIDGIT, "sync"], a, env)

    sync_b = runner([GRIDGIT, "sync"], b, env)
    setups = [lambda: None, entry, lambda: claims(1), lambda: claims(MANY)]
    rounds = interleaved([sync_b] * 4, cfg.repeats(15, 2), cfg.warmup(1, 1), setups)
    nothing, one_entry, one_claim, many = rounds
    return [
        Row("claims_sync", "gridgit sync bringing nothing", "ms", nothing),
        Row("claims_sync", "gridgit sync bringing one entry", "ms", one_entry),
        Row("claims_sync", "gridgit sync bringing one claim", "ms", one_claim),
        Row("claims_sync", f"gridgit sync bringing {MANY} claims", "ms", many),
    ]
