"""STATE.md (L3): permission-checked, locked, atomic updates."""

from __future__ import annotations

import multiprocessing
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gridgit import Blackboard
from gridgit.errors import BadInput, PermissionDenied
from gridgit.model.permissions import STATE_FIELDS, STATE_WRITABLE
from gridgit.store import frontmatter
from tests.conftest import Repo, lock_holder

# A value per top-level field that passes the schema check.
SAMPLE = {
    "version": "1.1", "session_id": "sess-x", "mission_id": "mission-x", "cluster": "c",
    "created_at": "2026-01-01T00:00:00Z", "updated_at": "2026-01-01T00:00:00Z", "status": "in_progress",
    "mode": "guided", "phases": {"total": 2}, "position": {"block": 2}, "progress": {"percent": 10.0},
    "agents": {"active": [{"id": "executor-001", "task": "t"}]}, "persistent": {"decisions": []},
    "resume": {"can_resume": True}, "budget": {"spawns_this_session": 1}, "warnings": [{"message": "w"}],
    "blockers": [{"id": "blocker-001", "description": "d"}], "energy": 1,
}  # fmt: skip

ACCESS = [(kind, field, field in STATE_WRITABLE[kind]) for kind in sorted(STATE_WRITABLE) for field in STATE_FIELDS]


@pytest.mark.parametrize(("kind", "field", "allowed"), ACCESS)
def test_access_rules_table(board: Blackboard, kind: str, field: str, allowed: bool) -> None:
    before = board.layout.state.read_bytes()
    if allowed and field == "position":  # the type may, but only the phase and block operations move it
        with pytest.raises(BadInput, match="STATE's position moves only with the mission"):
            board.update_state({field: SAMPLE[field]}, agent=f"{kind}-001")
        assert board.layout.state.read_bytes() == before
    elif allowed:
        new = board.update_state({field: SAMPLE[field]}, agent=f"{kind}-001")
        if field != "updated_at":
            assert new[field] == frontmatter.parse(board.layout.state.read_text(), "s")[0][field]
    else:
        with pytest.raises(PermissionDenied, match=f"{kind} may not write STATE field '{field}'"):
            board.update_state({field: SAMPLE[field]}, agent=f"{kind}-001")
        assert board.layout.state.read_bytes() == before


def test_update_deep_merges_and_emits_state_updated(board: Blackboard, repo: Repo) -> None:
    board.set_state({"budget.spawns_this_session": 3, "budget.total_cost_usd": 1.5}, agent="mc")
    state = board.state()
    assert state["budget"]["spawns_this_session"] == 3
    assert state["budget"]["session_cost_usd"] == 0.0  # untouched sibling kept
    event = repo.events("state_updated")[-1]
    assert event["payload"]["agent"] == "mc"
    assert event["payload"]["fields"] == ["budget"]


def test_body_is_rendered_from_the_frontmatter(board: Blackboard) -> None:
    board.update_state({"progress": {"percent": 50.0}, "status": "in_progress"}, agent="mc")
    board.update_state({"agents": {"active": [{"id": "executor-001", "task": "auth"}]}}, agent="executor-001")
    text = board.layout.state.read_text()
    assert "**Progress:** [██████████░░░░░░░░░░] 50%" in text
    assert "**Status:** in_progress" in text
    assert "- executor-001: auth" in text
    rows = [line for line in text.splitlines() if line.startswith("| 20")]
    assert [r.split(" | ")[1] for r in rows] == ["executor-001", "mc"]  # newest first


def test_blocker_added_event(board: Blackboard, repo: Repo) -> None:
    board.update_state({"blockers": [{"id": "blocker-001", "blocking_thread": "01-03-thread-2"}]}, agent="recognizer-1")
    assert repo.events("blocker_added")[-1]["payload"]["blocker_id"] == "blocker-001"


@pytest.mark.parametrize(
    ("updates", "agent", "message"),
    [
        ({"nonsense": 1}, "mc", "unknown STATE field 'nonsense'"),
        ({"status": "dancing"}, "mc", "field 'status' must be one of"),
        ({"progress": {"percent": "half"}}, "mc", "field 'progress.percent' must be a number"),
        ({"agents": {"active": [{"task": "no id"}]}}, "mc", r"agents.active\[0\] must be a mapping with an id"),
        ({"position": {"phase_id": "09-nowhere"}}, "mc", "STATE's position moves only with the mission"),
        ({"warnings": "not a list"}, "executor-001", "field 'warnings' must be a list"),
        ({"position": {"block": 2}}, "wizard-001", "unknown agent type 'wizard'"),
        ({}, "mc", "at least one field"),
    ],
)
def test_bad_updates_change_nothing(board: Blackboard, updates: dict[str, object], agent: str, message: str) -> None:
    before = board.layout.state.read_bytes()
    with pytest.raises(BadInput, match=message):
        board.update_state(updates, agent=agent)
    assert board.layout.state.read_bytes() == before


def _hammer(path: str, worker: int, rounds: int) -> None:
    board = Blackboard(path)
    for n in range(rounds):
        board.set_state({f"persistent.tech_stack.worker{worker}": n}, agent="memory-001")


