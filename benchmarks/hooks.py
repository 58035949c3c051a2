"""Time gridgit's git hooks add to `git commit`, against a bare commit and the pre-commit framework."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Callable
from pathlib import Path

from benchmarks import api, fixtures
from benchmarks.harness import (
    BIN,
    GRIDGIT,
    Config,
    Row,
    Target,
    Unavailable,
    Workspace,
    bench_env,
    measure,
    ms_since,
    percentile,
    ratios,
    run,
)
from benchmarks.suite import benchmark

PRE_COMMIT_CONFIG = """\
repos:
  - repo: local
    hooks:
      - id: noop
        name: noop
        entry: "true"
        language: system
        always_run: true
        pass_filenames: false
"""


def _work_file(path: Path) -> Path:
    work = path / "src" / "app.py"
    work.parent.mkdir(parents=True, exist_ok=True)
    work.write_text("VALUE = 0\n", encoding="utf-8")
    return work


def _committer(path: Path, env: dict[str, str], before: Callable[[int], None] | None = None) -> Callable[[int], float]:
    """commit(i): change the work file and stage it (untimed, with BEFORE), then time `git commit` alone (ms)."""
    work = _work_file(path)
    run(["git", "add", "-A"], path, env)
    run(["git", "commit", "-q", "-m", "bench: set up"], path, env)

    def commit(i: int) -> float:
        work.write_text(f"VALUE = {i}\n", encoding="utf-8")
        run(["git", "add", "src/app.py"], path, env)
        if before is not None:
            before(i)
        start = time.perf_counter_ns()
        run(["git", "commit", "-q", "-m", f"bench: change {i}"], path, env)
        return ms_since(start)

    return commit


def _grid_side(ws: Workspace, name: str, env: dict[str, str]) -> Path:
    """A repository with gridgit's hooks installed and a 50-entry scratchpad."""
    grid = ws.grid_repo(name, hooks=True)
    run([GRIDGIT, "hooks", "install"], grid, env)
    hook = grid / ".git" / "hooks" / "pre-commit"
    if not hook.exists() or "gridgit" not in hook.read_text(encoding="utf-8", errors="replace"):
        raise Unavailable("unavailable: no gridgit pre-commit hook installed")
    fixtures.fill_scratchpad(grid, 50)
    return grid


def _stage_scratchpad(path: Path, env: dict[str, str]) -> Callable[[int], None]:
    """Before each commit: an entry whose Evidence names the committed file, and its scratchpad staged.

    So the hooks have a staged .grid file to validate and evidence to record. `git add -f`:
    a Blackboard the code branches do not track still gets staged here.
    """
    board = api.board(path)
    write = api.writer(board)
    pad = f".grid/phases/{fixtures.PHASE}/scratchpad.md"

    def before(i: int) -> None:
        write(
            fixtures.PHASE,
            "executor-002",
            "discovery",
            f"hook-{i}",
            f"Finding: change {i}\nImpact: low\nEvidence: src/app.py",
        )
        run(["git", "add", "-f", pad], path, env)

    return before


@benchmark("hooks", "hooks", "git commit overhead of gridgit's hooks")
def hooks(cfg: Config, ws: Workspace) -> list[Row]:
    bare = ws.git_repo("commit-bare")
    agent_env = bench_env(ws.home, agent="executor-001")
    code_only = _grid_side(ws, "commit-gridgit", agent_env)
    with_grid = _grid_side(ws, "commit-gridgit-pad", agent_env)

    framework = ws.git_repo("commit-precommit")
    (framework / ".pre-commit-config.yaml").write_text(PRE_COMMIT_CONFIG, encoding="utf-8")
    run([str(BIN / "pre-commit"), "install"], framework, ws.env)

    sides = [
        _committer(bare, ws.env),
        _committer(code_only, agent_env),
        _committer(with_grid, agent_env, _stage_scratchpad(with_grid, agent_env)),
        _committer(framework, ws.env),
    ]
    for i in range(cfg.warmup(3, 1)):  # warms pre-commit's cache and the page cache alike
        for commit in sides:
            commit(-1 - i)
    times: list[list[float]] = [[] for _ in sides]
    for i in range(cfg.repeats(30, 3)):
        for side, commit in zip(times, sides, strict=True):
            side.append(commit(i))
    bare_ms, code_ms, pad_ms, pc_ms = times
    pc_added = [p - b for p, b in zip(pc_ms, bare_ms, strict=True)]
    code_added = [g - b for g, b in zip(code_ms, bare_ms, strict=True)]
    pad_added = [g - b for g, b in zip(pad_ms, bare_ms, strict=True)]
    per_round = "per round: (gridgit - bare) / (pre-commit - bare)"
    return [
        Row("hooks", "git commit, no hooks", "ms", bare_ms),
        Row("hooks", "git commit + pre-commit framework (1 no-op hook): added", "ms", pc_added),
        Row("hooks", "git commit + gridgit hooks, code only (50-entry scratchpad): added", "ms", code_added),
        Row("hooks", "git commit + gridgit hooks, a staged scratchpad + evidence to record: added", "ms", pad_added),
        Row("hooks", "gridgit added / pre-commit added, code only", "x", ratios(code_added, pc_added),
            [Target("p50", "<=", 0.5)], per_round),
        Row("hooks", "gridgit added / pre-commit added, staged scratchpad + evidence", "x", ratios(pad_added, pc_added),
            [Target("p50", "<=", 1.0)], per_round),
    ]  # fmt: skip


