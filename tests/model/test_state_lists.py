"""One item of a STATE list by its id: add, update, remove; sixteen writers at once lose nothing."""

from __future__ import annotations

import json

import pytest

from gridgit import Blackboard
from gridgit.errors import BadInput, PermissionDenied
from gridgit.model.state_lists import ListChange, updates_for
from tests.conftest import Repo


def test_changes_are_pure_and_by_id() -> None:
    st = {"blockers": [{"id": "b1", "description": "x"}], "agents": {"active": [], "completed": ["old"]}}
    updates = updates_for(
        st,
        [
            ListChange.add("blockers", {"id": "b2", "description": "y"}),
            ListChange.update("blockers", {"id": "b1", "description": "x2"}),
            ListChange.add("agents.active", {"id": "executor-001"}),
            ListChange.remove("agents.completed", "old"),
        ],
    )
    assert updates == {
        "blockers": [{"id": "b1", "description": "x2"}, {"id": "b2", "description": "y"}],
        "agents": {"active": [{"id": "executor-001"}], "completed": []},
    }
    assert st["blockers"] == [{"id": "b1", "description": "x"}]  # the input is not changed


def test_an_item_without_an_id_gets_a_unique_one() -> None:
    first, second = ListChange.add("blockers", {"type": "x"}), ListChange.add("blockers", {"type": "x"})
    assert first.item_id and first.item_id.startswith("blocker-") and first.item_id != second.item_id
    assert ListChange.add("warnings", {"message": "m"}).item["id"].startswith("warning-")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (ListChange.add("blockers", {"id": "b1"}), "already has an item with id 'b1'"),
        (ListChange.update("blockers", {"id": "nope"}), "has no item with id 'nope'"),
        (ListChange.remove("blockers", "nope"), "has no item with id 'nope'"),
        (ListChange.add("position", {"id": "x"}), "'position' is not a list"),
        (ListChange.update("phases.completed", {"id": "01-a"}), "is a plain value"),
    ],
)
def test_bad_changes(change: ListChange, message: str) -> None:
    st = {"blockers": [{"id": "b1"}], "position": {"phase": 1}, "phases": {"completed": ["01-a"]}}
    with pytest.raises(BadInput, match=message):
        updates_for(st, [change])


def test_api_add_update_remove(board: Blackboard, repo: Repo) -> None:
    board.add_item("blockers", {"id": "blocker-001", "description": "no key"}, agent="recognizer-001")
    board.update_item("blockers", {"id": "blocker-001", "type": "missing_credential"}, agent="recognizer-001")
    [blocker] = board.state()["blockers"]
    added_at = blocker.pop("added_at")  # stamped when it was added, as the spec's example has it
    assert blocker == {
        "id": "blocker-001",
        "description": "no key",
        "type": "missing_credential",
        "source": "recognizer-001",
    }
    assert repo.events("blocker_added")[-1]["payload"]["added_at"] == added_at
    assert repo.events("blocker_added")[-1]["payload"]["blocker_id"] == "blocker-001"
    board.remove_item("blockers", "blocker-001", agent="mc")
    assert board.state()["blockers"] == []
    with pytest.raises(PermissionDenied):
        board.add_item("blockers", {"id": "b"}, agent="executor-001")  # executors may not write blockers


def test_cli_list_changes_combine_with_set_in_one_write(repo: Repo) -> None:
    repo.gridgit(
        "state", "update", "--set", "agents.completed=[planner-001]", "--add",
        "agents.active={id: executor-001, task: auth}", "--add", "warnings={message: slow CI}", agent="executor-001",
    )  # fmt: skip
    st = repo.gridgit_json("state", "show")
    assert st["agents"]["completed"] == ["planner-001"]
    assert st["agents"]["active"] == [{"id": "executor-001", "task": "auth"}]
    warning = st["warnings"][0]
    assert warning["message"] == "slow CI" and warning["id"].startswith("warning-")
    assert warning["source"] == "executor-001" and warning["timestamp"] == st["updated_at"]  # whose, and when
    assert repo.events("state_updated")[-1]["payload"]["fields"] == ["agents", "warnings"]
    repo.gridgit("state", "update", "--update", "agents.active={id: executor-001, block: 01-02}", agent="mc")
    repo.gridgit("state", "update", "--remove", f"warnings={st['warnings'][0]['id']}", agent="mc")
    st = repo.gridgit_json("state", "show")
    assert st["agents"]["active"] == [{"id": "executor-001", "task": "auth", "block": "01-02"}] and st["warnings"] == []


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--remove", "warnings=w-1"], "warnings has no item with id 'w-1'"),
        (["--remove", "warnings"], "expected LIST=ID"),
        (["--add", "warnings=[a, b]"], "must be a mapping or a single value"),
        (["--add", "warnings={unclosed"], "--add warnings"),
        (["--update", "warnings={message: x}"], "give a mapping with the id"),
        (["--add", "position={id: x}"], "'position' is not a list"),
        (["--add", "blockers={id: b}", "--json", "{}"], "give either"),
    ],
)
def test_cli_bad_list_changes_change_nothing(repo: Repo, args: list[str], message: str) -> None:
    before = repo.snapshot()
    proc = repo.gridgit("state", "update", *args, agent="mc", check=False)
    assert proc.returncode == 1 and message in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    assert repo.snapshot() == before


def test_sixteen_processes_adding_at_once_lose_nothing(repo: Repo) -> None:
    done = repo.gridgit_at_once(
        [["state", "update", "--add", f"blockers={{id: blocker-{n:02d}}}"] for n in range(16)], agent="mc"
    )
    assert [p.returncode for p in done] == [0] * 16, [p.stderr for p in done]
    ids = [b["id"] for b in repo.gridgit_json("state", "show", "--field", "blockers")]
    assert sorted(ids) == [f"blocker-{n:02d}" for n in range(16)]
    assert len(repo.events("blocker_added")) == 16


def test_replacing_a_whole_list_stays_possible(repo: Repo) -> None:
    repo.gridgit("state", "update", "--add", "warnings={id: w1}", agent="mc")
    repo.gridgit("state", "update", "--set", f"warnings={json.dumps([{'id': 'w2'}])}", agent="mc")
    [warning] = repo.gridgit_json("state", "show", "--field", "warnings")
    assert warning["id"] == "w2" and warning["timestamp"]  # a new item gets its timestamp
