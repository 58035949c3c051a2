"""Agent-tool hooks as whole processes: the commands `gridgit setup claude` wrote, run as Claude Code runs them.

Every hook event, with nothing to say and with something to say, against the interpreter's
bare start (`python -c pass`), interleaved round by round. What makes a sample "something to
say" is set up untimed before it (another agent's event, a claim, a touch).
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

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
    percentile,
    ratios,
    run,
)
from benchmarks.suite import benchmark

FLOOR = [PYTHON, "-c", "pass"]
QUIET, SAYS = 1.5, 3.0  # issue 25's aims: ratio to a bare start with nothing to say, and with something


def _hook(command: str, stdin: Callable[[], dict[str, Any]], cwd: Path, env: dict[str, str]) -> Callable[[], None]:
    """Run COMMAND through the shell with STDIN() as JSON, as the tool does; a warning on stderr is a failure."""

    def go() -> None:
        data = json.dumps(stdin()).encode("utf-8")
        proc = subprocess.run(["sh", "-c", command], input=data, cwd=cwd, env=env, capture_output=True)
        if proc.returncode != 0 or proc.stderr:
            raise RuntimeError(f"hook failed ({proc.returncode}): {proc.stderr.decode().strip()}")

    return go


def _row(label: str, samples: list[float], floor: list[float], aim: float, note: str) -> Row:
    ratio = ratios(samples, floor)
    return Row(
        "agent_hooks",
        f"{label} / `python -c pass`",
        "x",
        ratio,
        [Target("p50", "<=", aim)],
        f"p90 {percentile(ratio, 90):.2f}x; abs p50 {fmt(percentile(samples, 50), 'ms')} "
        f"(p90 {fmt(percentile(samples, 90), 'ms')}) vs {fmt(percentile(floor, 50), 'ms')}; {note}",
    )


@benchmark("agent_hooks", "agents", "agent-tool hooks / python -c pass")
def agent_hooks(cfg: Config, ws: Workspace) -> list[Row]:
    from gridgit import Blackboard

    repo = ws.grid_repo("agent-hooks")
    fixtures.fill_scratchpad(repo, 40)
    worktree = ws.root / "agent-hooks-wt"
    run(["git", "worktree", "add", "-q", str(worktree), "-b", "agent-a"], repo, ws.env)
    run([GRIDGIT, "setup", "claude"], repo, ws.env)
    settings = json.loads((repo / ".claude" / "settings.json").read_text(encoding="utf-8"))
    commands = {
        event: group["hooks"][0]["command"] for event, groups in settings["hooks"].items() for group in groups[:1]
    }
    board = Blackboard(repo)
    base = {"session_id": "bench", "cwd": str(worktree), "transcript_path": "/tmp/t.jsonl"}
    app = worktree / "src" / "app.py"
    app.parent.mkdir()
    app.write_text("VALUE = 1\n", encoding="utf-8")
    env = ws.env

    def payload(event: str, **more: Any) -> Callable[[], dict[str, Any]]:
        return lambda: {**base, "hook_event_name": event, **more}

    def edit(path: Callable[[], Path]) -> Callable[[], dict[str, Any]]:
        return lambda: {**base, "hook_event_name": "PostToolUse", "tool_name": "Edit",
                        "tool_input": {"file_path": str(path())}}  # fmt: skip

    start = _hook(commands["SessionStart"], payload("SessionStart", source="startup"), worktree, env)
    start()  # the session's agent, registered: what every later hook of the session finds
    prompt = _hook(commands["UserPromptSubmit"], payload("UserPromptSubmit", prompt="go on"), worktree, env)
    before = _hook(commands["PreToolUse"], edit(lambda: app), worktree, env)
    after = _hook(commands["PostToolUse"], edit(lambda: app), worktree, env)
    fresh = iter(range(1_000_000))
    contested: list[Path] = [worktree / "src" / "c.py"]
    conflicted = _hook(commands["PostToolUse"], edit(lambda: contested[-1]), worktree, env)
    end = _hook(commands["Stop"], payload("Stop", stop_hook_active=False), worktree, env)
    floor = lambda: subprocess.run(FLOOR, cwd=worktree, env=env, check=True)  # noqa: E731
    sessions = repo / ".grid" / "events" / "cursors" / "sessions"

    def news() -> None:  # something for the agent: a phase change is for everyone
        board.emit("phase_changed", {"agent": "mc", "old_phase": "01-foundation", "new_phase": "01-foundation"})

    def claimed() -> None:
        board.claim(["src/app.py"], agent="executor-002", reason="bench")

    def unclaimed() -> None:
        board.release(None, agent="executor-002")

    def other_touched() -> None:  # another agent changed a new file a moment ago: this edit conflicts
        contested.append(worktree / "src" / f"c{next(fresh)}.py")
        board.touch(str(contested[-1].relative_to(worktree)), agent="executor-002")

    def beat_due() -> None:  # the session's last heartbeat over a minute ago
        for path in sessions.glob("claude-bench.json"):
            state = json.loads(path.read_text(encoding="utf-8"))
            state["beat"] = 0
            path.write_text(json.dumps(state), encoding="utf-8")

    # In each round a case with something to say runs just before its quiet twin, which then
    # finds nothing new (what the other agents did meanwhile was just delivered).
    cases: list[tuple[str, Callable[[], None], Callable[[], None] | None, float, str]] = [
        ("prompt, an event for the agent", prompt, news, SAYS, "phase_changed delivered from the inbox"),
        ("prompt, nothing new (fast path)", prompt, None, QUIET, "inbox cursor at the log's end but its own events"),
        ("before-edit, another agent's claim", before, claimed, SAYS, "claims.on_edit ask: permissionDecision ask"),
        ("before-edit, no claim (fast path)", before, unclaimed, QUIET, "no live claim, not a .grid/ path"),
        ("after-edit, a write conflict", conflicted, other_touched, SAYS, "CHECKPOINT.md, warning entry, told"),
        ("after-edit, no conflict", after, None, QUIET, "one file_modified + the conflict check"),
        ("end, heartbeat due", end, beat_due, SAYS, "STATE last_heartbeat"),
        ("end, heartbeat sent a moment ago (fast path)", end, None, QUIET, "at most one heartbeat a minute"),
        ("session-start (register + context pack, 40 entries)", start, None, SAYS, "always has something to say"),
    ]
    runners = [c[1] for c in cases] + [floor]
    setups = [c[2] for c in cases] + [None]
    *timed, floor_ms = interleaved(runners, cfg.repeats(30, 3), cfg.warmup(2, 1), setups)
    rows = [_row(label, ms, floor_ms, aim, note) for (label, _, _, aim, note), ms in zip(cases, timed, strict=True)]

    status = {**base, "workspace": {"current_dir": str(worktree)}, "model": {"display_name": "Opus"}}
    line = _hook(settings["statusLine"]["command"], lambda: status, worktree, env)
    touch = _hook(commands["PostToolUse"], edit(lambda: app), worktree, env)
    # Each status line follows an edit (the log grew: the line is computed again), as in a session.
    line_ms, floor2_ms = interleaved([line, floor], cfg.repeats(30, 3), cfg.warmup(1, 1), [touch, None])
    same_ms, floor3_ms = interleaved([line, floor], cfg.repeats(30, 3), cfg.warmup(1, 1))
    return [
        *rows,
        _row("statusline after an edit (computed)", line_ms, floor2_ms, SAYS, "the line made again"),
        _row("statusline, nothing changed since the last (kept line)", same_ms, floor3_ms, SAYS, "the kept line"),
    ]
