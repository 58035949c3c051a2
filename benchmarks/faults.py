"""Fault injection (issue 39): clones of a bare origin, real processes, SIGKILL mid-operation.

The long drills whose bounded versions are tests in tests/history/ (test_take_cas, test_crashes,
test_journal, test_peer_faults, test_history_secrets), each counting what must stay 0 (taken twice,
wedged, lost, secrets in history) from the files and refs alone; what the write journal costs a
`gridgit write` against the base; and what a sync merging a 20,000-entry peer does to a writer's waits.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import time
from pathlib import Path

from benchmarks import base
from benchmarks.gridref import _origin
from benchmarks.harness import GRIDGIT, PYTHON, Config, Row, Target, Workspace, fmt, percentile, ratios, run
from benchmarks.suite import benchmark

PAD = ".grid/phases/01-foundation/scratchpad.md"
ZERO = [Target("max", "<=", 0)]


def _killed(args: list[str], cwd: Path, env: dict[str, str], after: float) -> None:
    """Run ARGS in a session of its own and SIGKILL the whole session (git children too) AFTER seconds."""
    proc = subprocess.Popen(args, cwd=cwd, env=env, start_new_session=True, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)  # fmt: skip
    try:
        proc.wait(after)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


def _contents(path: Path) -> list[str]:
    """Every entry's content in PATH's phase 01 (scratchpad and archive)."""
    from gridgit.scratchpad.archive import Archive
    from gridgit.scratchpad.document import Scratchpad

    found = []
    for name, parse in (("scratchpad.md", Scratchpad.parse), ("scratchpad_archived.md", Archive.parse)):
        file = path / ".grid/phases/01-foundation" / name
        if file.exists():
            found += [e.content for e in parse(file.read_text(encoding="utf-8"), name).entries]
    return found


# ---- 8 + 8 agents race for 10 blocks ---------------------------------------------------------------

_AGENT = """
import json, subprocess, sys, time
start = time.perf_counter()
take = subprocess.run([sys.argv[2], 'take', '--json', '--agent', sys.argv[1]], capture_output=True, text=True)
took = (time.perf_counter() - start) * 1000
block = json.loads(take.stdout)['data']['block']['block_id'] if take.returncode in (0, 9) else None
if block and take.returncode == 0:
    subprocess.run([sys.argv[2], 'block', 'complete', block, '--summary', 'done by ' + sys.argv[1], '--agent',
                    sys.argv[1]], capture_output=True)
