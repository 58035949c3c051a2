"""Time gridgit's git hooks add to `git commit`, against a bare commit and the pre-commit framework."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from benchmarks import fixtures
from benchmarks.harness import BIN, GRIDGIT, Config, Row, Target, Unavailable, Workspace, bench_env, ms_since, run
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


def _committer(path: Path, env: dict[str, str]) -> Callable[[int], float]:
    """commit(i): change the work file and stage it (untimed), then time `git commit` alone (ms)."""
    work = _work_file(path)
    run(["git", "add", "-A"], path, env)
    run(["git", "commit", "-q", "-m", "bench: set up"], path, env)

    def commit(i: int) -> float:
        work.write_text(f"VALUE = {i}\n", encoding="utf-8")
        run(["git", "add", "src/app.py"], path, env)
        start = time.perf_counter_ns()
        run(["git", "commit", "-q", "-m", f"bench: change {i}"], path, env)
        return ms_since(start)

    return commit


@benchmark("hooks", "hooks", "git commit overhead of gridgit's hooks")
def hooks(cfg: Config, ws: Workspace) -> list[Row]:
    bare = ws.git_repo("commit-bare")

    grid = ws.grid_repo("commit-gridgit", hooks=True)
    agent_env = bench_env(ws.home, agent="executor-001")
    install_note = ""
    try:
        run([GRIDGIT, "hooks", "install"], grid, agent_env)
    except RuntimeError as exc:
        install_note = f"`gridgit hooks install` failed ({exc}); hooks as `gridgit init` installed them"
    hook = grid / ".git" / "hooks" / "pre-commit"
    if not hook.exists() or "gridgit" not in hook.read_text(encoding="utf-8", errors="replace"):
        raise Unavailable(f"unavailable: no gridgit pre-commit hook installed. {install_note}".strip())
    fixtures.fill_scratchpad(grid, 50)

    framework = ws.git_repo("commit-precommit")
    (framework / ".pre-commit-config.yaml").write_text(PRE_COMMIT_CONFIG, encoding="utf-8")
    run([str(BIN / "pre-commit"), "install"], framework, ws.env)

    sides = [_committer(bare, ws.env), _committer(grid, agent_env), _committer(framework, ws.env)]
    for i in range(cfg.warmup(3, 1)):  # warms pre-commit's cache and the page cache alike
        for commit in sides:
            commit(-1 - i)
    bare_ms: list[float] = []
    grid_ms: list[float] = []
    pc_ms: list[float] = []
    for i in range(cfg.repeats(30, 3)):
        bare_ms.append(sides[0](i))
        grid_ms.append(sides[1](i))
        pc_ms.append(sides[2](i))

    grid_added = [g - b for g, b in zip(grid_ms, bare_ms, strict=True)]
    pc_added = [p - b for p, b in zip(pc_ms, bare_ms, strict=True)]
    relative = [g / p for g, p in zip(grid_added, pc_added, strict=True) if p > 0]
    return [
        Row("hooks", "git commit, no hooks", "ms", bare_ms),
        Row("hooks", "git commit + pre-commit framework (1 no-op hook): added", "ms", pc_added),
        Row(
            "hooks",
            "git commit + gridgit hooks (50-entry scratchpad): added",
            "ms",
            grid_added,
            [Target("p50", "<=", 100.0)],
            install_note,
        ),
        Row(
            "hooks",
            "gridgit hooks added / pre-commit added",
            "x",
            relative,
            [Target("p50", "<=", 1.0)],
            "per round: (gridgit - bare) / (pre-commit - bare)",
        ),
        Row(
            "hooks",
            "git commit with gridgit hooks / no hooks",
            "x",
            [g / b for g, b in zip(grid_ms, bare_ms, strict=True)],
        ),
    ]
