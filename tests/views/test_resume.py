"""A Master Control restarted after any step of a mission resumes at the right phase and block:
STATE's `resume` block and `gridgit resume` follow the phases and blocks, and say what to run next."""

from __future__ import annotations

import shlex
from typing import Any

import pytest

from tests.conftest import Repo

PLAN = "## Goal\nShip it\n\n## Tasks\n- [x] {a}\n- [ ] {b}\n- [ ] {c}\n"


def _resume(repo: Repo, now: str | None = None) -> dict[str, Any]:
    """What a Master Control started afresh reads (a new process, nothing remembered)."""
    env = {"GRIDGIT_NOW": now} if now else None
    proc = repo.gridgit("resume", "--json", agent="mc", env=env)
    import json

    data: dict[str, Any] = json.loads(proc.stdout)["data"]
    return data


def _run(repo: Repo, step: str) -> None:
    """Run a step `gridgit resume` names, exactly as written."""
    command = step.split("  (")[0]
    assert command.startswith("gridgit "), step
    repo.gridgit(*shlex.split(command)[1:])


@pytest.fixture
def mission(bare_repo: Repo) -> Repo:
    bare_repo.gridgit("init", "--mission", "Shop", "--phase", "01-a:Alpha", "--phase", "02-b:Beta", "--phase", "03-c")
    for block, phase, after in (("01-01", "01-a", ""), ("01-02", "01-a", "01-01"), ("02-01", "02-b", ""),
                                ("02-02", "02-b", "02-01")):  # fmt: skip
        content = PLAN.format(a=f"{block} one", b=f"{block} two", c=f"{block} three")
        bare_repo.gridgit("block", "plan", block, "--name", f"Block {block}", "--content", content, "--phase", phase,
                          "--depends-on", after, agent="mc")  # fmt: skip
    return bare_repo


def test_master_control_resumes_at_the_right_phase_and_block_after_every_step(mission: Repo) -> None:
    start = _resume(mission)
    assert start["can_resume"] is True and start["phase"]["id"] == "01-a" and start["block"]["block_id"] == "01-01"
    assert (start["block"]["thread"], start["block"]["thread_total"]) == (2, 3)  # its first task is checked
    assert start["ready"] == ["01-01"] and "ready to take: 01-01" in start["next"][0]
    st = mission.gridgit_json("state", "show")
    assert st["resume"]["resume_position"] == {"phase": 1, "phase_id": "01-a", "block": 1, "block_id": "01-01",
                                               "thread": 2}  # fmt: skip
    assert (st["progress"]["threads_total"], st["progress"]["threads_complete"]) == (12, 4)

    mission.gridgit("take", agent="executor-001")
    held = _resume(mission)
    assert held["held"] == [{"block_id": "01-01", "name": "Block 01-01", "status": "taken", "owner": "executor-001",
                             "quiet": False}]  # fmt: skip
    assert held["agents"][0]["id"] == "executor-001" and held["last_agent"] == "executor-001"
    mission.gridgit("block", "complete", "01-01", "--summary", "done", agent="executor-001")
    assert _resume(mission)["block"]["block_id"] == "01-02"  # the frontier moved on
    mission.gridgit("take", agent="executor-001")
    mission.gridgit("block", "complete", "01-02", "--summary", "done", agent="executor-001")

    end_of_a = _resume(mission)
    assert end_of_a["next"] == ["gridgit phase complete 01-a --agent mc  (every block of it is complete)"]
    _run(mission, end_of_a["next"][0])
    b = _resume(mission)
    # A restart right after the phase changed: phase 02-b at its first block, not "block 1" of nothing.
    assert (b["phase"]["id"], b["phase"]["number"], b["block"]["block_id"]) == ("02-b", 2, "02-01")
    state = mission.gridgit_json("state", "show", "--field", "resume")
    assert state["can_resume"] is True and state["resume_position"]["block_id"] == "02-01"

    mission.gridgit("take", agent="executor-002", env={"GRIDGIT_NOW": "2030-01-01T10:00:00Z"})
    quiet = _resume(mission, now="2030-01-01T10:30:00Z")  # its holder silent for 30 minutes
    assert quiet["held"][0]["quiet"] is True and "02-01 again, its holder gone quiet" in quiet["next"][0]

    mission.gridgit("phase", "complete", "02-b", "--force", agent="mc")
    c = _resume(mission)
    assert (c["phase"]["id"], c["block"], c["blocks"]) == ("03-c", None, {"complete": 0, "total": 0})
    assert c["next"] == ["gridgit block plan --template  (no block of 03-c is planned yet)"]
    _run(mission, c["next"][0])

    mission.gridgit("phase", "complete", "03-c", agent="mc")
    done = _resume(mission)
    assert done["can_resume"] is False and done["next"] == ["the mission is complete: nothing to resume"]
    assert mission.gridgit_json("state", "show", "--field", "resume.can_resume") is False


def test_the_checkpoint_open_work_and_the_text_form(mission: Repo) -> None:
    mission.gridgit("write", "-c", "blocker", "-t", "stripe", "--content", "Blocker: no key", agent="executor-001")
    (mission.path / "a.py").write_text("a = 1\n", encoding="utf-8")
    for agent in ("executor-001", "executor-002"):
        mission.gridgit("touch", "a.py", agent=agent)
    data = _resume(mission)
    assert "blocker" in [i["kind"] for i in data["open"]]
    text = mission.gridgit("resume", agent="mc").stdout
    assert "Phase 1/3: 01-a Alpha (in_progress)" in text and "Block 01-01: Block 01-01" in text
    assert "blocker" in text and "Checkpoint: .grid/CHECKPOINT.md, 1 open conflict(s)" in text
    assert data["checkpoint"]["conflicts"][0]["path"] == "a.py"
    assert data["next"][0].startswith("gridgit conflicts list")
    _run(mission, data["next"][0])


def test_master_controls_context_pack_starts_with_where_to_pick_up(mission: Repo) -> None:
    pack = mission.gridgit("context", agent="mc").stdout
    assert "Resume: yes; blocks held: none; last agent mc" in pack
    assert "Next: ready to take: 01-01 (an executor's `gridgit take`)" in pack
    executor = mission.gridgit("context", agent="executor-001").stdout
    assert "Resume:" not in executor


def test_the_resume_fields_are_derived_not_written(mission: Repo) -> None:
    mission.gridgit("state", "update", "--set", "resume.can_resume=false", agent="mc")
    assert mission.gridgit_json("state", "show", "--field", "resume.can_resume") is True  # made again from the files