print(json.dumps({'code': take.returncode, 'block': block, 'ms': took}))
"""


@benchmark("faults_take", "faults", "8 + 8 agents in two clones racing for 10 blocks")
def take_race(cfg: Config, ws: Workspace) -> list[Row]:
    rounds, agents, blocks = cfg.repeats(10, 1), cfg.size(8, 2), cfg.size(10, 3)
    twice: list[float] = []
    completed_twice: list[float] = []
    takes: list[float] = []
    provisional = 0
    for r in range(rounds):
        clones, env = _origin(ws, f"take-{r}", 2)
        for n in range(1, blocks + 1):
            run([GRIDGIT, "block", "plan", f"01-{n:02d}", "--agent", "mc"], clones[0], env)
        for clone in (*clones, clones[0]):
            run([GRIDGIT, "sync"], clone, env)
        procs = [subprocess.Popen([PYTHON, "-c", _AGENT, f"executor-{c}{n:02d}", GRIDGIT], cwd=clone, env=env,
                                  stdout=subprocess.PIPE, text=True)
                 for n in range(agents) for c, clone in enumerate(clones, start=1)]  # fmt: skip
        won: dict[str, int] = {}
        for proc in procs:
            said = json.loads(proc.communicate(timeout=1800)[0])
            takes.append(said["ms"])
            provisional += said["code"] == 9
            if said["code"] == 0:
                won[said["block"]] = won.get(said["block"], 0) + 1
        twice.append(sum(1 for count in won.values() if count > 1))
        for clone in (*clones, clones[0]):
            run([GRIDGIT, "sync"], clone, env)
        listed = json.loads(run([GRIDGIT, "block", "list", "--json"], clones[0], env))["data"]
        completed_twice.append(sum(1 for b in listed if any(c.get("status") == "complete" for c in b["contested"])))
    label = f"{agents} + {agents} agents, {blocks} blocks, {rounds} round(s)"
    note = f"{provisional} take(s) provisional (exit 9); a take: fetch, merge, take, push under the sync lock"
    return [
        Row("faults_take", f"take race: blocks taken twice ({label})", "count", twice, ZERO),
        Row("faults_take", f"take race: blocks completed twice ({label})", "count", completed_twice, ZERO),
        Row(
            "faults_take",
            "take race: one `gridgit take` (confirmed on the remote, or nothing ready)",
            "ms",
            takes,
            note=note,
        ),
    ]


# ---- SIGKILL of post-commit, snapshot and sync ---------------------------------------------------------


@benchmark("faults_kill", "faults", "SIGKILL loops of post-commit, snapshot and sync in two clones")
def kill_loop(cfg: Config, ws: Workspace) -> list[Row]:
    rounds = cfg.repeats(200, 2)
    (a, b), env = _origin(ws, "kill", 2)
    rng = random.Random(39)
    queue = a / ".git" / "gridgit" / "commits"
    for n in range(rounds):
        # A topic each: two agents' writes on one topic minutes apart merge into one entry (the merge protocol).
        run([GRIDGIT, "write", "-c", "discovery", "-t", f"ka{n}", "--content", f"kill-{n}"], a, env)
        run([GRIDGIT, "write", "-c", "discovery", "-t", f"kb{n}", "--content", f"peer-{n}", "--agent",
             "executor-002"], b, env)  # fmt: skip
        (a / "src").mkdir(exist_ok=True)
        (a / "src" / f"f{n}.py").write_text(f"x = {n}\n", encoding="utf-8")
        run(["git", "add", "-A"], a, env)
        run(["git", "commit", "-q", "-m", f"c{n}"], a, {**env, "GRIDGIT_SKIP": "1"})
        queue.mkdir(exist_ok=True)  # what the post-commit shim does before anything can fail
        (queue / run(["git", "rev-parse", "HEAD"], a, env).strip()).write_text("executor-001\n", encoding="utf-8")
        _killed([GRIDGIT, "hook", "post-commit"], a, env, rng.uniform(0.05, 1.5))
        _killed([GRIDGIT, rng.choice(["sync", "snapshot"])], a, env, rng.uniform(0.05, 1.2))
        _killed([GRIDGIT, "sync"], b, env, rng.uniform(0.05, 1.2))
    wedged = 0
    for clone in (a, b, a, b):
        wedged += subprocess.run([GRIDGIT, "sync"], cwd=clone, env=env, capture_output=True).returncode != 0
    doctor = json.loads(run([GRIDGIT, "doctor", "--json"], a, env, check=False))["data"]["findings"]
    wedged += sum(len(f.get("details") or []) for f in doctor if f["check"] == "stale-locks")
    diverged = len({run(["git", "rev-parse", "grid^{tree}"], clone, env).strip() for clone in (a, b)}) - 1
    contents = _contents(a)
    wanted = {f"kill-{n}" for n in range(rounds)} | {f"peer-{n}" for n in range(rounds)}
    lost = len(wanted - set(contents)) + len(contents) - len(set(contents))
    counts: dict[str, int] = {}
    for line in (a / ".grid/events/current.jsonl").read_text(encoding="utf-8").splitlines():
        event = json.loads(line)
        if event["type"] == "commit_recorded":
            counts[event["payload"]["sha"]] = counts.get(event["payload"]["sha"], 0) + 1
    made = run(["git", "rev-list", "HEAD"], a, env).split()
    not_once = sum(1 for sha in made if counts.get(sha) != 1)
    label = f"{rounds} rounds"
    return [
        Row("faults_kill", f"kill loop: wedged (failed final syncs + stale locks, {label})", "count", [wedged], ZERO),
        Row(
            "faults_kill", f"kill loop: entries lost or doubled ({len(wanted)} written, {label})", "count", [lost], ZERO
        ),
        Row(
            "faults_kill", f"kill loop: commits not recorded exactly once ({len(made)} made)", "count", [not_once], ZERO
        ),
        Row("faults_kill", "kill loop: clones diverged after the final syncs", "count", [diverged], ZERO),
    ]


# ---- rm -rf racing the background snapshot ------------------------------------------------------------


def _rm_race(ws: Workspace, side: str, rounds: int, pythonpath: Path) -> tuple[int, int]:
    """Write, commit, remove the phase folder 0-80 ms later, ROUNDS times, then `gridgit restore --all`:
    (acknowledged writes missing from .grid/ or the grid ref, writes acknowledged)."""
    from benchmarks.harness import bench_env

    path = ws.grid_repo(f"rm-{side}", hooks=True)
    env = bench_env(ws.home, agent="executor-001", PYTHONPATH=str(pythonpath))
    gridgit = [PYTHON, "-m", "gridgit"]
    rng = random.Random(5)
    folder = path / ".grid/phases/01-foundation"
    for n in range(rounds):
        run([*gridgit, "write", "-c", "discovery", "-t", f"t{n % 4}", "--content", f"acknowledged-{n}"], path, env)
        (path / f"f{n}.txt").write_text(f"{n}\n", encoding="utf-8")
        run(["git", "add", "-A"], path, env)
        run(["git", "commit", "-q", "-m", f"c{n}"], path, env)  # post-commit and its snapshot in the background
        time.sleep(rng.uniform(0, 0.08))
        shutil.rmtree(folder, ignore_errors=True)
    run([*gridgit, "restore", "--all"], path, env, check=False)
    shown = run(["git", "show", "grid:phases/01-foundation/scratchpad.md"], path, env, check=False)
    here = set(_contents(path))
    lost = sum(1 for n in range(rounds) if f"acknowledged-{n}" not in here or f"acknowledged-{n}" not in shown)
    return lost, rounds


@benchmark("faults_rm", "faults", "rm -rf of a phase folder racing the post-commit snapshot")
def rm_race(cfg: Config, ws: Workspace) -> list[Row]:
    rounds = cfg.repeats(200, 3)
    trees, named = base.sources(ws)
    lost, written = _rm_race(ws, "this", rounds, trees["this"])
    rows = [Row("faults_rm", f"rm racing the snapshot: acknowledged writes lost ({written} written)", "count", [lost],
                ZERO)]  # fmt: skip
    if not cfg.quick:
        before, _ = _rm_race(ws, "base", rounds, trees["base"])
        rows.append(Row("faults_rm", "the same on the base", "count", [before], note=f"base: {named}"))
    return rows


# ---- what peers push, and secrets ---------------------------------------------------------------------


def _peer_commit(clone: Path, env: dict[str, str], path: str, data: bytes, message: str) -> None:
    """A grid commit changing PATH to DATA on top of origin's grid ref, pushed as a hostile clone would."""
    run(["git", "fetch", "-q", "origin", "+grid:refs/heads/grid"], clone, env)
    index = {**env, "GIT_INDEX_FILE": str(clone / ".git" / "peer-index")}
    run(["git", "read-tree", "grid"], clone, index)
    blob = subprocess.run(["git", "hash-object", "-w", "--stdin"], cwd=clone, input=data, capture_output=True,
                          env=env, check=True).stdout.decode().strip()  # fmt: skip
    run(["git", "update-index", "--add", "--cacheinfo", f"100644,{blob},{path}"], clone, index)
    tree = run(["git", "write-tree"], clone, index).strip()
    trailer = f"{message}\n\nGrid-Agent: executor-666\nGrid-Clone: c-0123456789ab\n"
    commit = run(["git", "commit-tree", tree, "-p", "grid", "-m", trailer], clone, env).strip()
    run(["git", "update-ref", "refs/heads/grid", commit], clone, env)
    run(["git", "push", "-q", "--no-verify", "origin", "grid"], clone, env)


