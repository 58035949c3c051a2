"""Claude Code's documented PostToolUse and Stop payloads through the hooks `gridgit setup claude` wrote:
urgent inbox items told mid-turn exactly once, and an agent with unacknowledged messages kept from stopping
a few times at most (https://code.claude.com/docs/en/hooks: PostToolUse `hookSpecificOutput.additionalContext`,
Stop `decision: block` with a `reason`, `stop_hook_active`)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.agents.helpers import command, payload, run
from tests.conftest import Repo

ME = "executor-007"
ENV = {"GRID_AGENT_ID": ME}  # the same agent in every session


def stop(repo: Repo, cwd: Path, session: str, active: bool = False) -> str:
    """Claude Code's Stop payload (fixture) with `stop_hook_active` as given; the hook's stdout."""
    data = json.loads(payload("claude", "end", session=session, cwd=str(cwd), file="", rel=""))
    data["stop_hook_active"] = active
    done = run(command(repo.path, "claude", "end"), json.dumps(data), cwd, ENV)
    assert done.returncode == 0 and done.stderr == ""
    return done.stdout


def post_tool_use(repo: Repo, cwd: Path, session: str, file: Path) -> str:
    text = payload("claude", "after-edit", session=session, cwd=str(cwd), file=str(file), rel="")
    done = run(command(repo.path, "claude", "after-edit"), text, cwd, ENV)
    assert done.returncode == 0 and done.stderr == ""
    return done.stdout


def test_urgent_items_reach_the_model_mid_turn_once_and_messages_wake_it_before_it_stops(repo: Repo) -> None:
    repo.gridgit("setup", "claude")
    app = repo.write("src/app.py", "a = 1\n")
    session = "sess-mid-turn"
    me = ME
    started = run(command(repo.path, "claude", "session-start"),
                  payload("claude", "session-start", session=session, cwd=str(repo.path)), repo.path, ENV)  # fmt: skip
    assert started.returncode == 0
    assert post_tool_use(repo, repo.path, session, app) == ""  # nothing new: nothing said

    # While the agent works, another one writes to it, claims its file, and hands work to it.
    sent = repo.gridgit_json(
        "send", "--to", me, "--content", "Hold off src/app.py: I am moving it", agent="executor-002"
    )
    repo.gridgit("claim", "src/app.py", "--reason", "moving it", agent="executor-002")
    handoff = "Handoff: parser\n\n**Completed:**\n- a\n\n**For Next Agent:**\n- b\n\n**Files to Review:**\n- c"
    repo.gridgit("write", "-c", "handoff", "-t", "parser", "--block", f"01-02 -> {me}", "--content", handoff,
                 agent="executor-002")  # fmt: skip

    answer = json.loads(post_tool_use(repo, repo.path, session, app))
    assert "decision" not in answer  # the tool's result stands: context is added, nothing is replaced
    told = answer["hookSpecificOutput"]
    assert told["hookEventName"] == "PostToolUse"
    context = told["additionalContext"]
    assert sent["id"] in context and "Hold off src/app.py" in context and f"gridgit ack {sent['id']}" in context
    assert "executor-002 claimed src/app.py" in context and "moving it" in context
    assert "handoff" not in context  # not urgent: it waits for the next prompt
    assert post_tool_use(repo, repo.path, session, app) == ""  # each urgent item exactly once

    turn = run(command(repo.path, "claude", "prompt"),
               payload("claude", "prompt", session=session, cwd=str(repo.path)), repo.path, ENV).stdout  # fmt: skip
    assert "handoff to you from executor-002" in turn and "claimed" not in turn
    assert sent["id"] in turn  # a message stays in the inbox until it is acknowledged

    # Stop: asked to read its messages, at most messages.stop_asks (2) times a session, never twice in a row.
    first = json.loads(stop(repo, repo.path, session))
    assert first["decision"] == "block" and sent["id"] in first["reason"] and "gridgit ack" in first["reason"]
    assert stop(repo, repo.path, session, active=True) == ""  # it was kept going already: it may stop now
    assert json.loads(stop(repo, repo.path, session))["decision"] == "block"
    assert stop(repo, repo.path, session) == ""  # the third stop: never a loop
    assert json.loads(stop(repo, repo.path, "another-session"))["decision"] == "block"  # counted per session
    repo.gridgit("ack", sent["id"], agent=me)
    assert stop(repo, repo.path, "a-third-session") == ""
    beat = next(a for a in repo.gridgit_json("agent", "list")["active"] if a["id"] == me)
    assert beat["last_heartbeat"]  # the end is still a heartbeat
