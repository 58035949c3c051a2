"""STATE's mode through the real CLI: what waits for Master Control (proposed blocks, phase completions),
`gridgit approve`, priority, Master Control's hand on the queue (assign, release), each holder told."""

from __future__ import annotations

import json
import os
import subprocess

from gridgit.model import state as state_mod
from gridgit.store import frontmatter
from gridgit.store.layout import Layout
from tests.conftest import Repo

PHASE = "01-foundation"


def meta(repo: Repo, name: str) -> dict:  # type: ignore[type-arg]
    path = repo.grid / "phases" / PHASE / name
    return frontmatter.parse(path.read_text(encoding="utf-8"), str(path))[0]


def mode(repo: Repo, value: str) -> None:
    repo.gridgit("state", "update", "--set", f"mode={value}", agent="mc")


def inbox(repo: Repo, agent: str) -> list[str]:
    return [item["summary"] for item in repo.gridgit_json("inbox", agent=agent)]


def error(repo: Repo, *args: str, agent: str) -> tuple[int, str]:
    proc = repo.gridgit(*args, agent=agent, check=False)
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr, proc.stderr
    return proc.returncode, proc.stderr


def test_hands_on_a_planners_block_is_proposed_until_master_control_approves_it(repo: Repo) -> None:
    mode(repo, "hands_on")
    repo.gridgit("inbox", agent="planner-001")  # its inbox opens now
    out = repo.gridgit("block", "plan", "01-01", "--name", "Found it", agent="planner-001").stdout
    assert "proposed (waits for `gridgit approve block`)" in out
    repo.gridgit("block", "plan", "01-02", "--name", "Mine", agent="mc")  # Master Control's own: planned
    assert (meta(repo, "01-PLAN.md")["status"], meta(repo, "02-PLAN.md")["status"]) == ("proposed", "planned")
    assert [o["block_id"] for o in repo.gridgit_json("ready")] == ["01-02"]
    code, err = error(repo, "take", "01-01", agent="executor-001")
    assert code == 8 and "proposed: waits for approval (`gridgit approve block 01-01`)" in err
    state = state_mod.read(Layout.find(repo.path))
    assert state["progress"]["blocks_total"] == 1  # a proposal is not the phase's work yet

    listed = repo.gridgit_json("approve", "list")
    assert listed["mode"] == "hands_on" and [b["block_id"] for b in listed["blocks"]] == ["01-01"]
    code, err = error(repo, "approve", "block", "01-01", agent="executor-001")
    assert code == 4 and "only Master Control approves blocks" in err
    approved = repo.gridgit_json("approve", "block", "01-01", agent="mc-ana")
    assert (approved["status"], approved["approved_by"], approved["planned_by"]) == ("planned", "mc-ana", "planner-001")
    assert [o["block_id"] for o in repo.gridgit_json("ready")] == ["01-01", "01-02"]
    assert repo.events("block_approved")[-1]["payload"]["agent"] == "mc-ana"
    assert inbox(repo, "planner-001") == ["mc-ana approved your proposed block 01-01: it is in the queue"]
    before = repo.snapshot()
    code, err = error(repo, "approve", "block", "01-01", agent="mc-ana")  # twice: told, nothing changes
    assert code == 1 and "block 01-01 is not proposed: it is planned, approved by mc-ana" in err
    assert repo.snapshot() == before

    # Outside hands_on nobody is asked to approve: a proposal left over is offered like a planned block.
    repo.gridgit("block", "plan", "01-03", agent="planner-001")
    mode(repo, "autopilot")
    assert "01-03" in [o["block_id"] for o in repo.gridgit_json("ready")]
    repo.gridgit("block", "plan", "01-04", agent="planner-001")
    assert meta(repo, "04-PLAN.md")["status"] == "planned"


def test_priority_orders_the_ready_blocks_and_is_checked(repo: Repo) -> None:
    for block, priority in (("01-01", "3"), ("01-02", "0"), ("01-03", "2")):
        repo.gridgit("block", "plan", block, "--priority", priority, agent="mc")
    repo.gridgit("block", "plan", "01-04", agent="mc")  # the default, 2
    assert [(o["block_id"], o["priority"]) for o in repo.gridgit_json("ready")] == [
        ("01-02", 0), ("01-03", 2), ("01-04", 2), ("01-01", 3),
    ]  # fmt: skip
    assert repo.gridgit_json("take", agent="executor-001")["block"]["block_id"] == "01-02"
    repo.gridgit("block", "plan", "01-01", "--priority", "1", agent="mc")  # an edit keeps the rest
    assert (meta(repo, "01-PLAN.md")["priority"], meta(repo, "01-PLAN.md")["status"]) == (1, "planned")
    before = repo.snapshot()
    assert repo.gridgit("block", "plan", "01-01", "--priority", "5", agent="mc", check=False).returncode == 2
    path = repo.grid / "phases" / PHASE / "03-PLAN.md"
    path.write_text(path.read_text().replace("priority: 2", "priority: -1"))
    problems = json.loads(repo.gridgit("validate", "--json", check=False).stdout)["data"]["problems"]
    assert any("field 'priority' must be a whole number from 0 (first) to 4 (last)" in p["message"] for p in problems)
    path.write_bytes(before["phases/01-foundation/03-PLAN.md"])
    assert repo.snapshot() == before


