"""The Blackboard on its own ref (issue 19): what the post-commit snapshot adds to `git commit`,
a `gridgit sync` merging 1,000 new entries from each side, and 3 clones syncing for 50 rounds."""

from __future__ import annotations

import random
import time
from pathlib import Path

from benchmarks.harness import GRIDGIT, Config, Row, Target, Workspace, bench_env, ms_since, run
from benchmarks.hooks import _committer
from benchmarks.suite import benchmark


def _write(path: Path, count: int, agent: str, tag: str) -> None:
    """COUNT entries written in-process (the set-up, not the subject), auto-archive included."""
    from gridgit.scratchpad import store
    from gridgit.store.layout import Layout

    layout = Layout.find(path)
    for n in range(count):
        content = f"Finding: {tag} finding {n}\nImpact: low\n\nEvidence:\n- File: src/m{n % 40}.py"
        store.write_entry(layout, "01-foundation", agent, "discovery", f"{tag}-topic-{n % 25}", content, [])


def _origin(ws: Workspace, name: str, clones: int) -> tuple[list[Path], dict[str, str]]:
    """A bare origin and CLONES clones of it sharing one Blackboard (built from the grid ref)."""
    env = bench_env(ws.home, agent="executor-001")
    bare = ws.root / f"{name}.git"
    run(["git", "init", "-q", "--bare", "-b", "main", str(bare)], ws.root, env)
    paths = [ws.root / f"{name}-{i}" for i in range(clones)]
    run(["git", "clone", "-q", str(bare), str(paths[0])], ws.root, env)
    (paths[0] / "README.md").write_text("# bench\n", encoding="utf-8")
    run([GRIDGIT, "init", "--mission", "Bench", "--phase", "01-foundation:Foundation"], paths[0], env)
    run(["git", "add", "-A"], paths[0], env)
    run(["git", "commit", "-q", "-m", "start"], paths[0], {**env, "GRIDGIT_HOOK_SYNC": "1"})
    run(["git", "push", "-q", "origin", "main"], paths[0], env)
    for path in paths[1:]:
        run(["git", "clone", "-q", str(bare), str(path)], ws.root, env)
        run([GRIDGIT, "init"], path, env)
    return paths, env


@benchmark("snapshot_commit", "gridref", "git commit with the post-commit snapshot")
def snapshot_commit(cfg: Config, ws: Workspace) -> list[Row]:
    bare = ws.git_repo("snap-bare")
    env = bench_env(ws.home, agent="executor-001")
    background, foreground = ws.grid_repo("snap-bg", hooks=True), ws.grid_repo("snap-fg", hooks=True)
    for path in (background, foreground):
        _write(path, 5 if cfg.quick else 50, "executor-001", "bench")
    sides = [
        (None, _committer(bare, ws.env)),
        (background, _committer(background, env)),  # as users get it: post-commit and its snapshot in the background
        (foreground, _committer(foreground, {**env, "GRIDGIT_HOOK_SYNC": "1"})),  # the whole hook inside `git commit`
    ]
    snapshot_ms: list[float] = []
    samples: list[list[float]] = [[], [], []]
    warmup = cfg.warmup(2, 0)
    for i in range(warmup + cfg.repeats(20, 2)):
        times = []
        for path, commit in sides:
            if path is not None:
                _write(path, 1, "executor-001", f"round{i}")  # one new entry: each snapshot has work
            times.append(commit(i + 1))  # 0 is the set-up commit's content
        time.sleep(0.3)  # let the background post-commit finish before the next round is timed
        start = time.perf_counter_ns()
        run([GRIDGIT, "snapshot"], foreground, env)  # nothing new: what a snapshot's git calls cost at rest
        if i >= warmup:
            snapshot_ms.append(ms_since(start))
            for n, value in enumerate(times):
                samples[n].append(value)
    return [
        Row("snapshot_commit", "git commit, no hooks", "ms", samples[0]),
        Row(
            "snapshot_commit",
            "git commit + gridgit hooks, snapshot in the background: added",
            "ms",
            [g - b for g, b in zip(samples[1], samples[0], strict=True)],
            [Target("p50", "<=", 100.0)],
        ),
        Row(
            "snapshot_commit",
            "git commit + gridgit hooks, snapshot before git returns: added",
            "ms",
            [g - b for g, b in zip(samples[2], samples[0], strict=True)],
            note="GRIDGIT_HOOK_SYNC=1: evidence, commit_recorded and the snapshot all inside `git commit`",
        ),
        Row("snapshot_commit", "gridgit snapshot (CLI, nothing new)", "ms", snapshot_ms),
    ]


@benchmark("sync_1000", "gridref", "gridgit sync with 1,000 new entries on each side")
def sync_1000(cfg: Config, ws: Workspace) -> list[Row]:
    count = 20 if cfg.quick else 1000
    rows_ms: list[float] = []
    for attempt in range(1 if cfg.quick else 2):
        (a, b), env = _origin(ws, f"s1000-{attempt}", 2)
        _write(a, count, "executor-001", "a")
        _write(b, count, "executor-002", "b")
        run([GRIDGIT, "sync"], a, env)  # A's 1,000 on origin
        start = time.perf_counter_ns()
        run([GRIDGIT, "sync"], b, env)  # the timed one: fetch, snapshot, merge 1,000 + 1,000, push
        rows_ms.append(ms_since(start))
    return [
        Row(
            "sync_1000",
            f"gridgit sync, {count:,} new entries on each side",
            "ms",
            rows_ms,
            note="fetch + snapshot + three-way merge by entry id + writing .grid/ + push, one CLI process",
        ),
    ]


@benchmark("sync_rounds", "gridref", "3 clones x 50 rounds of write and sync")
def sync_rounds(cfg: Config, ws: Workspace) -> list[Row]:
    rounds = 2 if cfg.quick else 50
    clones, env = _origin(ws, "rounds", 3)
    rng = random.Random(19)
    sync_ms: list[float] = []
    start_all = time.perf_counter_ns()
    for step in range(rounds):
        path = rng.choice(clones)
        _write(path, rng.randint(1, 5), f"executor-00{clones.index(path)}", f"r{step}")
        start = time.perf_counter_ns()
        run([GRIDGIT, "sync"], path, env)
        sync_ms.append(ms_since(start))
    for path in (*clones, clones[0]):  # then every clone has everything
        run([GRIDGIT, "sync"], path, env)
    total_s = ms_since(start_all) / 1000
    trees = {run(["git", "rev-parse", "grid^{tree}"], path, env).strip() for path in clones}
    return [
        Row(
            "sync_rounds",
            f"gridgit sync, 3 clones x {rounds} rounds: one sync",
            "ms",
            sync_ms,
            note=f"{total_s:.1f} s for all rounds and the final syncs; "
            f"{'identical' if len(trees) == 1 else 'DIFFERENT'} grid trees in the 3 clones at the end",
        ),
    ]