def _stage_changes(path: Path, count: int, round_no: int, env: dict[str, str]) -> None:
    """Write COUNT files under many/ (a new value each round) and stage them all (untimed)."""
    folder = path / "many"
    folder.mkdir(exist_ok=True)
    for i in range(count):
        (folder / f"f{i:05d}.py").write_text(f"VALUE = {round_no}\n", encoding="utf-8")
    run(["git", "add", "-A"], path, env)


@benchmark("hooks_bulk", "hooks", "a commit of thousands of files through gridgit's hooks")
def hooks_bulk(cfg: Config, ws: Workspace) -> list[Row]:
    count = cfg.size(5_000, 200)
    bare = ws.git_repo("bulk-bare")
    grid = ws.grid_repo("bulk-gridgit", hooks=True)
    # Post-commit in the foreground, so the timed commit includes every hook's work.
    grid_env = bench_env(ws.home, agent="executor-001", GRIDGIT_HOOK_SYNC="1")
    log = grid / ".grid" / "events" / "current.jsonl"
    bare_ms: list[float] = []
    grid_ms: list[float] = []
    emitted: list[float] = []
    warnings: set[str] = set()
    for i in range(cfg.repeats(3, 1)):
        for path, env, times in ((bare, ws.env, bare_ms), (grid, grid_env, grid_ms)):
            _stage_changes(path, count, i, env)
            before = fixtures.count_lines(log) if path == grid else 0
            start = time.perf_counter_ns()
            proc = subprocess.run(
                ["git", "commit", "-q", "-m", f"bench: {count} files"],
                cwd=path,
                env=env,
                capture_output=True,
                text=True,
            )
            times.append(ms_since(start))
            if proc.returncode != 0:
                raise RuntimeError(f"git commit exited {proc.returncode}: {proc.stderr.strip()}")
            if path == grid:
                text = log.read_text(encoding="utf-8").splitlines()[before:]
                emitted.append(float(sum('"type":"file_modified"' in line for line in text)))
                warnings.update(line for line in proc.stderr.splitlines() if "stopped after" in line)
    return [
        Row("hooks_bulk", f"git commit of {count:,} files, no hooks", "ms", bare_ms),
        Row(
            "hooks_bulk",
            f"git commit of {count:,} files + gridgit hooks: added",
            "ms",
            [g - b for g, b in zip(grid_ms, bare_ms, strict=True)],
            [Target("max", "<=", 10_000.0)],
            "hooks.timeout_seconds is 10: past it the hook stops and skips the rest",
        ),
        Row(
            "hooks_bulk",
            f"file_modified events emitted per commit of {count:,} files",
            "events",
            emitted,
            [Target("p50", ">=", float(count))],
            "; ".join(sorted(warnings)),
        ),
    ]


@benchmark("conflict_batch", "hooks", "write-conflict check of many paths: one at a time vs one batch")
def conflict_batch(cfg: Config, ws: Workspace) -> list[Row]:
    """The algorithm before (record_modification per path: one window read each) against the batch."""
    from gridgit.coordination import conflicts
    from gridgit.store.layout import Layout

    count = cfg.size(1_000, 50)
    path = ws.grid_repo("conflict-batch")
    layout = Layout.find(path)
    events = layout.events_log
    saved = events.read_bytes()
    paths = [f"many/f{i:05d}.py" for i in range(count)]

    def reset() -> None:
        events.write_bytes(saved)

    def one_at_a_time() -> None:
        for rel in paths:
            conflicts.record_modification(layout, rel, "executor-001", check=True)

    def batch() -> None:
        conflicts.record_modifications(layout, [conflicts.Modification(p) for p in paths], "executor-001")

    per_path = measure(one_at_a_time, cfg.repeats(3, 1), cfg.warmup(1, 1), setup=reset)
    batched = measure(batch, cfg.repeats(3, 1), cfg.warmup(1, 1), setup=reset)
    return [
        Row("conflict_batch", f"record + check {count:,} paths, one call per path (before)", "ms", per_path),
        Row("conflict_batch", f"record + check {count:,} paths, one batch", "ms", batched),
        Row(
            "conflict_batch",
            "one call per path / one batch",
            "x",
            [percentile(per_path, 50) / max(percentile(batched, 50), 1e-9)],
        ),
    ]