def test_master_control_assigns_reassigns_and_releases_a_block_and_each_holder_is_told(repo: Repo) -> None:
    repo.gridgit("block", "plan", "01-01", "--files", "src/a.py", agent="mc")
    repo.gridgit("block", "plan", "01-02", "--depends-on", "01-01", agent="mc")
    for agent in ("executor-001", "executor-002"):
        repo.gridgit("inbox", agent=agent)
    given = repo.gridgit_json("block", "assign", "01-01", "executor-001", "--from", "", agent="mc-ana")
    assert (given["block"]["owner"], given["reoffered_from"], given["claimed"]) == ("executor-001", None, ["src/a.py"])
    code, err = error(repo, "block", "assign", "01-02", "executor-002", agent="mc-ana")
    assert code == 8 and "block 01-02 is not ready: waits for 01-01" in err
    code, err = error(repo, "block", "assign", "01-01", "executor-002", "--from", "", agent="mc-ana")
    assert code == 1 and "block 01-01 changed meanwhile: executor-001 holds it now, not nobody; nothing changed" in err
    code, err = error(repo, "block", "assign", "01-01", "executor-002", agent="executor-003")
    assert code == 4 and "only Master Control assigns blocks" in err

    moved = repo.gridgit("block", "assign", "01-01", "executor-002", "--from", "executor-001", agent="mc-ana")
    assert "block 01-01 assigned to executor-002 (from executor-001, who is told); claimed src/a.py" in moved.stdout
    claims = repo.gridgit_json("claims")
    assert [(c["agent"], c["pattern"]) for c in claims] == [("executor-002", "src/a.py")]
    registered = {a["id"]: a for a in state_mod.read(Layout.find(repo.path))["agents"]["active"]}
    assert (registered["executor-002"]["block"], registered["executor-001"]["block"]) == ("01-01", None)
    assert inbox(repo, "executor-001")[-1] == (
        "mc-ana gave your block 01-01 to executor-002: it is not yours any more; stop working on it"
    )
    assert inbox(repo, "executor-002")[-1].startswith("mc-ana assigned block 01-01 to you: it is your block now")

    repo.gridgit("block", "release", "01-01", agent="mc-ana")
    assert meta(repo, "01-PLAN.md")["owner"] is None and repo.gridgit_json("claims") == []
    assert inbox(repo, "executor-002") == [
        "mc-ana released your block 01-01: it is back in the queue; stop working on it"
    ]


def test_master_control_releases_any_claim_and_the_holder_is_told(repo: Repo) -> None:
    repo.gridgit("claim", "src/api/**", "--exclusive", agent="executor-001")
    repo.gridgit("inbox", agent="executor-001")
    code, err = error(repo, "release", "--holder", "executor-001", agent="executor-002")
    assert code == 4 and "only Master Control releases another agent's claims" in err
    assert len(repo.gridgit_json("claims")) == 1
    released = repo.gridgit_json("release", "src/api/**", "--holder", "executor-001", agent="mc-ana")
    assert [c["pattern"] for c in released] == ["src/api/**"] and repo.gridgit_json("claims") == []
    payload = repo.events("claim_released")[-1]["payload"]
    assert (payload["agent"], payload["holder"], payload["forced"]) == ("mc-ana", "executor-001", True)
    assert inbox(repo, "executor-001") == ["mc-ana released your claim on src/api/**: it no longer holds"]
    assert repo.gridgit_json("release", "--holder", "executor-001", agent="mc-ana") == []  # gone: nothing to do


