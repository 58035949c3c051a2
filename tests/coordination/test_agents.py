"""The agent lifecycle: register, done, list; heartbeats in STATE; staleness across phases."""

from __future__ import annotations

import pytest

from tests.conftest import Repo

T0 = "2026-01-24T14:00:00Z"


def test_register_list_and_done(repo: Repo) -> None:
    data = repo.gridgit_json("agent", "register", "--task", "auth middleware", "--block", "01-02", agent="executor-001")
    assert data["action"] == "registered"
    active = repo.gridgit_json("state", "show", "--field", "agents.active")
    assert active == [data["agent"]]
    assert active[0] | {"spawned_at": None} == {
        "id": "executor-001", "type": "executor", "task": "auth middleware", "phase": "01-foundation",
        "block": "01-02", "worktree": None, "spawned_at": None, "last_heartbeat": None,
    }  # fmt: skip
    spawned = repo.events("agent_spawned")[-1]["payload"]
    assert spawned["agent_id"] == "executor-001" and spawned["task"] == "auth middleware"
    assert repo.gridgit_json("state", "show", "--field", "budget.spawns_this_session") == 1
    assert (repo.grid / "events" / "cursors" / "inbox" / "executor-001.json").exists()  # its inbox opens now

    listed = repo.gridgit_json("agent", "list")
    assert [a["id"] for a in listed["active"]] == ["executor-001"]
    assert listed["active"][0]["warning_level"] == "ok"  # just registered: not stale before its first heartbeat

    repo.gridgit("claim", "src/auth/**", agent="executor-001")
    done = repo.gridgit_json("agent", "done", "--summary", "JWT in place", agent="executor-001")
    assert done["action"] == "done" and done["released"] == ["src/auth/**"]
    agents = repo.gridgit_json("state", "show", "--field", "agents")
    assert agents["active"] == []
    assert agents["completed"][0]["id"] == "executor-001" and agents["completed"][0]["summary"] == "JWT in place"
    assert agents["completed"][0]["result"] == "success" and agents["completed"][0]["duration_seconds"] >= 0
    complete = repo.events("agent_complete")[-1]["payload"]
    assert (complete["agent_id"], complete["result"], complete["summary"]) == (
        "executor-001",
        "success",
        "JWT in place",
    )
    assert "- executor-001" not in repo.grid.joinpath("STATE.md").read_text()  # the body lists active agents only


def test_master_control_registers_others_and_a_second_registration_is_a_no_op(repo: Repo, tmp_path: object) -> None:
    wt = repo.path.parent / "wt-executor-002"
    wt.mkdir()
    repo.gridgit("agent", "register", "executor-002", "--task", "search", "--worktree", str(wt), agent="mc")
    assert repo.gridgit_json("state", "show", "--field", "agents.active")[0]["worktree"] == str(wt.resolve())
    before, events = repo.snapshot(), len(repo.events())
    proc = repo.gridgit("agent", "register", "executor-002", "--task", "search", agent="mc")
    assert "already registered" in proc.stdout
    assert repo.snapshot() == before and len(repo.events()) == events  # no byte changed, no event
    again = repo.gridgit_json("agent", "register", "executor-002", "--task", "search v2", agent="mc")
    assert again["action"] == "updated" and again["agent"]["task"] == "search v2"
    assert len(repo.events("agent_spawned")) == 1
    done_twice = [repo.gridgit("agent", "done", "executor-002", agent="mc") for _ in range(2)]
    assert "already done" in done_twice[1].stdout and len(repo.events("agent_complete")) == 1
    back = repo.gridgit_json("agent", "register", "executor-002", "--task", "more search", agent="mc")
    assert back["action"] == "registered"  # a finished agent back at work is active again
    agents = repo.gridgit_json("state", "show", "--field", "agents")
    assert [a["id"] for a in agents["active"]] == ["executor-002"] and agents["completed"] == []


