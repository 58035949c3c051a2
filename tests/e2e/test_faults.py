"""Faults around the real agent programs: a failing model, a hook killed by its tool, a hook that is slow to start.

gridgit's hooks must leave the Blackboard whole whatever happens around them: every file valid
(`gridgit validate`), every event line JSON, no temporary file left behind, each session's
state file readable, and the next hook doing its work as if nothing had happened. Two agents
at once in two worktrees, and an agent known only from its session's payload, are in the story
every program plays (tests/e2e/test_scenarios.py).
"""

from __future__ import annotations

import contextlib
import json
import threading
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import lock_holder
from tests.e2e.conftest import require
from tests.e2e.drivers import DRIVERS
from tests.e2e.findings import tools
from tests.e2e.modelserver import Request, say
from tests.e2e.session import Run, World
from tests.e2e.story import A, file_modified_by


def assert_whole(world: World) -> None:
    """The Blackboard after a fault: valid, every event a JSON line, no temporary file, every session's file JSON."""
    done = world.gridgit("validate", check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    world.events()  # each line parses
    assert [p for p in world.grid.rglob("*") if p.name.endswith(".tmp") or ".tmp." in p.name] == []
    for session in (world.grid / "events" / "cursors" / "sessions").glob("*.json"):
        assert json.loads(session.read_text(encoding="utf-8"))["agent_id"]


@pytest.mark.parametrize("tool", tools())
def test_a_model_that_fails_or_closes_mid_stream_leaves_the_blackboard_whole(e2e_root: Path, tool: str) -> None:
    """The model answers one step with HTTP 500 and closes the next one's stream half-way; the program retries."""
    require(tool)
    world = World.make(tool, e2e_root)
    driver = DRIVERS[tool]()
    steps = [*driver.write(world.repo / "src/a.py", world.repo, "A = 1\n"),
             *driver.write(world.repo / "src/b.py", world.repo, "B = 1\n"),
             *driver.write(world.repo / "src/c.py", world.repo, "C = 1\n"),
             say("Done.")]  # fmt: skip
    steps[-3].fault, steps[-2].fault = "500", "cut"  # the answers that carry b's and c's writes
    run = world.session(steps, agent_id=A)
    assert [r.fault for r in run.turns if r.fault] == ["500", "cut"], run.describe()
    assert_whole(world)
    for name in ("a", "b", "c"):  # each edit the program made is recorded once, retries or not
        path = f"src/{name}.py"
        made = [e for e in world.events("file_modified") if e["payload"].get("path") == path]
        assert len(made) == (1 if (world.repo / path).exists() else 0), (path, made, run.describe())


def set_timeout(world: World, event: str, seconds: float) -> None:
    """Set the timeout of gridgit's hook for EVENT's native event in the tool's config, as a user edits it."""
    files = {"claude": ".claude/settings.json", "codex": ".codex/hooks.json", "gemini": ".gemini/settings.json",
             "copilot": ".github/hooks/gridgit.json"}  # fmt: skip
    path = world.repo / files[world.tool]
    config = json.loads(path.read_text(encoding="utf-8"))
    for entries in config["hooks"].values():
        for entry in entries:
            for hook in entry.get("hooks", [entry]):
                line = hook.get("command", hook.get("bash", ""))
                if f"agent-hook {world.tool} {event}" not in line:
                    continue
                if world.tool == "gemini":
                    hook["timeout"] = int(seconds * 1000)  # milliseconds
                elif world.tool == "copilot":
                    hook["timeoutSec"] = seconds
                else:
                    hook["timeout"] = seconds
    path.write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")


@pytest.mark.parametrize("tool", tools("claude", "codex", "gemini", "copilot"))
def test_an_after_edit_hook_killed_by_its_tool_loses_nothing_and_the_next_one_works(e2e_root: Path, tool: str) -> None:
    """The event log's lock is held while the first edit's hook runs, past the 2 s the tool gives it: the tool kills
    it waiting. Nothing written before is lost, nothing is left half-written, and the next edit is recorded."""
    require(tool)
    world = World.make(tool, e2e_root)
    set_timeout(world, "after-edit", 2)
    config = json.loads((world.grid / "config.json").read_text(encoding="utf-8"))
    config["hooks"]["timeout_seconds"] = 100  # gridgit's own budget out of the way: only the tool stops the hook
    (world.grid / "config.json").write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")
    driver = DRIVERS[tool]()
    held = contextlib.ExitStack()
    before: list[dict[str, Any]] = []

    def hold(_: list[Request]) -> None:  # once the session has started (its hook logs events too)
        before.extend(world.events())
        held.enter_context(lock_holder(world.grid / "events" / "current.jsonl"))

    def release(_: list[Request]) -> None:
        held.close()

    steps = [*driver.write(world.repo / "src/a.py", world.repo, "A = 1\n", label="killed"),
             *driver.write(world.repo / "src/b.py", world.repo, "B = 1\n", label="next"),
             say("Done.")]  # fmt: skip
    steps[0].before, steps[1].before = hold, release  # the first edit's hook is killed before request 1 comes
    with held:
        run = world.session(steps, agent_id=A, env={"GRIDGIT_LOCK_TIMEOUT": "120"})
    assert run.returncode == 0, run.describe()
    assert_whole(world)
    after = world.events()
    assert after[: len(before)] == before  # nothing written before is lost
    assert file_modified_by(world, "src/a.py", agent=A) is None  # the hook was stopped before it wrote
    assert file_modified_by(world, "src/b.py", agent=A) is not None, run.describe()


@pytest.mark.parametrize("tool", tools("claude", "opencode"))
def test_a_slow_session_start_hook_still_gives_the_pack_before_the_first_turn(e2e_root: Path, tool: str) -> None:
    """STATE's lock is held as the session starts, so the session-start hook waits (3 s at most). A tool that waits
    for its hook before asking the model (Claude Code) shows the pack in its first request; so does OpenCode, whose
    first message waits for the pack gridgit's plugin adds (its `chat.message` hook)."""
    require(tool)
    world = World.make(tool, e2e_root)
    held = contextlib.ExitStack()
    held.enter_context(lock_holder(world.grid / "STATE.md"))
    lock = threading.Lock()

    def release(_: Any = None) -> None:
        with lock:  # the timer's thread or the server's
            held.close()

    timer = threading.Timer(3.0, release)
    timer.start()
    steps = [say("Nothing to do.")]
    steps[0].before = release  # at the first request at the latest
    try:
        run: Run = world.session(steps, agent_id=A)
    finally:
        timer.cancel()
        release()
    assert f"# Context for {A}" in run.turns[0].text(), run.describe()
