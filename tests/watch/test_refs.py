"""The watcher predicts merge conflicts after commits land on agent branches (debounced)."""

from __future__ import annotations

import json

from tests.conftest import Daemons, commit_all, edit, wait_for, wt


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
