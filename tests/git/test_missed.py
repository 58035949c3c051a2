"""Every commit recorded once, whatever path it took (DESIGN.md invariant 10; issue 34 finding 3): a
commit that skipped git's hooks (`--no-verify`, an empty `core.hooksPath` as Gemini CLI's shell
sets it, a GUI) is found in its HEAD reflog by the next gridgit entry point and recorded once,
with its evidence. Real git, real `gridgit` processes, real agent-hook runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.agents.helpers import hook
from tests.conftest import Daemons, Repo, wait_for

# What Gemini CLI's run_shell_command puts in the environment of the commands it runs (issue 34, finding 3).
NO_HOOKS = {"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "core.hooksPath", "GIT_CONFIG_VALUE_0": ""}


def _commit(
    repo: Repo, rel: str, text: str, *flags: str, cwd: Path | None = None, env: dict[str, str] | None = None
) -> str:
    where = cwd or repo.path
    (where / rel).parent.mkdir(parents=True, exist_ok=True)
    (where / rel).write_text(text, encoding="utf-8")
    repo.git("-C", str(where), "add", rel)
    repo.git("-C", str(where), "commit", "-q", "-m", f"change {rel}", *flags, env=env)
    return repo.git("-C", str(where), "rev-parse", "HEAD").strip()


def _recorded(repo: Repo) -> list[str]:
    return [e["payload"]["sha"] for e in repo.events("commit_recorded")]


@pytest.fixture
def cited(repo: Repo) -> Repo:
    """REPO with its Blackboard ignored by the code branch and an entry citing src/app.py."""
    repo.git("add", "-A")
    repo.git("commit", "-q", "-m", "set up")
    repo.gridgit("status")  # the first look at the reflogs: nothing before it is news
    content = "Found: the app\n\nEvidence:\n- File: src/app.py"
    repo.gridgit("write", "-c", "discovery", "-t", "app", "--content", content, agent="executor-001")
    return repo


def test_a_commit_with_hooks_off_is_recorded_by_the_next_command_once_with_evidence(cited: Repo) -> None:
    sha = _commit(cited, "src/app.py", "x = 1\n", env=NO_HOOKS)
    assert sha not in _recorded(cited)  # no hook ran
    cited.gridgit("status")
    assert _recorded(cited).count(sha) == 1
    event = cited.events("commit_recorded")[-1]["payload"]
    assert event["files"] == ["src/app.py"] and event["agent"] == "unknown"
    pad = (cited.grid / "phases" / "01-foundation" / "scratchpad.md").read_text("utf-8")
    assert f"- File: src/app.py\n- Commit: {sha[:7]}" in pad
    cited.gridgit("status")
    cited.gridgit("log")
    assert _recorded(cited).count(sha) == 1  # found once, recorded once


def test_no_verify_and_a_normal_commit_are_each_recorded_once(cited: Repo) -> None:
    skipped = _commit(cited, "src/a.py", "a\n", "--no-verify")
    normal = _commit(cited, "src/b.py", "b\n")
    cited.gridgit("status")
    recorded = _recorded(cited)
    assert recorded.count(skipped) == 1 and recorded.count(normal) == 1


def test_checkout_reset_and_merge_move_head_without_recording_anything(cited: Repo) -> None:
    cited.git("checkout", "-q", "-b", "side")
    side = _commit(cited, "src/side.py", "s\n")
    cited.git("checkout", "-q", "main")
    before = _recorded(cited)
    assert side in before
    cited.git("merge", "-q", "--no-ff", "side", "-m", "merge side", env=NO_HOOKS)
    cited.git("reset", "-q", "--hard", "HEAD~1", env=NO_HOOKS)
    cited.git("checkout", "-q", "side", env=NO_HOOKS)
    cited.gridgit("status")
    assert _recorded(cited) == before


def test_a_linked_worktrees_commit_is_found_from_the_main_worktree(cited: Repo, tmp_path: Path) -> None:
    linked = tmp_path / "linked"
    cited.git("worktree", "add", "-q", str(linked), "-b", "agent-1")
    cited.gridgit("status")  # the new worktree's reflog is known from here on
    sha = _commit(cited, "src/app.py", "y = 2\n", cwd=linked, env=NO_HOOKS)
    cited.gridgit("status", cwd=cited.path)
    assert _recorded(cited).count(sha) == 1


def test_an_agent_hook_records_it_in_the_background(cited: Repo) -> None:
    cited.gridgit("setup", "gemini")
    hook(cited, "gemini", "session-start", cited.path, "sess-1")
    hook(cited, "gemini", "prompt", cited.path, "sess-1")  # nothing new: the fast path's answer from here on
    sha = _commit(cited, "src/app.py", "z = 3\n", env=NO_HOOKS)
    done = hook(cited, "gemini", "prompt", cited.path, "sess-1")
    assert done.returncode == 0 and json.loads(done.stdout) is not None
    wait_for(lambda: sha in _recorded(cited), timeout=60)
    cited.gridgit("status")
    assert _recorded(cited).count(sha) == 1


def test_the_fast_path_stays_quiet_once_the_commits_are_looked_at(cited: Repo) -> None:
    from gridgit.git import missed
    from gridgit.store.layout import Layout

    common = str(Layout.find(cited.path).git_common)
    assert not missed.moved(common)
    _commit(cited, "src/app.py", "w = 4\n")  # hooks on: recorded by post-commit, which looks too
    assert not missed.moved(common)
    _commit(cited, "src/app.py", "w = 5\n", env=NO_HOOKS)
    assert missed.moved(common)
    cited.gridgit("status")
    assert not missed.moved(common)


def test_a_reflog_rewritten_shorter_records_nothing_old(cited: Repo) -> None:
    _commit(cited, "src/app.py", "v = 6\n")
    before = _recorded(cited)
    cited.git("reflog", "expire", "--expire=now", "--all")
    cited.gridgit("status")
    _commit(cited, "src/app.py", "v = 7\n", env=NO_HOOKS)
    cited.gridgit("status")
    assert len(_recorded(cited)) == len(before) + 1


def test_the_watcher_records_a_commit_that_skipped_the_hooks(cited: Repo, daemons: Daemons) -> None:
    config = json.loads((cited.grid / "config.json").read_text(encoding="utf-8"))
    config.setdefault("watcher", {})["sweep_seconds"] = 1
    (cited.grid / "config.json").write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")
    daemons.start()
    sha = _commit(cited, "src/app.py", "u = 8\n", env=NO_HOOKS)
    wait_for(lambda: sha in _recorded(cited), timeout=120)  # no gridgit command ran: the watcher's sweep
    assert _recorded(cited).count(sha) == 1
