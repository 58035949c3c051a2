"""Time gridgit's git hooks add to `git commit`, against a bare commit and the pre-commit framework."""

from __future__ import annotations

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
    ms_since,
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
