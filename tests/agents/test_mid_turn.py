"""Each tool's documented after-edit and stop payloads through the hooks `gridgit setup TOOL` wrote: urgent inbox
items told mid-turn exactly once beside the tool's result, and an agent with unacknowledged messages kept from
stopping a few times at most, in the form the tool enforces (each answer checked against its documented schema):

- Claude Code (https://code.claude.com/docs/en/hooks): PostToolUse `hookSpecificOutput.additionalContext`;
  Stop `decision: "block"` with a `reason`, `stop_hook_active` on the stop that follows;
- Codex (https://developers.openai.com/codex/hooks): the same fields, a non-empty `reason` required;
- Gemini CLI (https://geminicli.com/docs/hooks/reference): AfterTool `hookSpecificOutput.additionalContext`;
  AfterAgent `decision: "deny"` with a `reason` sent as a new prompt, `stop_hook_active` in the retry;
- Cursor (https://cursor.com/docs/hooks): stop's `followup_message`, `loop_count` above 0 after one;
- Copilot CLI (https://docs.github.com/en/copilot/reference/hooks-reference): agentStop `decision: "block"`
  with a `reason` as the next turn's prompt, `stop_hook_active` on the turn it forced;
- OpenCode: the JSON gridgit's plugin sends and reads (tests/agents/test_opencode.py runs the plugin itself)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.agents.helpers import NATIVE, answer, command, context, payload, run
from tests.conftest import Repo

ME = "executor-007"
ENV = {"GRID_AGENT_ID": ME}  # the same agent in every session
# How each tool's stop event keeps the agent going, from its docs: (decision field, its value, reason field),
# and the payload field (with its value) that says a stop hook kept the agent going already.
KEEP_GOING = {
    "claude": (("decision", "block", "reason"), ("stop_hook_active", True)),
    "codex": (("decision", "block", "reason"), ("stop_hook_active", True)),
    "gemini": (("decision", "deny", "reason"), ("stop_hook_active", True)),
    "cursor": ((None, None, "followup_message"), ("loop_count", 1)),
    "copilot": (("decision", "block", "reason"), ("stop_hook_active", True)),
    "opencode": (("decision", "block", "reason"), ("stop_hook_active", True)),  # gridgit's plugin: test_opencode
}
WITH_A_PROMPT_EVENT = [tool for tool in KEEP_GOING if "prompt" in NATIVE[tool]]


def call(repo: Repo, tool: str, event: str, session: str, file: Path | None = None, **fields: Any) -> dict[str, Any]:
    """TOOL's documented EVENT payload (FIELDS set in it) through its hook; the answer, checked against its schema."""
    rel = file.relative_to(repo.path).as_posix() if file else ""
    data = json.loads(payload(tool, event, session=session, cwd=str(repo.path), file=str(file or ""), rel=rel))
    data.update(fields)
    done = run(command(repo.path, tool, event), json.dumps(data), repo.path, ENV)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    return answer(tool, event, done.stdout)


def kept_going(tool: str, said: dict[str, Any]) -> str:
    """The reason a stop answer keeps the agent going with ('' when it lets it stop)."""
    (field, value, reason), _ = KEEP_GOING[tool]
    if field is not None and said.get(field) != value:
        assert not said.get(reason)
        return ""
    return str(said.get(reason, ""))