def test_guided_a_phase_completes_only_when_master_control_approves_it(repo: Repo) -> None:
    repo.gridgit("hooks", "install")
    mode(repo, "guided")
    repo.gridgit("write", "-c", "discovery", "-t", "db", "--content", "Found: a pool", agent="executor-001")
    asked = repo.gridgit("phase", "complete", PHASE, agent="mc")
    assert "not complete yet: it waits for Master Control's approval (STATE mode), asked by mc" in asked.stdout
    assert f"`gridgit approve phase {PHASE}` completes it" in asked.stdout
    st = state_mod.read(Layout.find(repo.path))
    assert st["position"]["phase_id"] == PHASE and st["phases"]["definitions"][0]["status"] == "in_progress"
    assert st["phases"]["definitions"][0]["approval"]["requested_by"] == "mc"
    assert [e["payload"]["phase_id"] for e in repo.events("phase_approval_requested")] == [PHASE]
    again = repo.gridgit_json("phase", "complete", PHASE, agent="mc")  # asked again: one request, one event
    assert again["awaiting_approval"]["requested_by"] == "mc" and len(repo.events("phase_approval_requested")) == 1

    # An agent's Grid-Phase-Complete commit asks too, and says so; the phase stays open.
    repo.write("src/done.py", "x = 1\n")
    repo.git("add", "src/done.py")
    commit = subprocess.run(
        ["git", "commit", "-q", "-m", f"done\n\nGrid-Phase-Complete: {PHASE}"],
        cwd=repo.path, capture_output=True, text=True, env={**os.environ, "GRIDGIT_HOOK_SYNC": "1"}, check=True,
    )  # fmt: skip
    assert f"phase {PHASE} waits for Master Control's approval (STATE mode): `gridgit approve phase {PHASE}`" in (
        commit.stderr
    )
    assert state_mod.read(Layout.find(repo.path))["position"]["phase_id"] == PHASE
    assert [p["phase_id"] for p in repo.gridgit_json("approve", "list")["phases"]] == [PHASE]

    code, err = error(repo, "approve", "phase", PHASE, agent="executor-001")
    assert code == 4 and "only Master Control (mc) may complete a phase" in err
    done = repo.gridgit_json("approve", "phase", PHASE, agent="mc-ana")
    assert done["next_phase_id"] == "02-core" and done["awaiting_approval"] is None
    assert state_mod.read(Layout.find(repo.path))["position"]["phase_id"] == "02-core"
    assert repo.events("phase_completed")[-1]["payload"] == {
        "phase_id": PHASE, "next_phase_id": "02-core", "agent": "mc-ana", "approved": True,
    }  # fmt: skip
    assert repo.gridgit_json("approve", "list")["phases"] == []


def test_master_control_promotes_one_entry_and_acknowledges_what_was_sent_to_mc(repo: Repo) -> None:
    repo.gridgit("write", "-c", "discovery", "-t", "db", "--content", "Found: the pool is per thread",
                 agent="executor-001")  # fmt: skip
    code, err = error(repo, "promote", "--entry", "1", agent="executor-001")
    assert code == 4 and "only memory agents and Master Control promote an entry" in err
    promoted = repo.gridgit_json("promote", "--entry", "1", agent="mc-ana")
    (learning,) = promoted["promoted"]
    assert learning["promoted_by"] == "mc-ana" and learning["category"] == "discoveries"
    assert repo.gridgit_json("promote", "--entry", "1", agent="mc-ana")["promoted"] == []  # once
    code, err = error(repo, "promote", "--entry", "99", agent="mc-ana")
    assert code == 7 and "no entry '99'" in err

    sent = repo.gridgit_json("send", "--to", "mc", "--content", "Need a Stripe key", agent="executor-001")
    acked = repo.gridgit_json("ack", sent["id"], agent="mc-ana")
    assert acked["acked_by"] == "mc-ana" and acked["already"] is False
    code, err = error(repo, "ack", sent["id"], agent="executor-002")
    assert code == 4 and "only an addressee acknowledges it" in err


def test_a_proposal_holds_up_no_later_wave(repo: Repo) -> None:
    mode(repo, "hands_on")
    repo.gridgit("block", "plan", "01-01", agent="mc")
    repo.gridgit("block", "plan", "01-02", "--wave", "2", agent="mc")
    repo.gridgit("block", "plan", "01-03", agent="planner-001")  # wave 1, proposed
    repo.gridgit("take", "01-01", agent="executor-001")
    repo.gridgit("block", "complete", "01-01", "--summary", "done", agent="executor-001")
    assert [o["block_id"] for o in repo.gridgit_json("ready")] == ["01-02"]  # not waiting for the proposal


def test_the_blackboards_history_tells_a_proposal_its_approval_and_an_edit(repo: Repo) -> None:
    mode(repo, "hands_on")
    repo.gridgit("block", "plan", "01-01", "--name", "Retries", agent="planner-001")
    repo.gridgit("snapshot", agent="mc")
    repo.gridgit("approve", "block", "01-01", agent="mc-ana")
    repo.gridgit("snapshot", agent="mc")
    repo.gridgit("block", "plan", "01-01", "--priority", "0", agent="mc-ana")
    repo.gridgit("snapshot", agent="mc")
    changes = [
        (c["kind"], c["agent"], c["what"])
        for item in repo.gridgit_json("log")
        for c in item["changes"]
        if c["what"].startswith("block 01-01")
    ]
    assert changes == [
        ("replanned", "planner-001", "block 01-01: Retries"),
        ("approved", "mc-ana", "block 01-01: Retries"),
        ("proposed", "planner-001", "block 01-01: Retries"),
    ]
