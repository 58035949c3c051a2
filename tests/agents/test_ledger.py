"""What a model is told is news once (DESIGN.md invariant 9; issue 34, finding 5): the agent's ledger
(gridgit.coordination.ledger) across every channel that reaches it, through the documented payloads
of each tool with a prompt event (tests/agents/test_mid_turn.py's `call`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.agents.helpers import context
from tests.agents.test_mid_turn import ME, WITH_A_PROMPT_EVENT, call, kept_going
from tests.conftest import Repo

OTHER = "executor-002"


def _send(repo: Repo, text: str) -> str:
    return str(repo.gridgit_json("send", "--to", ME, "--content", text, agent=OTHER)["id"])


def _ledger(repo: Repo) -> dict[str, dict[str, str]]:
    cursor = json.loads((repo.grid / "events/cursors/inbox" / f"{ME}.json").read_text(encoding="utf-8"))
    told: dict[str, dict[str, str]] = cursor.get("told") or {}
    return told


@pytest.mark.parametrize("tool", WITH_A_PROMPT_EVENT)
def test_a_new_session_is_told_each_waiting_message_once(repo: Repo, tool: str) -> None:
    repo.gridgit("setup", tool)
    repo.gridgit("agent", "register", agent=ME)
    first, second = _send(repo, "Review the schema"), _send(repo, "Rebase on main")
    start = context(tool, call(repo, tool, "session-start", f"s1-{tool}"))
    for sent, text in ((first, "Review the schema"), (second, "Rebase on main")):
        assert start.count(sent) == 1 and start.count(text) == 1  # in the pack's messages, nowhere else
    assert "Messages to you" in start
    prompt = context(tool, call(repo, tool, "prompt", f"s1-{tool}"))
    assert first not in prompt and second not in prompt
    told = _ledger(repo)
    assert told[first] == {"session": f"s1-{tool}", "channel": "session-start", "kind": "message"}
    # `gridgit inbox` asked by hand shows what is open, every time: that is state, not a channel
    assert first in repo.gridgit("inbox", agent=ME).stdout and first in repo.gridgit("inbox", agent=ME).stdout


@pytest.mark.parametrize("tool", WITH_A_PROMPT_EVENT)
def test_a_conflict_told_mid_turn_is_not_news_again_in_this_session_or_the_next(repo: Repo, tool: str) -> None:
    repo.gridgit("setup", tool)
    app = repo.write("src/app.py", "a = 1\n")
    call(repo, tool, "session-start", f"s1-{tool}")
    repo.gridgit("touch", "src/app.py", agent=OTHER)
    edit = context(tool, call(repo, tool, "after-edit", f"s1-{tool}", app))
    assert "write conflict on src/app.py" in edit and OTHER in edit
    assert "write conflict" not in context(tool, call(repo, tool, "prompt", f"s1-{tool}"))
    later = context(tool, call(repo, tool, "session-start", f"s2-{tool}"))
    assert "New for you" not in later  # the conflict is state now: the pack's open warning
    assert later.count("write conflict on src/app.py") == 1
    assert "write conflict" not in context(tool, call(repo, tool, "prompt", f"s2-{tool}"))


@pytest.mark.parametrize("tool", WITH_A_PROMPT_EVENT)
def test_a_message_told_in_one_session_is_state_in_the_next(repo: Repo, tool: str) -> None:
    repo.gridgit("setup", tool)
    app = repo.write("src/app.py", "a = 1\n")
    call(repo, tool, "session-start", f"s1-{tool}")
    sent = _send(repo, "Hold off src/app.py")
    assert sent in context(tool, call(repo, tool, "after-edit", f"s1-{tool}", app))  # told mid-turn
    assert sent not in context(tool, call(repo, tool, "prompt", f"s1-{tool}"))
    later = context(tool, call(repo, tool, "session-start", f"s2-{tool}"))
    news, _, pack = later.partition("# Context for")
    assert sent not in news and pack.count(sent) == 1  # one line in the pack, not news
    assert _ledger(repo)[sent]["session"] == f"s1-{tool}"  # the session that told it first
    repo.gridgit("ack", sent, agent=ME)
    context(tool, call(repo, tool, "prompt", f"s2-{tool}"))  # acknowledged: the next look drops it
    assert sent not in _ledger(repo)


@pytest.mark.parametrize("tool", ["claude", "codex", "gemini"])
def test_the_stop_reminder_names_a_told_message_and_tells_a_new_one(repo: Repo, tool: str) -> None:
    repo.gridgit("setup", tool)
    app: Path = repo.write("src/app.py", "a = 1\n")
    call(repo, tool, "session-start", f"s1-{tool}")
    old = _send(repo, "The first one")
    context(tool, call(repo, tool, "after-edit", f"s1-{tool}", app))  # told mid-turn
    new = _send(repo, "The second one")
    reason = kept_going(tool, call(repo, tool, "end", f"s1-{tool}"))
    assert old in reason and "The first one" not in reason  # named, not told again
    assert new in reason and "The second one" in reason  # news here, once
    assert _ledger(repo)[new]["channel"] == "end"
    assert "The second one" not in context(tool, call(repo, tool, "prompt", f"s1-{tool}"))