@benchmark("faults_peers", "faults", "hostile peer commits and secrets on every way into history")
def peers_and_secrets(cfg: Config, ws: Workspace) -> list[Row]:
    from gridgit.scratchpad.document import Scratchpad

    (a, b), env = _origin(ws, "peers", 2)
    bare = ws.root / "peers.git"
    main = run(["git", "--git-dir", str(bare), "rev-parse", "main"], ws.root, env).strip()
    run([GRIDGIT, "write", "-c", "decision", "-t", "db", "--content", "the team's decision"], a, env)
    run([GRIDGIT, "sync"], a, env)
    config = json.loads(run(["git", "show", "grid:config.json"], a, env))
    pad = Scratchpad.parse(run(["git", "show", f"grid:{PAD[6:]}"], a, env), PAD)
    pad.entries[0].content = "rewritten by a peer"
    ignore = run(["git", "show", "grid:.gitignore"], a, env) + "phases/\nSTATE.md\nLEARNINGS.md\n"
    variants = {
        "sync.ref main": ("config.json", json.dumps({**config, "sync": {**config["sync"], "ref": "main"}})),
        "sync.ref --upload-pack": ("config.json", json.dumps({**config, "sync": {**config["sync"],
                                                                                   "ref": "--upload-pack=touch pwned"}})),
        ".gitignore dropping the Blackboard": (".gitignore", ignore),
        "an entry rewritten": (PAD[6:], pad.render()),
    }  # fmt: skip
    harms: list[float] = []
    said = []
    for name, (path, text) in variants.items():
        _peer_commit(b, env, path, text.encode(), name)
        proc = subprocess.run([GRIDGIT, "sync"], cwd=a, env=env, capture_output=True, text=True)
        moved = run(["git", "--git-dir", str(bare), "rev-parse", "main"], ws.root, env).strip() != main
        entries = _contents(a)
        tree = run(["git", "ls-tree", "-r", "--name-only", "grid"], a, env).split()
        harm = proc.returncode != 0 or moved or (a / "pwned").exists() or "the team's decision" not in entries
        harm = harm or "rewritten by a peer" in entries or PAD[6:] not in tree or "c-0123456789ab" not in proc.stdout
        harms.append(float(harm))
        said.append(f"{name}: {'HARM' if harm else 'refused'}")
    # Secrets on every way into history: a snapshot's message, budget names, a plan's name, keys typed by hand.
    token = "ghp_" + "Q" * 36
    run([GRIDGIT, "write", "-c", "gotcha", "-t", "s", "--content", "to snapshot"], a, env)
    run([GRIDGIT, "snapshot", "-m", f"deploy {token}"], a, env)
    for n in range(3):
        run([GRIDGIT, "budget", "add", "--tokens-in", "1", "--tokens-out", "1", "--cost", "0.01", "--session",
             f"s-ghp_{n}{'W' * 35}", "--model", f"m-AKIAIOSFODNN7EXAMPL{n}"], a, env)  # fmt: skip
    run([GRIDGIT, "block", "plan", "01-01", "--name", "rotate -----BEGIN RSA PRIVATE KEY----- now", "--content",
         "the plan", "--agent", "mc"], a, env)  # fmt: skip
    run([GRIDGIT, "sync"], a, env)
    history = run(["git", "--git-dir", str(bare), "log", "-p", "--format=%B", "grid"], ws.root, env)
    secrets = [s for s in (token, *(f"ghp_{n}{'W' * 35}" for n in range(3)), "AKIAIOSFODNN7EXAMPL") if s in history]
    budget = json.loads(run(["git", "--git-dir", str(bare), "show", "grid:budget.json"], ws.root, env))
    fused = 3 - len(budget["usage"])
    shared = "the plan" in run(["git", "--git-dir", str(bare), "show", "grid:phases/01-foundation/01-PLAN.md"],
                               ws.root, env, check=False)  # fmt: skip
    return [
        Row(
            "faults_peers",
            f"peer variants that did harm (of {len(variants)})",
            "count",
            harms,
            ZERO,
            note="; ".join(said),
        ),
        Row(
            "faults_peers",
            "secrets in origin's grid history (messages, budget, plans)",
            "count",
            [len(secrets)],
            ZERO,
            note=f"budget buckets fused by redaction: {fused}; a plan with a key header shared: {shared}",
        ),
    ]


