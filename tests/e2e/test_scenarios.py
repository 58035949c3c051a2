"""Each agent program, for real, against the scripted model: what its model is told and what lands in .grid/.

The story (tests/e2e/story.py) is played once per program; each test reads one scenario out of
it: the requests that reached the model (the request after a step carries that step's result)
and the Blackboard's files and events.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from tests.e2e.findings import tools
from tests.e2e.modelserver import Request
from tests.e2e.session import Run
from tests.e2e.story import CLAIM_REASON, OTHER, SCRATCHPAD, TO_A, TO_B, A, Story, file_modified_by

Stories = Callable[[str], Story]


def new_text(story: Story, who: str, label: str) -> str:
    """What the model was shown, in agent WHO's session (a or b), right after the step labelled LABEL."""
    run = story.a if who == "a" else story.b
    after = run.turn(label)
    before = run.turns[run.turns.index(after) - 1]
    return after.new_text(before)


def opening(run: Run) -> list[Request]:
    """The requests that show what a session's model was told as it started: its first (OpenCode: its first two).

    OpenCode's plugin adds the pack with `session.prompt` from its `session.created` event, which
    `opencode run` does not wait for: on a loaded machine it lands after the first request
    (tests/e2e/test_faults.py::test_a_slow_session_start_hook_still_gives_the_pack_before_the_first_turn).
    """
    return run.turns[: 2 if run.tool == "opencode" else 1]


@pytest.mark.parametrize("tool", tools())
def test_context_pack_reaches_the_model_at_session_start(stories: Stories, tool: str) -> None:
    story = stories(tool)
    first = "\n".join(r.text() for r in opening(story.a))
    assert f"you are {A}" in first and f"# Context for {A}" in first, story.a.describe()
    assert "The app module holds the settings." in first  # the phase's entry, from the pack
    assert f"you are {story.b_agent}" in "\n".join(r.text() for r in opening(story.b)), story.b.describe()


@pytest.mark.parametrize("tool", tools())
def test_an_edit_is_attributed_to_its_agent(stories: Stories, tool: str) -> None:
    story = stories(tool)
    mine = file_modified_by(story.world, "src/app.py", agent=A)
    assert mine is not None, story.a.describe()
    assert mine["payload"]["tool"] == tool and mine["payload"]["session_id"]
    theirs = file_modified_by(story.world, "src/app.py", other_than=A)  # B's, in its linked worktree
    assert theirs is not None and theirs["payload"]["tool"] == tool, story.b.describe()


@pytest.mark.parametrize("tool", tools())
def test_a_second_agent_in_a_linked_worktree_is_told_of_the_conflict(stories: Stories, tool: str) -> None:
    story = stories(tool)
    told = new_text(story, "b", "conflict-edit")
    assert "write conflict on src/app.py" in told and A in told, story.b.describe()
    told_a = new_text(story, "a", "mid-run")  # and the first agent, at its next edit
    assert "conflict on src/app.py" in told_a and story.b_agent in told_a, story.a.describe()


@pytest.mark.parametrize("tool", tools())
def test_an_exclusively_claimed_file_is_refused_with_the_claims_reason(stories: Stories, tool: str) -> None:
    story = stories(tool)
    told = new_text(story, "a", "claimed")
    assert CLAIM_REASON in told and OTHER in told, story.a.describe()
    assert not (story.world.repo / "src" / "claimed.py").exists()


@pytest.mark.parametrize("tool", tools())
def test_a_direct_edit_of_a_scratchpad_is_refused_naming_gridgits_command(stories: Stories, tool: str) -> None:
    story = stories(tool)
    told = new_text(story, "a", "scratchpad")
    assert "gridgit write" in told, story.a.describe()
    assert "(edited)" not in (story.world.repo / SCRATCHPAD).read_text(encoding="utf-8")


@pytest.mark.parametrize("tool", tools())
def test_the_commands_a_refusal_names_parse_when_the_agent_runs_them(stories: Stories, tool: str) -> None:
    """The agent runs, from its own shell, each command the scratchpad refusal named: none is a usage error (exit 2)."""
    story = stories(tool)
    ran = re.findall(r"exit=(\d+) (gridgit [^\n]*)", new_text(story, "a", "commands"))
    assert ran, story.a.describe()
    assert [command for code, command in ran if code == "2"] == []


@pytest.mark.parametrize("tool", tools())
def test_a_refused_edit_of_budget_json_names_the_command_that_does_it(stories: Stories, tool: str) -> None:
    story = stories(tool)
    told = new_text(story, "a", "budget")
    named = re.findall(r"`(gridgit [^`]+)`", told)
    assert named, story.a.describe()
    assert [c for c in named if c != "gridgit --help"], f"only {named} named for .grid/budget.json"


@pytest.mark.parametrize("tool", tools())
def test_a_message_sent_mid_run_reaches_the_model_at_the_next_edit(stories: Stories, tool: str) -> None:
    story = stories(tool)
    told = new_text(story, "a", "mid-run")
    assert TO_A in told and story.to_a in told, story.a.describe()
    assert TO_B in new_text(story, "b", "b-edit"), story.b.describe()


@pytest.mark.parametrize("tool", tools())
def test_the_end_hooks_before_you_stop_reaches_the_model(stories: Stories, tool: str) -> None:
    story = stories(tool)
    told = new_text(story, "a", "stop")
    # the message was told mid-turn already: the reminder names it, it does not tell it again (the ledger)
    assert "before you stop" in told and story.to_a in told and TO_A not in told, story.a.describe()


@pytest.mark.parametrize("tool", tools())
def test_a_commit_from_the_agents_shell_is_recorded_once_with_its_evidence(stories: Stories, tool: str) -> None:
    story = stories(tool)
    sha = re.findall(r"\b[0-9a-f]{40}\b", new_text(story, "a", "commit"))
    assert sha, story.a.describe()
    recorded = [e for e in story.world.events("commit_recorded") if e["payload"]["sha"] == sha[-1]]
    assert len(recorded) == 1, recorded
    assert f"Commit: {sha[-1][:7]}" in (story.world.repo / ".grid/phases/01-foundation/scratchpad.md").read_text(
        encoding="utf-8"
    )


@pytest.mark.parametrize("tool", tools())
def test_two_agents_sessions_run_at_once_in_two_worktrees(stories: Stories, tool: str) -> None:
    story = stories(tool)
    assert story.a.returncode == 0 and story.b.returncode == 0, story.a.describe() + story.b.describe()
    a, b = story.a.turns, story.b.turns
    assert a[0].at < b[-1].at and b[0].at < a[-1].at  # their sessions overlapped
    assert story.world.gridgit("validate", check=False).returncode == 0


@pytest.mark.parametrize("tool", tools())
def test_an_agent_whose_identity_comes_only_from_the_payload(stories: Stories, tool: str) -> None:
    story = stories(tool)
    assert re.fullmatch(rf"executor-{tool}-[0-9a-f]{{8}}", story.b_agent), story.b_agent
    state = story.world.gridgit("status", "--json").stdout
    assert story.b_agent in state and "wt-b" in state
