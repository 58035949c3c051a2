"""Issue 34's eight findings, each as what the real program must show once it is fixed.

Most read the story every program plays (tests/e2e/story.py); the rest run a short session of
their own. A finding still open is a strict xfail (tests/e2e/findings.py): it fails today and
passes once fixed, which fails the run until its mark is removed with the fix.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.e2e.conftest import require
from tests.e2e.drivers import DRIVERS, codex_hooks
from tests.e2e.findings import tools
from tests.e2e.modelserver import say
from tests.e2e.session import World
from tests.e2e.story import TO_A, A, Story, file_modified_by
from tests.e2e.test_scenarios import new_text, opening

Stories = Callable[[str], Story]


def tellings(shown: list[str], phrase: str) -> int:
    """How often the texts SHOWN to a model tell PHRASE, the end hook's "before you stop" reminder aside (a scenario
    of its own: tests/e2e/test_scenarios.py)."""
    return sum(text.count(phrase) for text in shown if "before you stop" not in text)


def session_news(story: Story) -> list[str]:
    """Every text agent A's requests showed its model for the first time, in order."""
    turns = story.a.turns
    return [text for i, turn in enumerate(turns) for text in turn.new_strings(turns[i - 1] if i else None)]


# ---- 1 and 2: Codex's hook trust, and where a linked worktree's hooks are read -------------------------