def test_eight_processes_lose_no_update(repo: Repo) -> None:
    ctx = multiprocessing.get_context("spawn")
    workers = [ctx.Process(target=_hammer, args=(str(repo.path), i, 50)) for i in range(8)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(120)
    assert [w.exitcode for w in workers] == [0] * 8
    state = Blackboard(repo.path).state()
    assert state["persistent"]["tech_stack"] == {f"worker{i}": 49 for i in range(8)}
    assert len(repo.events("state_updated")) == 400


_WRITER = """
import sys
from gridgit import Blackboard
board = Blackboard(sys.argv[1])
n = 0
while True:
    n += 1
    board.set_state({"persistent.tech_stack.counter": n, "persistent.tech_stack.blob": "x" * 20000}, agent="mc")
"""


def test_a_process_killed_mid_write_leaves_a_valid_state(repo: Repo) -> None:
    for delay in (0.05, 0.11, 0.17, 0.23, 0.31):
        proc = subprocess.Popen([sys.executable, "-c", _WRITER, str(repo.path)])
        deadline = time.monotonic() + 30
        while "counter" not in repo.grid.joinpath("STATE.md").read_text() and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(delay)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
        state = Blackboard(repo.path).state()  # parses and passes the schema check
        assert state["persistent"]["tech_stack"]["counter"] >= 1


def test_state_show_field_and_json(repo: Repo) -> None:
    assert repo.gridgit_json("state", "show", "--field", "position.phase_id") == "01-foundation"
    out = repo.gridgit("state", "show").stdout
    assert "cluster: Test Mission" in out


def test_cli_update_reads_values_as_yaml(repo: Repo) -> None:
    repo.gridgit("state", "update", "--set", "agents.active=[]", "--set", "warnings=[a, b]", agent="executor-001")
    assert repo.gridgit_json("state", "show", "--field", "agents.active") == []
    assert repo.gridgit_json("state", "show", "--field", "warnings") == ["a", "b"]
    repo.gridgit("state", "update", "--json", '{"status": "blocked"}', agent="mc")
    assert repo.gridgit_json("state", "show", "--field", "status") == "blocked"


@pytest.mark.parametrize(
    ("args", "agent", "code", "message"),
    [
        (["--set", "position.block=2"], "scout-001", 4, "scout may not write STATE field 'position'"),
        (["--set", "bogus=1"], "mc", 1, "unknown STATE field 'bogus'"),
        (["--set", "position.block=[unclosed"], "mc", 1, "--set position.block"),
        (["--set", "position.block"], "mc", 1, "expected dotted.path=VALUE"),
        (["--json", "{not json"], "mc", 1, "--json line 1 column 2"),
        (["--set", "position.block=2"], "ghost-001", 1, "unknown agent type 'ghost'"),
        (["--set", "position.block=2"], None, 1, "no agent id"),
    ],
)
def test_cli_bad_updates(repo: Repo, args: list[str], agent: str | None, code: int, message: str) -> None:
    before = repo.snapshot()
    proc = repo.gridgit("state", "update", *args, agent=agent, check=False)
    assert proc.returncode == code
    assert message in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    assert repo.snapshot() == before


def test_invalid_yaml_in_state_is_reported_with_file_and_line(repo: Repo) -> None:
    state = repo.grid / "STATE.md"
    state.write_text(state.read_text().replace("mode: autopilot", "mode: [autopilot"), encoding="utf-8")
    before = repo.snapshot()
    for args in (["state", "show"], ["state", "update", "--set", "position.block=2"], ["status"]):
        proc = repo.gridgit(*args, agent="mc", check=False)
        assert proc.returncode == 1
        assert "STATE.md line" in proc.stderr
    assert repo.snapshot() == before


def test_lock_held_past_timeout_exits_5(repo: Repo) -> None:
    with lock_holder(repo.grid / "STATE.md"):
        before = repo.snapshot()
        proc = repo.gridgit("state", "update", "--set", "position.block=2", agent="mc", check=False,
                            env={"GRIDGIT_LOCK_TIMEOUT": "0.3"})  # fmt: skip
        assert proc.returncode == 5
        assert ".locks/state.lock still held after 0.3s" in proc.stderr and len(proc.stderr.splitlines()) == 1
        assert repo.snapshot() == before


def test_a_bad_lock_timeout_is_one_line(repo: Repo) -> None:
    before = repo.snapshot()
    for value in ("soon", "-1", "nan"):
        proc = repo.gridgit("state", "update", "--set", "position.block=2", agent="mc", check=False,
                            env={"GRIDGIT_LOCK_TIMEOUT": value})  # fmt: skip
        assert proc.returncode == 1
        assert proc.stderr.startswith("gridgit: error: GRIDGIT_LOCK_TIMEOUT") and len(proc.stderr.splitlines()) == 1
    assert repo.snapshot() == before


def test_missing_grid_exits_3(bare_repo: Repo) -> None:
    for args in (["state", "show"], ["status"], ["state", "update", "--set", "position.block=2"]):
        proc = bare_repo.gridgit(*args, agent="mc", check=False)
        assert proc.returncode == 3
        assert "gridgit init" in proc.stderr
    assert not bare_repo.grid.exists()


def test_outside_a_git_repo_is_exit_1(repo: Repo, tmp_path: Path) -> None:
    outside = tmp_path / "nowhere"
    outside.mkdir()
    proc = repo.gridgit("status", cwd=outside, check=False)
    assert proc.returncode == 1
    assert "not a git repository" in proc.stderr


def test_json_error_envelope(bare_repo: Repo) -> None:
    proc = bare_repo.gridgit("status", "--json", check=False)
    assert proc.returncode == 3
    import json

    envelope = json.loads(proc.stdout)
    assert envelope["ok"] is False and envelope["error"]["code"] == "not_initialised"
