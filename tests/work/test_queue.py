"""The work queue: what is ready, an atomic take raced by real processes, a stale holder's block offered again."""

from __future__ import annotations

import json
from datetime import timedelta

from gridgit.store import clock
from tests.conftest import Repo

PHASE = "01-foundation"


def plan(repo: Repo, block_id: str, *args: str) -> None:
    repo.gridgit("block", "plan", block_id, *args, agent="mc")


def test_ready_follows_dependencies_waves_and_phases(repo: Repo) -> None:
    plan(repo, "01-01", "--name", "Schema")
    plan(repo, "01-02", "--name", "Models", "--depends-on", "01-01")  # wave 2
    plan(repo, "01-03", "--name", "Docs")
    plan(repo, "01-04", "--name", "Later", "--wave", "3")
    plan(repo, "02-01", "--name", "Next phase")  # 02-core has not started
    assert [b["block_id"] for b in repo.gridgit_json("ready")] == ["01-01", "01-03"]
    assert repo.gridgit_json("take", agent="executor-001")["block"]["block_id"] == "01-01"  # the first by wave, number
    assert [b["block_id"] for b in repo.gridgit_json("ready")] == ["01-03"]
    again = repo.gridgit_json("take", agent="executor-001")
    assert again["already"] is True and again["block"]["block_id"] == "01-01"  # one block at a time
    other = repo.gridgit("take", "01-03", agent="executor-001", check=False)
    assert other.returncode == 1 and "holds block 01-01" in other.stderr
    waiting = repo.gridgit("take", "01-02", "--json", agent="executor-002", check=False)
    error = json.loads(waiting.stdout)["error"]
    assert (waiting.returncode, error["code"]) == (8, "nothing_ready") and "waits for 01-01, 01-03" in error["message"]
    pending = repo.gridgit("take", "02-01", agent="executor-002", check=False)
    assert pending.returncode == 8 and "its phase 02-core is not in progress" in pending.stderr
    repo.gridgit("block", "complete", "01-01", "--summary", "schema done", agent="executor-001")
    repo.gridgit("take", agent="executor-003")  # 01-03
    repo.gridgit("block", "complete", "01-03", "--summary", "docs done", agent="executor-003")
    assert [b["block_id"] for b in repo.gridgit_json("ready")] == ["01-02"]
    pack = repo.gridgit_json("context", agent="executor-002")["text"]
    assert "Ready to take (`gridgit take`): 01-02 Models" in pack
    repo.gridgit("take", agent="executor-002")
    mine = repo.gridgit_json("context", agent="executor-002")["text"]
    assert "### Your block 01-02: Models (taken, wave 2)" in mine and "gridgit block complete 01-02" in mine


def test_sixteen_agents_race_for_five_blocks(repo: Repo) -> None:
    """Real processes at once: each block is taken exactly once, the other eleven hear `nothing_ready` (exit 8)."""
    for n in range(1, 6):
        plan(repo, f"01-{n:02d}", "--files", f"src/part{n}.py")
    agents = [f"executor-{n:03d}" for n in range(1, 17)]
    results = repo.gridgit_at_once([["take", "--json", "--agent", agent] for agent in agents])
    won = {agent: json.loads(r.stdout)["data"]["block"]["block_id"] for agent, r in zip(agents, results, strict=True)
           if r.returncode == 0}  # fmt: skip
    lost = [r for r in results if r.returncode != 0]
    assert sorted(won.values()) == [f"01-{n:02d}" for n in range(1, 6)], [r.stderr for r in results]
    assert len(lost) == 11 and {r.returncode for r in lost} == {8}
    assert {json.loads(r.stdout)["error"]["code"] for r in lost} == {"nothing_ready"}
    owners = {b["block_id"]: b["owner"] for b in repo.gridgit_json("block", "list")}
    assert owners == {block: agent for agent, block in won.items()}
    assert sorted(e["payload"]["agent"] for e in repo.events("block_taken")) == sorted(won)
    active = {a["id"]: a["block"] for a in repo.gridgit_json("agent", "list")["active"]}
    assert {agent: active[agent] for agent in won} == won  # each registered with its block
    claims = {c["agent"]: (c["pattern"], c["exclusive"]) for c in repo.gridgit_json("claims")}
    assert claims == {agent: (f"src/part{int(block[3:])}.py", True) for agent, block in won.items()}


def test_a_stale_holders_block_is_offered_again(repo: Repo) -> None:
    plan(repo, "01-01", "--name", "Slow one", "--files", "src/slow.py")
    repo.gridgit("take", agent="executor-001")
    assert repo.gridgit_json("ready") == []
    later = {"GRIDGIT_NOW": clock.format_iso(clock.now() + timedelta(minutes=30))}  # past heartbeat.stale_minutes
    offered = repo.gridgit("ready", "--json", env=later)
    assert [(b["block_id"], b["stale_owner"]) for b in json.loads(offered.stdout)["data"]] == [
        ("01-01", "executor-001")
    ]
    taken = json.loads(repo.gridgit("take", "--json", agent="executor-002", env=later).stdout)["data"]
    assert (taken["block"]["owner"], taken["reoffered_from"]) == ("executor-002", "executor-001")
    (event,) = repo.events("block_reoffered")
    assert event["payload"] == {"block_id": "01-01", "phase_id": PHASE, "name": "Slow one", "agent": "executor-002",
                                "stale_agent": "executor-001"}  # fmt: skip
    assert {c["agent"] for c in repo.gridgit_json("claims")} == {"executor-002"}
    told = repo.gridgit_json("inbox", agent="executor-001")
    assert [(i["type"], i["summary"]) for i in told if i["type"] == "block"] == [
        ("block", "your block 01-01 was offered again after you went quiet, and executor-002 took it")
    ]
