"""The watcher predicts merge conflicts after commits land on agent branches (debounced)."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from gridgit.store import gitcmd
from gridgit.store.layout import Layout
from gridgit.watch.refs import MAX_HOLD_WINDOWS, RefWatch
from tests.conftest import Daemons, Repo, commit_all, edit, wait_for, wt


def test_commits_on_agent_branches_are_predicted(daemons: Daemons, team: None) -> None:
    repo = daemons.repo
    config = repo.grid / "config.json"
    settings = json.loads(config.read_text(encoding="utf-8"))
    settings["foresight"] = {"debounce_seconds": 0.2}
    config.write_text(json.dumps(settings), encoding="utf-8")
    daemons.start()
    log = repo.grid / ".daemon" / "daemon.log"
    # the start-up prediction (nothing to predict yet), so what follows can only come from the commits
    wait_for(lambda: "predicted 0 merge(s)" in log.read_text(encoding="utf-8"))  # the branches are main yet
    edit(wt(repo, "a") / "calc.py", "total = a + b", "total = b + a")
    commit_all(wt(repo, "a"), "a")
    edit(wt(repo, "b") / "calc.py", "total = a + b", "total = a + b + 0")
    commit_all(wt(repo, "b"), "b")
    (event,) = wait_for(lambda: repo.events("merge_conflict_predicted"), timeout=30)
    assert event["payload"]["agents"] == ["executor-001", "executor-002"]
    assert event["payload"]["files"] == ["calc.py"] and event["payload"]["severity"] == "conflict"
    wait_for(lambda: "predicted 3 merge(s): 1 conflict, 0 overlap, 1 new" in log.read_text(encoding="utf-8"))


def test_reflog_updates_are_debounced(bare_repo: Repo) -> None:
    refs = RefWatch(Layout.find(bare_repo.path), delay=2.0)
    git_dir = bare_repo.path / ".git"
    assert refs.watch_dirs([git_dir, None]) == [git_dir / "logs"]
    assert refs.matches(str(git_dir / "logs" / "HEAD")) and not refs.matches(str(git_dir / "HEAD"))
    refs.touch(0.0)
    refs.touch(1.0)
    assert not refs.due(2.5) and refs.due(3.0)  # quiet for the delay after the last update
    for second in range(20):  # a burst that never pauses (a long rebase) ...
        refs.touch(float(100 + second))
        if refs.due(float(100 + second)):
            break
    assert second == 2 * MAX_HOLD_WINDOWS  # ... waits at most five windows
    off = RefWatch(Layout.find(bare_repo.path), delay=2.0, enabled=False)
    off.touch(0.0)
    assert off.watch_dirs([git_dir]) == [] and off.next_deadline() is None


def test_an_old_git_turns_prediction_off_with_one_warning(
    bare_repo: Repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from tests.conftest import fake_git

    monkeypatch.setenv("PATH", fake_git(tmp_path, "2.37.1")["PATH"])
    gitcmd.version.cache_clear()
    try:
        with caplog.at_level(logging.WARNING, logger="gridgit.watch.watcher"):
            refs = RefWatch(Layout.find(bare_repo.path), delay=2.0)
    finally:
        gitcmd.version.cache_clear()
    assert not refs.enabled
    assert [r.getMessage() for r in caplog.records] == [
        "merge conflicts are not predicted: conflict prediction (git merge-tree --write-tree) needs git 2.38 "
        "or later; the git on PATH is 2.37.1"
    ]