@pytest.mark.parametrize("tool", WITH_A_PROMPT_EVENT)
def test_urgent_items_reach_the_model_mid_turn_once(repo: Repo, tool: str) -> None:
    repo.gridgit("setup", tool)
    app = repo.write("src/app.py", "a = 1\n")
    session = f"sess-mid-turn-{tool}"
    call(repo, tool, "session-start", session)
    assert context(tool, call(repo, tool, "after-edit", session, app)) == ""  # nothing new: nothing said

    # While the agent works, another one writes to it, claims its file, and hands work to it.
    sent = repo.gridgit_json(
        "send", "--to", ME, "--content", "Hold off src/app.py: I am moving it", agent="executor-002"
    )
    repo.gridgit("claim", "src/app.py", "--reason", "moving it", agent="executor-002")
    handoff = "Handoff: parser\n\n**Completed:**\n- a\n\n**For Next Agent:**\n- b\n\n**Files to Review:**\n- c"
    repo.gridgit("write", "-c", "handoff", "-t", "parser", "--block", f"01-02 -> {ME}", "--content", handoff,
                 agent="executor-002")  # fmt: skip

    told = call(repo, tool, "after-edit", session, app)
    assert "decision" not in told  # the tool's result stands: context is added, nothing is replaced
    said = context(tool, told)
    assert sent["id"] in said and "Hold off src/app.py" in said and f"gridgit ack {sent['id']}" in said
    assert "executor-002 claimed src/app.py" in said and "moving it" in said
    assert "handoff" not in said  # not urgent: it waits for the next prompt
    assert context(tool, call(repo, tool, "after-edit", session, app)) == ""  # each urgent item exactly once

    turn = context(tool, call(repo, tool, "prompt", session))
    assert "handoff to you from executor-002" in turn and "claimed" not in turn
    assert sent["id"] not in turn  # told once, mid-turn (the ledger): open, it is state from now on


@pytest.mark.parametrize("tool", sorted(KEEP_GOING))
def test_unacknowledged_messages_keep_the_agent_going_a_few_times_at_most(repo: Repo, tool: str) -> None:
    repo.gridgit("setup", tool)
    session = f"sess-wake-{tool}"
    _, (guard, already) = KEEP_GOING[tool]
    call(repo, tool, "session-start", session)
    sent = repo.gridgit_json("send", "--to", ME, "--content", "Review my schema change", agent="executor-002")

    # asked to read its messages, at most messages.stop_asks (2) times a session, never twice in a row
    first = kept_going(tool, call(repo, tool, "end", session))
    assert sent["id"] in first and "gridgit ack" in first and "Review my schema change" in first
    assert kept_going(tool, call(repo, tool, "end", session, **{guard: already})) == ""  # kept going already
    assert kept_going(tool, call(repo, tool, "end", session)) != ""
    assert kept_going(tool, call(repo, tool, "end", session)) == ""  # the third stop: never a loop
    assert kept_going(tool, call(repo, tool, "end", f"{session}-2")) != ""  # counted per session
    repo.gridgit("ack", sent["id"], agent=ME)
    assert kept_going(tool, call(repo, tool, "end", f"{session}-3")) == ""
    beat = next(a for a in repo.gridgit_json("agent", "list")["active"] if a["id"] == ME)
    assert beat["last_heartbeat"]  # the end is still a heartbeat


def test_a_message_synced_from_another_clone_is_told_though_no_event_came_with_it(repo: Repo) -> None:
    """A sync writes a peer's message as a file and emits nothing: the hooks' fast path looks at the boxes too."""
    from gridgit.coordination import mailbox
    from gridgit.store import clock, ids
    from gridgit.store.layout import Layout

    repo.gridgit("setup", "claude")
    app = repo.write("src/app.py", "a = 1\n")
    session = "sess-synced-mail"
    call(repo, "claude", "session-start", session)
    assert context("claude", call(repo, "claude", "prompt", session)) == ""  # the inbox is open and empty
    layout = Layout.find(repo.path)

    def synced(content: str) -> str:
        message_id = ids.new_id()
        message = mailbox.Message(message_id, "executor-009", ME, message_id, clock.now_iso(), content)
        path = mailbox.path_of(layout, message)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(mailbox.render(message), encoding="utf-8")  # as the sync's merge writes it: no event
        return message_id

    first = synced("Pulled from origin")
    assert first in context("claude", call(repo, "claude", "prompt", session))
    second = synced("Pulled again")
    said = context("claude", call(repo, "claude", "after-edit", session, app))
    assert second in said and first not in said  # mid-turn: what was not told yet
