"""`gridgit doctor` offers a fix that works for each problem it names; `doctor --repair` brings a
deleted STATE.md back (from git when it has a copy, else rebuilt with every phase it knows)."""

from __future__ import annotations

import json
import shlex

from tests.conftest import Repo


def _fails(repo: Repo) -> list[dict[str, str]]:
    data = json.loads(repo.gridgit("doctor", "--json", check=False).stdout)["data"]
    return [f for f in data["findings"] if f["level"] == "fail"]


def _apply_fixes(repo: Repo) -> None:
    """Run each fix doctor names (a gridgit command) as a user would, with Master Control's id."""
    for found in _fails(repo):
        assert found["fix"].startswith("gridgit "), found
        repo.gridgit(*shlex.split(found["fix"])[1:], agent="mc")


def test_each_named_problem_has_a_working_fix(repo: Repo) -> None:
    repo.gridgit("write", "-c", "discovery", "-t", "auth", "--content", "Found: x", agent="executor-001")
    pad = repo.grid / "phases" / "01-foundation" / "scratchpad.md"
    pad.write_text(pad.read_text("utf-8").replace("entry_count: 1", "entry_count: 7"), "utf-8")  # index drift
    repo.gridgit("hooks", "uninstall")
    assert {f["check"] for f in _fails(repo)} >= {"index", "hooks"}
    _apply_fixes(repo)
    assert _fails(repo) == []


def test_a_deleted_state_is_rebuilt_from_the_phase_folders(repo: Repo) -> None:
    repo.gridgit("write", "-c", "gotcha", "-t", "auth", "--content", "Gotcha: x", agent="executor-001")
    repo.gridgit("phase", "complete", "01-foundation", agent="mc")
    (repo.grid / "STATE.md").unlink()
    refused = repo.gridgit("state", "show", check=False)
    assert refused.returncode == 3 and "doctor --repair" in refused.stderr
    assert [f["fix"] for f in _fails(repo)] == ["gridgit doctor --repair"]
    _apply_fixes(repo)
    state = repo.gridgit_json("state", "show")
    assert state["position"]["phase_id"] == "02-core" and state["position"]["phase_name"] == "Core Features"
    assert [d["status"] for d in state["phases"]["definitions"]] == ["complete", "in_progress"]
    assert repo.gridgit("validate").returncode == 0
    again = repo.gridgit("doctor", "--repair", check=False)
    assert again.returncode == 1 and "nothing to repair" in again.stderr


def test_a_deleted_state_is_restored_from_git_when_tracked(repo: Repo) -> None:
    repo.gridgit("state", "update", "--set", "cluster=Kept Mission", agent="mc")
    repo.git("add", "-f", ".grid/STATE.md")
    repo.git("commit", "-q", "-m", "track state", env={"GRIDGIT_SKIP": "1"})
    kept = (repo.grid / "STATE.md").read_text("utf-8")
    (repo.grid / "STATE.md").unlink()
    out = repo.gridgit("doctor", "--repair").stdout
    assert "STATE.md: restored from HEAD:.grid/STATE.md" in out and (repo.grid / "STATE.md").read_text("utf-8") == kept