@pytest.mark.parametrize("tool", tools("codex"))
def test_codex_runs_gridgits_hooks_once_set_up_in_a_trusted_project(
    e2e_root: Path, tool: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The project trusted, then `gridgit setup codex` with Codex installed, nothing else: the hooks run."""
    from tests.e2e.test_codex_trust import SetUpByGridgit

    require(tool)
    monkeypatch.setitem(DRIVERS, "codex", SetUpByGridgit)  # setup run as a user does: after Codex trusts the project
    world = World.make(tool, e2e_root, setup=False)
    run = world.session([say("Nothing to do.")], agent_id=A, trust_hooks=False)
    assert f"you are {A}" in run.turns[0].text(), run.describe()


@pytest.mark.parametrize("tool", tools("codex"))
def test_doctor_reports_codex_hooks_that_codex_will_not_run(e2e_root: Path, tool: str) -> None:
    exe = require(tool)
    world = World.make(tool, e2e_root)
    home = e2e_root / "home-doctor"
    env = {**world.env(), "HOME": str(home), "PATH": f"{Path(exe).parent}:{world.env()['PATH']}"}
    env.update(DRIVERS[tool]().prepare(exe, home, world.repo, "http://127.0.0.1:9", env, trust_hooks=False))
    assert {h["trustStatus"] for h in codex_hooks(exe, env, world.repo)} == {"untrusted"}
    doctor = world.gridgit("doctor", check=False, env=env)
    said = doctor.stdout + doctor.stderr
    assert doctor.returncode == 1 and "trust" in said.lower(), said
    assert "5 never trusted" in said and "fix: gridgit setup codex" in said, said
    # trusted by setup; then stale, and renewed (tests/e2e/test_codex_trust.py)
    from tests.e2e.test_codex_trust import stale_then_renewed

    stale_then_renewed(world, exe, env)


@pytest.mark.parametrize("tool", tools("codex"))
def test_codex_in_a_linked_worktree_runs_the_hooks_setup_wrote_there(e2e_root: Path, tool: str) -> None:
    """`gridgit setup codex` run in a linked worktree only: Codex there runs gridgit's hooks."""
    require(tool)
    world = World.make(tool, e2e_root, setup=False)
    worktree = world.worktree("x")
    world.gridgit("setup", tool, cwd=worktree)
    run = world.session([say("Nothing to do.")], cwd=worktree, agent_id=A)
    assert f"you are {A}" in run.turns[0].text(), run.describe()


# ---- 3: a commit whose git hooks did not run ------------------------------------------------------------


@pytest.mark.parametrize("tool", tools("claude"))
def test_a_commit_made_with_git_hooks_off_is_recorded_at_the_next_hook(e2e_root: Path, tool: str) -> None:
    """A commit git's hooks never saw (a shell that empties core.hooksPath, as Gemini CLI's does) is recorded once."""
    require(tool)
    world = World.make(tool, e2e_root)
    driver = DRIVERS[tool]()
    steps = [
        *driver.write(world.repo / "src/a.py", world.repo, "A = 1\n"),
        driver.shell(
            "git add src/a.py && git -c core.hooksPath= commit -q -m 'a' && git rev-parse HEAD", label="commit"
        ),
        *driver.write(world.repo / "src/b.py", world.repo, "B = 1\n"),  # the next entry point: a hook
        say("Done."),
    ]
    run = world.session(steps, agent_id=A)
    sha = re.findall(r"\b[0-9a-f]{40}\b", run.turn("commit").text())[-1]
    assert [e["payload"]["sha"] for e in world.events("commit_recorded")] == [sha], run.describe()


# ---- 5: told once -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("tool", tools())
def test_a_message_is_news_once_within_a_session(stories: Stories, tool: str) -> None:
    story = stories(tool)
    assert tellings(session_news(story), TO_A) == 1, story.a.describe()


@pytest.mark.parametrize("tool", tools())
def test_a_conflict_is_told_once_within_a_session(stories: Stories, tool: str) -> None:
    """The conflict told beside an edit is not told again (by the commit's hooks either)."""
    story = stories(tool)
    assert tellings(session_news(story), "conflict on src/app.py") == 1, story.a.describe()


@pytest.mark.parametrize("tool", tools())
def test_what_is_still_open_is_state_at_the_next_session_not_news(stories: Stories, tool: str) -> None:
    """A's next session: the unacknowledged message and the open conflict are one line each, not news again."""
    story = stories(tool)
    first = opening(story.a_next)[-1]  # OpenCode's pack may come with its second request (see `opening`)
    told = (tellings(first.strings(), TO_A), tellings(first.strings(), "conflict on src/app.py"))
    assert told[0] <= 1 and told[1] <= 1, first.text()


# ---- 6: one record per edit -------------------------------------------------------------------------


@pytest.mark.parametrize("tool", tools())
def test_an_edit_its_agent_commits_is_one_file_modified(stories: Stories, tool: str) -> None:
    story = stories(tool)
    mine = [e for e in story.world.events("file_modified")
            if e["payload"].get("path") == "src/app.py" and e["payload"].get("agent") == A]  # fmt: skip
    assert len(mine) == 1, mine
    checkpoint = (story.world.grid / "CHECKPOINT.md").read_text(encoding="utf-8")
    assert checkpoint.count(f"conflicting_agent: {A}") == 1, checkpoint


# ---- 7: what the model is told to run runs ----------------------------------------------------------------


@pytest.mark.parametrize("tool", tools())
def test_ack_as_told_works_from_the_shell_of_an_agent_named_by_its_session(stories: Stories, tool: str) -> None:
    """Agent B (no GRID_AGENT_ID) runs the `gridgit ack ID` its inbox named, from its own shell: it exits 0."""
    story = stories(tool)
    ran = re.findall(r"exit=(\d+) gridgit ack", new_text(story, "b", "ack"))
    assert ran == ["0"], story.b.describe()


# ---- 8: the smaller ones ---------------------------------------------------------------------------------


@pytest.mark.parametrize("tool", tools())
def test_a_refused_edit_of_a_claimed_file_says_how_to_release_the_claim(stories: Stories, tool: str) -> None:
    """Without a person to ask (-p), the refusal still names `gridgit release`, as the other tools' do."""
    story = stories(tool)
    assert "gridgit release src/claimed.py" in new_text(story, "a", "claimed"), story.a.describe()


@pytest.mark.parametrize("tool", tools())
def test_a_new_file_is_recorded_as_created(stories: Stories, tool: str) -> None:
    event = file_modified_by(stories(tool).world, "src/app.py", agent=A)
    assert event is not None and event["payload"]["operation"] == "created", event


@pytest.mark.parametrize("tool", tools("claude"))
def test_setup_claude_without_gridgit_on_path_keeps_the_machines_path_out_of_git(e2e_root: Path, tool: str) -> None:
    world = World.make(tool, e2e_root, setup=False)
    bare = {"PATH": "/usr/local/bin:/usr/bin:/bin"}  # gridgit installed, but not on PATH
    done = world.gridgit("setup", tool, env=bare)
    local = world.repo / ".claude" / "settings.local.json"
    assert local.exists() and "GRIDGIT_BIN" in local.read_text(encoding="utf-8")
    ignored = subprocess.run(["git", "check-ignore", "-q", str(local)], cwd=world.repo, env=world.env()).returncode == 0
    assert ignored or "settings.local.json" in done.stdout + done.stderr, done.stdout + done.stderr
