"""Claims across clones (issue 35): what `gridgit claim` costs with a remote and without, and what claims add
to a sync, each side by side in one run (interleaved rounds: the machine's load hits every side alike)."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from pathlib import Path

from benchmarks.gridref import _origin
from benchmarks.harness import GRIDGIT, Config, Row, Workspace, bench_env, interleaved, run, runner
from benchmarks.suite import benchmark

TYPE_CHECKING = False
if TYPE_CHECKING:
    from gridgit.store.layout import Layout

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


@benchmark("claims_peer_edits", "claims", "a conflict check reading other clones' edits")
def peer_edits(cfg: Config, ws: Workspace) -> list[Row]:
    from gridgit.coordination import conflicts, presence
    from gridgit.store.layout import Layout

    clones = cfg.size(50, 3)
    sizes = (16, presence.MAX_FILES)  # a clone's edits of two conflict windows: a usual few, and the bound
    layouts = [Layout.find(ws.grid_repo(f"edits-{n}")) for n in (0, *sizes)]
    for layout, edits in zip(layouts[1:], sizes, strict=True):
        _peer_files(layout, clones, edits)

    def check(layout: Layout) -> Callable[[], None]:
        def go() -> None:
            conflicts.detect_write_conflict(layout, "src/m0/f1.py", "executor-999")

        return go

    rounds = interleaved([check(layout) for layout in layouts], cfg.repeats(100, 3), cfg.warmup(5, 1))
    labels = ["no other clone's edits", *(f"{clones} other clones' files of {n} fresh edits each" for n in sizes)]
    return [
        Row("claims_peer_edits", f"conflict check, {label}", "ms", ms) for label, ms in zip(labels, rounds, strict=True)
    ]


def _peer_files(layout: Layout, clones: int, edits: int) -> None:
    """CLONES other clones' files in LAYOUT's .grid/clones/, each telling EDITS edits made now."""
    import json

    from gridgit.coordination import presence
    from gridgit.store import clock

    folder = layout.grid / presence.FOLDER
    folder.mkdir()
    now = clock.now_iso()
    for c in range(clones):
        clone = f"c-{c:012x}"
        files = [{"id": f"{clone}-{n}", "at": now, "agent": f"executor-{c:03d}", "operation": "modified",
                  "path": f"src/m{c}/f{n}.py"} for n in range(edits)]  # fmt: skip
        record = {"version": presence.VERSION, "clone": clone, "files": files}
        (folder / f"{clone}.json").write_text(json.dumps(record, indent=1), encoding="utf-8")