# ---- a writer while sync merges a 20,000-entry peer -----------------------------------------------------

_WRITER = """
import sys, time
from gridgit.scratchpad import store
from gridgit.store.layout import Layout
layout = Layout.find(sys.argv[1])
deadline = time.time() + float(sys.argv[2])
n = 0
while time.time() < deadline:
    start = time.perf_counter()
    store.write_entry(layout, "01-foundation", "executor-009", "gotcha", "busy", f"Gotcha: during {n}", [])
    print(time.time(), (time.perf_counter() - start) * 1000, flush=True)
    n += 1
"""


def _peer_wait(ws: Workspace, side: str, entries: int, pythonpath: Path) -> tuple[list[float], list[float], float]:
    """(each write's ms while A's sync runs, each write's ms with no sync, the sync's s): B pushed ENTRIES entries."""
    from benchmarks.harness import bench_env
    from gridgit.scratchpad.document import Scratchpad
    from gridgit.scratchpad.entry import Entry
    from gridgit.store import ids

    (a, b), _ = _origin(ws, f"wait-{side}", 2)
    env = bench_env(ws.home, agent="executor-001", PYTHONPATH=str(pythonpath))
    path = b / PAD
    pad = Scratchpad.parse(path.read_text(encoding="utf-8"), PAD)
    pad.meta["index"]["max_entries"] = entries + 100
    for n in range(entries):
        pad.entries.append(Entry(n + 1, f"2026-01-01T{n // 3600 % 24:02d}:{n // 60 % 60:02d}:{n % 60:02d}Z",
                                 "executor-002", "discovery", f"t{n % 50}", [], "LOW", "", f"peer entry {n}", "T", [],
                                 ids.new_id(), "", None))  # fmt: skip
    pad.renumber()
    path.write_text(pad.render(), encoding="utf-8")
    run([PYTHON, "-m", "gridgit", "snapshot"], b, env)
    run(["git", "push", "-q", "--no-verify", "origin", "grid"], b, env)
    writer = subprocess.Popen([PYTHON, "-c", _WRITER, str(a), "3600"], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True)  # fmt: skip
    assert writer.stdout is not None
    idle = [float(writer.stdout.readline().split()[1]) for _ in range(20)]
    started = time.time()
    run([PYTHON, "-m", "gridgit", "sync"], a, env)
    ended = time.time()
    time.sleep(0.5)
    writer.terminate()
    lines = [line.split() for line in writer.communicate()[0].splitlines()]
    arrived = sum(1 for c in _contents(a) if c.startswith("peer entry"))
    if arrived != entries:
        raise RuntimeError(f"{arrived} of the peer's {entries:,} entries arrived: the drill measured nothing")
    # A write that finished during the sync, or the first one after it (it may have waited on it all along).
    during = [float(ms) for at, ms in lines if started <= float(at) <= ended]
    after = [float(ms) for at, ms in lines if float(at) > ended][:1]
    return during + after, idle, ended - started


