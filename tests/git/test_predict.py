"""Predicted merge conflicts between agents' branches, in real repositories with real worktrees."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from gridgit import Blackboard
from gridgit.cli.common import to_jsonable
from tests.conftest import Repo, commit_all, edit, fake_git, git, wt


def predict(repo: Repo, base: str | None = None, branches: list[str] | None = None) -> tuple[int, dict[str, Any]]:
    """The prediction through the Python API, as `conflicts predict --json` prints it: (exit code, data)."""
    prediction = Blackboard(repo.path).predict_conflicts(base, branches)
    data: dict[str, Any] = json.loads(json.dumps(to_jsonable(prediction)))
    return (6 if prediction.conflicts else 0), data


def both_edit(team: Repo, on_a: tuple[str, str], on_b: tuple[str, str]) -> None:
    """Agent a commits ON_A (old, new) to calc.py in its worktree, agent b commits ON_B in its own."""
    for name, (old, new) in (("a", on_a), ("b", on_b)):
        edit(wt(team, name) / "calc.py", old, new)
        commit_all(wt(team, name), name)


def pair(data: dict[str, Any], left: str, right: str) -> dict[str, Any]:
    return next(p for p in data["pairs"] if p["left"]["name"] == left and p["right"]["name"] == right)


def test_same_lines_in_two_worktrees_is_a_conflict_naming_both_agents(team: Repo) -> None:
    both_edit(team, ("total = a + b", "total = b + a"), ("total = a + b", "total = a + b + 0"))
    code, data = predict(team)
    assert code == 6 and data["conflicts"] == 1
    found = pair(data, "agent/a", "agent/b")
    assert found["severity"] == "conflict" and found["agents"] == ["executor-001", "executor-002"]
    (item,) = found["files"]
    assert (item["path"], item["kind"]) == ("calc.py", "content")
    assert item["regions"] == [{"base": [2, 2], "left": [2, 2], "right": [2, 2], "function": "def add(a, b):"}]
    assert "executor-001 (agent/a) and executor-002 (agent/b) would conflict in calc.py" in found["summary"]
    # each branch against the base merges cleanly
    assert pair(data, "agent/a", "main")["severity"] is None
    (event,) = team.events("merge_conflict_predicted")
    payload = event["payload"]
    assert payload["agents"] == ["executor-001", "executor-002"] and payload["files"] == ["calc.py"]
    assert payload["severity"] == "conflict" and payload["summary"] == found["summary"]

    human = team.gridgit("conflicts", "predict", check=False)
    assert human.returncode == 6
    assert "conflict  executor-001 (agent/a) x executor-002 (agent/b)" in human.stdout
    assert "calc.py  content  lines 2 / 2 (base 2)  def add(a, b):" in human.stdout
    assert len(team.events("merge_conflict_predicted")) == 1  # the same pair and blobs: announced once

    edit(wt(team, "b") / "calc.py", "total = a + b + 0", "total = a + b + 1")
    commit_all(wt(team, "b"), "b again")
    _, data = predict(team)
    assert pair(data, "agent/a", "agent/b")["new"] is True
    assert len(team.events("merge_conflict_predicted")) == 2  # new blobs: a new prediction
    assert team.git("check-ignore", ".grid/predictions.json").strip() == ".grid/predictions.json"

    edit(wt(team, "b") / "calc.py", "total = a + b + 1", "total = b + a")  # b now agrees with a
    commit_all(wt(team, "b"), "b agrees")
    assert predict(team)[0] == 0
    edit(wt(team, "b") / "calc.py", "total = b + a", "total = a + b + 1")  # ... and changes its mind
    commit_all(wt(team, "b"), "b back")
    predict(team)
    assert len(team.events("merge_conflict_predicted")) == 3  # a conflict that comes back is news again


def test_different_functions_of_one_file_do_not_conflict(team: Repo) -> None:
    both_edit(team, ("total = a + b", "total = b + a"), ("product = a * b", "product = b * a"))
    code, data = predict(team)
    assert code == 0 and data["conflicts"] == data["overlaps"] == 0
    assert pair(data, "agent/a", "agent/b")["files"] == []
    assert not team.events("merge_conflict_predicted")


def test_other_lines_of_the_same_function_are_an_overlap(team: Repo) -> None:
    both_edit(team, ("total = a + b", "total = b + a"), ("return total", "return int(total)"))
    code, data = predict(team)
    assert code == 0 and data["overlaps"] == 1
    (item,) = pair(data, "agent/a", "agent/b")["files"]
    assert (item["severity"], item["kind"]) == ("overlap", "same function")
    assert item["regions"][0]["function"] == "def add(a, b):"
    assert team.events("merge_conflict_predicted")[0]["payload"]["severity"] == "overlap"


def test_a_rename_on_one_branch_is_followed(team: Repo) -> None:
    git(wt(team, "a"), "mv", "calc.py", "maths.py")
    edit(wt(team, "a") / "maths.py", "diff = a - b", "diff = b - a")
    commit_all(wt(team, "a"), "rename and edit")
    edit(wt(team, "b") / "calc.py", "product = a * b", "product = b * a")
    commit_all(wt(team, "b"), "b")
    code, data = predict(team)
    assert code == 0 and pair(data, "agent/a", "agent/b")["files"] == []  # git carries b's edit into maths.py

    edit(wt(team, "b") / "calc.py", "diff = a - b", "diff = a - b - 0")
    commit_all(wt(team, "b"), "b edits what a edited")
    code, data = predict(team)
    assert code == 6
    (item,) = pair(data, "agent/a", "agent/b")["files"]
    assert item["path"] == "maths.py" and item["regions"][0]["function"] == "def sub(a, b):"


def test_binary_files_conflict_without_hunks(team: Repo) -> None:
    (team.path / "logo.bin").write_bytes(b"\0\1\2" * 50)
    commit_all(team.path, "logo")
    for name, fill in (("a", b"\3"), ("b", b"\4")):
        git(wt(team, name), "merge", "-q", "main")
        (wt(team, name) / "logo.bin").write_bytes(b"\0" + fill * 100)
        commit_all(wt(team, name), f"logo {name}")
    code, data = predict(team)
    assert code == 6
    (item,) = pair(data, "agent/a", "agent/b")["files"]
    assert (item["path"], item["kind"], item["regions"]) == ("logo.bin", "binary", [])


def test_a_base_that_moved_conflicts_with_an_agent_branch(team: Repo) -> None:
    edit(wt(team, "a") / "calc.py", "diff = a - b", "diff = b - a")
    commit_all(wt(team, "a"), "a")
    assert predict(team)[0] == 0
    edit(team.path / "calc.py", "diff = a - b", "diff = abs(a - b)")  # someone merged into main meanwhile
    commit_all(team.path, "main moves")
    code, data = predict(team)
    assert code == 6
    found = pair(data, "agent/a", "main")
    assert found["agents"] == ["executor-001"] and found["files"][0]["path"] == "calc.py"
    assert found["summary"].startswith("executor-001 (agent/a) and main would conflict in calc.py")
    assert pair(data, "agent/b", "main")["severity"] is None  # b has no commit of its own


def test_branches_and_base_options(team: Repo) -> None:
    edit(wt(team, "a") / "calc.py", "total = a + b", "total = b + a")
    commit_all(wt(team, "a"), "a")
    code, data = predict(team, base="agent/a", branches=["agent/b"])
    assert code == 0 and data["base"]["name"] == "agent/a" and data["base"]["agent"] == "executor-001"
    (only,) = data["pairs"]  # agent/b against the base agent/a: a's change merges into b cleanly
    assert (only["left"]["name"], only["right"]["name"], only["severity"]) == ("agent/b", "agent/a", None)
    proc = team.gridgit("conflicts", "predict", "--branches", "agent/a", "no-such-branch", "--json", check=False)
    assert proc.returncode == 1
    assert (
        json.loads(proc.stdout)["error"]["message"] == "'no-such-branch' is not a branch or commit of this repository"
    )


def test_no_agent_branches(repo: Repo) -> None:
    proc = repo.gridgit("conflicts", "predict")
    assert "no agent branches to compare" in proc.stdout


def test_old_git_gets_a_clear_message(team: Repo, tmp_path: Path) -> None:
    before = team.snapshot()
    proc = team.gridgit("conflicts", "predict", env=fake_git(tmp_path, "2.30.2"), check=False)
    assert proc.returncode == 1
    assert proc.stderr == (
        "gridgit: error: conflict prediction (git merge-tree --write-tree) needs git 2.38 or later; "
        "the git on PATH is 2.30.2\n"
    )
    assert team.snapshot() == before


def test_a_git_without_write_tree_is_recognised_by_its_answer(team: Repo, tmp_path: Path) -> None:
    edit(wt(team, "a") / "calc.py", "total = a + b", "total = b + a")
    commit_all(wt(team, "a"), "a")
    env = fake_git(tmp_path, "2.39.5", merge_tree_error="fatal: unknown rev --write-tree")
    proc = team.gridgit("conflicts", "predict", "--json", env=env, check=False)
    assert proc.returncode == 1
    message = json.loads(proc.stdout)["error"]["message"]
    assert message.startswith("conflict prediction (git merge-tree --write-tree) needs git 2.38 or later")


def test_grid_files_are_never_predicted(team: Repo) -> None:
    for name in ("a", "b"):
        git(wt(team, name), "merge", "-q", "main")
        (wt(team, name) / ".grid").mkdir(exist_ok=True)  # a branch that tracks .grid/ files after all
        (wt(team, name) / ".grid" / "notes.md").write_text(f"by {name}\n", encoding="utf-8")
        git(wt(team, name), "add", "--force", ".grid/notes.md")  # ignored since /.grid/ is: forced in
        commit_all(wt(team, name), f"notes {name}")
    code, data = predict(team)
    assert code == 0 and pair(data, "agent/a", "agent/b")["files"] == []


def test_a_detached_work_tree_is_its_commit(team: Repo) -> None:
    git(wt(team, "b"), "switch", "-q", "--detach")
    edit(wt(team, "b") / "calc.py", "product = a * b", "product = b * a")
    commit_all(wt(team, "b"), "detached")
    head = git(wt(team, "b"), "rev-parse", "HEAD").strip()
    _, data = predict(team)
    assert pair(data, head[:12], "main")["left"] == {"name": head[:12], "commit": head, "agent": "executor-002"}