def test_an_agent_in_a_linked_worktree_records_it(repo: Repo) -> None:
    wt = repo.path.parent / "wt-executor-003"
    repo.git("worktree", "add", "-q", "-b", "agent/executor-003", str(wt))
    repo.gridgit("agent", "register", "--task", "t", agent="executor-003", cwd=wt)
    assert repo.gridgit_json("state", "show", "--field", "agents.active")[0]["worktree"] == str(wt)
    repo.gridgit("agent", "register", "--task", "t", agent="executor-004")  # from the main worktree: not recorded
    assert repo.gridgit_json("state", "show", "--field", "agents.active")[1]["worktree"] is None


@pytest.mark.parametrize(
    ("args", "agent", "code", "message"),
    [
        (["agent", "register", "executor"], "mc", 1, "expected {type}-{id}"),
        (["agent", "register", "ghost-001"], "mc", 1, "unknown agent type 'ghost'"),
        (["agent", "register", "system-1"], "mc", 1, "gridgit itself"),
        (["agent", "register", "executor-00 1"], "mc", 1, "expected {type}-{id}"),
        (["agent", "register", "executor-009"], "executor-001", 4, "executor-001 may not register executor-009"),
        (["agent", "register", "--block", "a\nb"], "executor-001", 1, "block must be one line"),
        (["agent", "register", "--worktree", "/no/such/dir"], "executor-001", 1, "not a directory"),
        (["agent", "register"], None, 1, "no agent id"),
        (["agent", "done", "executor-404"], "mc", 7, "agent executor-404 is not registered"),
        (["agent", "done", "executor-001", "--result", "meh"], "mc", 2, "Invalid value for '--result'"),
    ],
)
def test_bad_input_changes_nothing(repo: Repo, args: list[str], agent: str | None, code: int, message: str) -> None:
    before = repo.snapshot()
    proc = repo.gridgit(*args, agent=agent, check=False)
    assert proc.returncode == code and message in proc.stderr
    assert repo.snapshot() == before


def test_sixteen_agents_registering_at_once_are_all_there(repo: Repo) -> None:
    done = repo.gridgit_at_once([["agent", "register", f"executor-{n:03d}", "--task", f"task {n}"] for n in range(16)])
    assert [p.returncode for p in done] == [0] * 16, [p.stderr for p in done]
    active = repo.gridgit_json("state", "show", "--field", "agents.active")
    assert sorted(a["id"] for a in active) == [f"executor-{n:03d}" for n in range(16)]
    assert len(repo.events("agent_spawned")) == 16
    assert repo.gridgit_json("state", "show", "--field", "budget.spawns_this_session") == 16


def test_heartbeats_stamp_state_and_a_phase_change_makes_nobody_stale(repo: Repo) -> None:
    now = {"GRIDGIT_NOW": T0}
    repo.gridgit("agent", "register", "--task", "t", agent="executor-001", env=now)
    repo.gridgit("agent", "register", "--task", "t", agent="recognizer-001", env=now)
    repo.gridgit(
        "heartbeat", "-p", "50", "-a", "editing", agent="executor-001", env={"GRIDGIT_NOW": "2026-01-24T14:08:00Z"}
    )
    assert repo.gridgit_json("state", "show", "--field", "agents.active")[0]["last_heartbeat"] == "2026-01-24T14:08:00Z"
    assert "heartbeat 50%: editing" in repo.grid.joinpath("STATE.md").read_text()  # a Recent Activity row
    repo.gridgit("phase", "complete", "01-foundation", agent="mc", env={"GRIDGIT_NOW": "2026-01-24T14:09:00Z"})
    later = {"GRIDGIT_NOW": "2026-01-24T14:12:00Z"}
    rows = {a["id"]: a for a in _status(repo, later)["agents"]}  # type: ignore[attr-defined]
    assert rows["executor-001"]["warning_level"] == "ok" and rows["executor-001"]["phase"] == "02-core"
    assert rows["recognizer-001"]["warning_level"] == "stale"  # registered 12 minutes ago, never beat
    assert rows["executor-001"]["last_heartbeat"] == "2026-01-24T14:08:00Z"


def _status(repo: Repo, env: dict[str, str]) -> dict[str, object]:
    import json

    return json.loads(repo.gridgit("status", "--json", env=env).stdout)["data"]  # type: ignore[no-any-return]