def _waits(during: list[float], idle: list[float], took: float) -> str:
    return (f"sync took {took:.1f} s; p99 {fmt(percentile(during, 99), 'ms')}, max {fmt(max(during), 'ms')}; "
            f"the writer alone: p99 {fmt(percentile(idle, 99), 'ms')}")  # fmt: skip


@benchmark("faults_peer_wait", "faults", "a writer's waits while sync merges a 20,000-entry peer")
def peer_wait(cfg: Config, ws: Workspace) -> list[Row]:
    entries = cfg.size(20_000, 1_000)
    trees, named = base.sources(ws)
    label = f"{entries:,}-entry peer"
    during, idle, took = _peer_wait(ws, "this", entries, trees["this"])
    rows = [
        Row("faults_peer_wait", f"a write into the phase while sync merges a {label} (p99, max: note)", "ms", during,
            note=_waits(during, idle, took)),
        Row("faults_peer_wait", "the same writer with no sync running", "ms", idle),
    ]  # fmt: skip
    if not cfg.quick:
        before, idle, took = _peer_wait(ws, "base", entries, trees["base"])
        rows.append(Row("faults_peer_wait", f"the same on the base ({label})", "ms", before,
                        note=f"{_waits(before, idle, took)}; base: {named}"))  # fmt: skip
    return rows


@benchmark("faults_write_cost", "faults", "gridgit write with the write journal: this / the base")
def write_cost(cfg: Config, ws: Workspace) -> list[Row]:
    this, before, named = base.write_against_base(cfg, ws)
    note = f"abs p50 {fmt(percentile(this, 50), 'ms')} vs base {fmt(percentile(before, 50), 'ms')}; base: {named}"
    return [Row("faults_write_cost", "gridgit write (50-entry phase, journaled): this / base", "x",
                ratios(this, before), [Target("p50", "<=", 1.15)], note)]  # fmt: skip
