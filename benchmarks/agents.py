"""Agent-tool hooks as whole processes: the command `gridgit setup claude` wrote, run as Claude Code runs it."""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

from benchmarks import fixtures
from benchmarks.harness import (
    GRIDGIT,
    PYTHON,
    Config,
    Row,
    Target,
    Workspace,
    fmt,
    interleaved,
    ms_since,
    percentile,
    ratios,
    run,
)
from benchmarks.suite import benchmark

FLOOR = [PYTHON, "-c", "pass"]


def _hook(command: str, stdin: dict[str, object], cwd: Path, env: dict[str, str]) -> Callable[[], None]:
    """Run COMMAND through the shell with STDIN as JSON, as the tool does; a warning on stderr is a failure."""
    data = json.dumps(stdin).encode("utf-8")

    def go() -> None:
        proc = subprocess.run(["sh", "-c", command], input=data, cwd=cwd, env=env, capture_output=True)
        if proc.returncode != 0 or proc.stderr:
            raise RuntimeError(f"hook failed ({proc.returncode}): {proc.stderr.decode().strip()}")

    return go


def _floor(cwd: Path, env: dict[str, str]) -> Callable[[], None]:
    return lambda: subprocess.run(FLOOR, cwd=cwd, env=env, check=True)


@benchmark("agent_hooks", "agents", "agent-tool hooks / python -c pass")
def agent_hooks(cfg: Config, ws: Workspace) -> list[Row]:
    repo = ws.grid_repo("agent-hooks")
    fixtures.fill_scratchpad(repo, 40)
    worktree = ws.root / "agent-hooks-wt"
    run(["git", "worktree", "add", "-q", str(worktree), "-b", "agent-a"], repo, ws.env)
    run([GRIDGIT, "setup", "claude"], repo, ws.env)
    settings = json.loads((repo / ".claude" / "settings.json").read_text(encoding="utf-8"))
    commands = {
        event: group["hooks"][0]["command"] for event, groups in settings["hooks"].items() for group in groups[:1]
    }
    base = {"session_id": "bench", "cwd": str(worktree), "transcript_path": "/tmp/t.jsonl"}
    app = worktree / "src" / "app.py"
    app.parent.mkdir()
    app.write_text("VALUE = 1\n", encoding="utf-8")
    edit = {**base, "hook_event_name": "PostToolUse", "tool_name": "Edit", "tool_input": {"file_path": str(app)}}
    status = {**base, "workspace": {"current_dir": str(worktree)}, "model": {"display_name": "Opus"}}

    start = _hook(commands["SessionStart"], {**base, "hook_event_name": "SessionStart"}, worktree, ws.env)
    start_ms: list[float] = []
    for _ in range(cfg.warmup(2, 1) + cfg.repeats(10, 2)):
        t0 = time.perf_counter_ns()
        start()
        start_ms.append(ms_since(t0))
    start_ms = start_ms[cfg.warmup(2, 1) :]

    floor = _floor(worktree, ws.env)
    after = _hook(commands["PostToolUse"], edit, worktree, ws.env)
    line = _hook(settings["statusLine"]["command"], status, worktree, ws.env)
    # Each status line follows an edit (the log grew: the line is computed again), as in a session.
    after_ms, line_ms, floor_ms = interleaved([after, line, floor], cfg.repeats(30, 3), cfg.warmup(3, 1))
    p50 = percentile(floor_ms, 50)
    same_ms, floor2_ms = interleaved([line, floor], cfg.repeats(30, 3), cfg.warmup(1, 1))
    return [
        Row(
            "agent_hooks",
            "after-edit hook (Claude PostToolUse, whole process) / `python -c pass`",
            "x",
            ratios(after_ms, floor_ms),
            [Target("p50", "<=", 4.0)],
            f"abs p50 {fmt(percentile(after_ms, 50), 'ms')} vs {fmt(p50, 'ms')}; one file_modified + conflict check",
        ),
        Row(
            "agent_hooks",
            "statusline after an edit (computed, whole process) / `python -c pass`",
            "x",
            ratios(line_ms, floor_ms),
            [Target("p50", "<=", 3.0)],
            f"abs p50 {fmt(percentile(line_ms, 50), 'ms')} vs {fmt(p50, 'ms')}",
        ),
        Row(
            "agent_hooks",
            "statusline, nothing changed since the last (kept line) / `python -c pass`",
            "x",
            ratios(same_ms, floor2_ms),
            [Target("p50", "<=", 3.0)],
            f"abs p50 {fmt(percentile(same_ms, 50), 'ms')} vs {fmt(percentile(floor2_ms, 50), 'ms')}",
        ),
        Row("agent_hooks", "session-start hook (register + context pack, 40 entries)", "ms", start_ms),
    ]
