"""The roster: registered agents and the agents seen lately, with their last heartbeat and staleness."""

from __future__ import annotations

from typing import Any

import pytest

from gridgit.views import roster
from tests.conftest import Repo


def by_id(board: Any) -> dict[str, dict[str, Any]]:
    return {row["id"]: row for row in board.roster()}


def test_registered_agents_first_in_state_order_then_the_seen_ones(
    repo: Repo, board: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    active = [
        {"id": "recognizer-001", "task": "Review"},
        {"id": "executor-002", "type": "executor", "task": "API", "block": "01-02", "worktree": "/wt/e2"},
        {"id": "scout-001", "task": "Map"},
        {"id": "executor-003", "phase": "02-core"},
    ]
    board.update_state({"agents": {"active": active, "completed": [{"id": "executor-009"}]}}, agent="mc")
    board.heartbeat(70, "writing tests", thread="thread 1", files=["tests/a.py"], agent="executor-002")
    board.write("discovery", "db", "Found: x", agent="executor-001")  # wrote, never registered
    board.write("discovery", "ui", "Found: y", agent="executor-009")  # completed: not on the roster
    board.touch("src/a.py", agent="executor-004")  # only an event names it
    board.emit("state_updated", {"agent": "unknown"})
    rows = board.roster()
    assert [r["id"] for r in rows] == [
        "recognizer-001", "executor-002", "scout-001", "executor-003", "executor-001", "executor-004", "mc",
    ]  # fmt: skip
    agents = {r["id"]: r for r in rows}
    e2 = agents["executor-002"]
    assert (e2["registered"], e2["task"], e2["block"], e2["worktree"]) == (True, "API", "01-02", "/wt/e2")
    assert (e2["action"], e2["progress"], e2["thread"], e2["files"]) == (
        "writing tests",
        70,
        "thread 1",
        ["tests/a.py"],
    )
    assert (e2["warning_level"], e2["stale"], e2["minutes_since"]) == ("ok", False, 0)
    # the heartbeat's entry, then its stamp on STATE's `last_heartbeat`: both just after
    assert e2["last_event"] == "state_updated" and e2["last_seen"] >= e2["last_heartbeat"]
    assert agents["recognizer-001"]["warning_level"] == "stale" and agents["recognizer-001"]["action"] is None
    assert agents["scout-001"]["warning_level"] == "n/a" and agents["scout-001"]["stale"] is None
    assert agents["mc"]["warning_level"] == "n/a" and not agents["mc"]["registered"]  # seen: it registered them
    executor = agents["executor-001"]  # its write is a sign of its work (issue 36): not stale
    assert executor["registered"] is False and executor["stale"] is False and executor["last_heartbeat"]
    assert agents["executor-004"]["last_event"] == "file_modified"


def test_seen_means_an_event_of_the_last_hour(repo: Repo, board: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRIDGIT_NOW", "2026-01-24T10:00:00Z")
    board.touch("src/a.py", agent="executor-005")
    monkeypatch.setenv("GRIDGIT_NOW", f"2026-01-24T{10 + roster.SEEN_MINUTES // 60}:00:30Z")
    assert "executor-005" not in by_id(board)
    monkeypatch.setenv("GRIDGIT_NOW", "2026-01-24T10:59:00Z")
    assert "executor-005" in by_id(board)


def test_a_registered_agents_heartbeat_is_looked_up_in_its_own_phase(repo: Repo, board: Any) -> None:
    board.update_state({"agents": {"active": [{"id": "executor-007", "phase": "02-core"}]}}, agent="mc")
    board.heartbeat(10, "starting phase 2", phase="02-core", agent="executor-007")
    row = by_id(board)["executor-007"]
    assert (row["action"], row["warning_level"], row["phase"]) == ("starting phase 2", "ok", "02-core")


def test_a_broken_scratchpad_leaves_the_roster_standing(repo: Repo, board: Any) -> None:
    board.update_state({"agents": {"active": [{"id": "executor-001"}]}}, agent="mc")
    pad = repo.grid / "phases" / "01-foundation" / "scratchpad.md"
    pad.write_text(pad.read_text(encoding="utf-8") + "\n### [x] broken header\n", encoding="utf-8")
    assert by_id(board)["executor-001"]["warning_level"] == "stale"
