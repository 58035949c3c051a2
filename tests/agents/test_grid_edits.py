"""Agents steered away from editing .grid/ by hand; the hooks' fast path answers without loading gridgit."""

from __future__ import annotations

import json

import pytest

from tests.agents.helpers import TOOLS, answer, context, hook
from tests.conftest import Repo


def _config(repo: Repo, **sections: dict[str, object]) -> None:
    path = repo.grid / "config.json"
    config = json.loads(path.read_text(encoding="utf-8"))
    for name, values in sections.items():
        config.setdefault(name, {}).update(values)
    path.write_text(json.dumps(config), encoding="utf-8")


def _denied(tool: str, out: str) -> str:
    """The reason of a before-edit answer that refused the edit (in the tool's enforced form)."""
    data = answer(tool, "before-edit", out)
    if tool in ("claude", "codex"):
        assert data["hookSpecificOutput"]["permissionDecision"] == "deny"
        return str(data["hookSpecificOutput"]["permissionDecisionReason"])
    if tool in ("gemini", "opencode"):
        assert data["decision"] == "deny"
        return str(data["reason"])
    if tool == "copilot":
        assert data["permissionDecision"] == "deny"
        return str(data["permissionDecisionReason"])
    assert data["permission"] == "deny"
    return str(data["agent_message"])


@pytest.mark.parametrize("tool", TOOLS)
def test_an_edit_of_the_blackboard_is_refused_with_the_command_to_use(repo: Repo, tool: str) -> None:
    repo.gridgit("setup", tool)
    pad = repo.grid / "phases" / "01-foundation" / "scratchpad.md"
    before = repo.snapshot()
    out = hook(repo, tool, "before-edit", repo.path, "s1", file=str(pad)).stdout
    reason = _denied(tool, out)
    assert ".grid/phases/01-foundation/scratchpad.md" in reason and "`gridgit write" in reason
    state = hook(repo, tool, "before-edit", repo.path, "s1", file=str(repo.grid / "STATE.md")).stdout
    assert "`gridgit state update" in _denied(tool, state)
    assert repo.snapshot() == before


def test_grid_edits_warn_and_allow(repo: Repo) -> None:
    repo.gridgit("setup", "claude")
    state = str(repo.grid / "STATE.md")
    _config(repo, agents={"grid_edits": "warn"})
    warned = answer("claude", "before-edit", hook(repo, "claude", "before-edit", repo.path, "s1", file=state).stdout)
    assert "permissionDecision" not in warned["hookSpecificOutput"]
    assert "`gridgit state update" in context("claude", warned) and "gridgit state update" in warned["systemMessage"]
    _config(repo, agents={"grid_edits": "allow"})
    assert hook(repo, "claude", "before-edit", repo.path, "s1", file=state).stdout == ""
    _config(repo, agents={"grid_edits": "sometimes"})
    odd = hook(repo, "claude", "before-edit", repo.path, "s1", file=state)
    assert odd.stdout == "" and "agents.grid_edits must be one of deny, warn, allow" in odd.stderr


@pytest.mark.parametrize("tool", TOOLS)
def test_after_a_hand_edit_of_the_blackboard_the_model_hears_what_is_invalid(repo: Repo, tool: str) -> None:
    repo.gridgit("setup", tool)
    state = repo.grid / "STATE.md"
    state.write_text("---\nphase: [unclosed\n---\n", encoding="utf-8")
    edited = hook(repo, tool, "after-edit", repo.path, "s1", file=str(state))
    told = context(tool, answer(tool, "after-edit", edited.stdout))
    assert ".grid/STATE.md" in told and "invalid" in told and "`gridgit state update" in told
    assert not [e for e in repo.events("file_modified") if ".grid" in e["payload"]["path"]]


def test_the_fast_path_answers_without_reading_config_or_writing(repo: Repo) -> None:
    """Nothing new for the agent: the answer comes before gridgit reads config.json (broken here on purpose)."""
    repo.gridgit("setup", "claude")
    hook(repo, "claude", "session-start", repo.path, "fast")
    app = repo.write("src/app.py", "a = 1\n")
    hook(repo, "claude", "after-edit", repo.path, "fast", file=str(app))  # its own edit: not news for it
    hook(repo, "claude", "end", repo.path, "fast")
    config = repo.grid / "config.json"
    good = config.read_text(encoding="utf-8")
    config.write_text('{"claims": {"on_edit": "never"}}', encoding="utf-8")
    before = repo.snapshot()
    for event in ("prompt", "end", "before-edit"):
        quick = hook(repo, "claude", event, repo.path, "fast", file=str(app))
        assert (quick.returncode, quick.stdout, quick.stderr) == (0, "", ""), event
    assert repo.snapshot() == before
    # something for it: the full path runs (and says what is wrong with config.json)
    config.write_text(good, encoding="utf-8")
    repo.gridgit("claim", "src/app.py", "--reason", "mine now", agent="executor-002")
    turn = hook(repo, "claude", "prompt", repo.path, "fast")
    assert "executor-002 claimed src/app.py" in context("claude", answer("claude", "prompt", turn.stdout))
    repo.gridgit("setup", "codex")
    refused = hook(repo, "codex", "before-edit", repo.path, "fast-codex", file=str(app)).stdout
    assert _denied("codex", refused).startswith("src/app.py is claimed by executor-002")
