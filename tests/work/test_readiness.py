"""A queue that avoids collisions (issue 35, item 3): blocks whose files overlap work in progress or another
agent's exclusive claim are not handed out, `ready --explain` says why each block waits, priority and labels
order and filter the queue, and any working agent files the work it discovers."""

from __future__ import annotations

import json
from datetime import timedelta

from gridgit.store import clock, frontmatter
from gridgit.work.blockfile import plan_problems
from tests.conftest import Repo

PHASE = "01-foundation"


def plan(repo: Repo, block_id: str, *args: str, agent: str = "mc") -> None:
    repo.gridgit("block", "plan", block_id, *args, agent=agent)


def meta(repo: Repo, name: str) -> dict:  # type: ignore[type-arg]
    path = repo.grid / "phases" / PHASE / name
    return frontmatter.parse(path.read_text(encoding="utf-8"), str(path))[0]


def ids(rows: list[dict]) -> list[str]:  # type: ignore[type-arg]
    return [r["block_id"] for r in rows]


def test_blocks_whose_files_overlap_are_never_held_at_once_even_by_racing_processes(repo: Repo) -> None:
    """Four agents race for four blocks that share one file: one takes a block, three hear nothing ready.

    Before: all four blocks were ready, all four were taken, four exclusive claims on src/shop/api.py."""
    plan(repo, "01-01", "--files", "src/shop/api.py")
    plan(repo, "01-02", "--files", "src/shop/**")
    plan(repo, "01-03", "--files", "src/shop/api.py,src/shop/db.py")
    plan(repo, "01-04", "--files", "src/*/api.py")
    assert ids(repo.gridgit_json("ready")) == ["01-01", "01-02", "01-03", "01-04"]  # nobody works on them yet
    agents = [f"executor-00{n}" for n in range(1, 5)]
    results = repo.gridgit_at_once([["take", "--json", "--agent", agent] for agent in agents])
    won = [json.loads(r.stdout)["data"]["block"]["block_id"] for r in results if r.returncode == 0]
    lost = [json.loads(r.stdout)["error"] for r in results if r.returncode != 0]
    assert len(won) == 1 and {r.returncode for r in results} == {0, 8}, [r.stderr for r in results]
    assert len(lost) == 3 and all("3 overlapping work in progress" in e["message"] for e in lost), lost
    exclusive = [c for c in repo.gridgit_json("claims") if c["exclusive"]]
    assert len({c["agent"] for c in exclusive}) == 1  # one agent holds src/shop/api.py, not four
    assert repo.gridgit_json("ready") == []
    holder = next(a for a, r in zip(agents, results, strict=True) if r.returncode == 0)
    other = next(b for b in ("01-01", "01-02") if b != won[0])
    named = repo.gridgit("take", other, agent="executor-009", check=False)
    assert named.returncode == 8 and f"its files overlap block {won[0]}, held by {holder}" in named.stderr
    handed = repo.gridgit("block", "assign", other, "executor-009", agent="mc", check=False)
    assert handed.returncode == 8 and f"its files overlap block {won[0]}" in handed.stderr
    repo.gridgit("block", "complete", won[0], "--summary", "done", agent=holder)
    assert len(repo.gridgit_json("ready")) == 3 - (won[0] == "01-04")  # ready again the moment it completes


def test_another_agents_exclusive_claim_keeps_a_block_waiting_and_a_shared_one_does_not(repo: Repo) -> None:
    plan(repo, "01-01", "--name", "Docs", "--files", "docs/guide.md")
    plan(repo, "01-02", "--name", "Code", "--files", "src/app.py")
    repo.gridgit("claim", "docs/**", "--exclusive", agent="executor-007")
    repo.gridgit("claim", "src/app.py", agent="executor-008")  # shared: only says who is there
    assert ids(repo.gridgit_json("ready")) == ["01-02"]
    assert ids(repo.gridgit_json("ready", agent="executor-007")) == ["01-01", "01-02"]  # its own claim
    (why,) = repo.gridgit_json("ready", "--explain", "01-01")
    assert (why["ready"], why["reason"], why["overlaps"]["kind"], why["overlaps"]["agent"]) == (
        False, "overlap", "claim", "executor-007",
    )  # fmt: skip
    assert why["text"].startswith("its files overlap executor-007's exclusive claim on docs/** (until ")
    assert repo.gridgit_json("take", agent="executor-001")["block"]["block_id"] == "01-02"
    repo.gridgit("release", "docs/**", agent="executor-007")
    assert repo.gridgit_json("take", agent="executor-002")["block"]["block_id"] == "01-01"


def test_ready_explain_says_why_each_block_is_or_is_not_ready(repo: Repo) -> None:
    plan(repo, "01-01", "--name", "Schema")
    plan(repo, "01-02", "--name", "Models", "--depends-on", "01-01", "--label", "backend")
    plan(repo, "01-03", "--name", "Held", "--files", "src/held.py", "--label", "backend,api", "--priority", "P1")
    plan(repo, "01-04", "--name", "Front", "--label", "frontend", "--priority", "0")
    plan(repo, "02-01", "--name", "Later phase")
    repo.gridgit("take", "01-03", agent="executor-001")
    repo.gridgit("state", "update", "--set", "mode=hands_on", agent="mc")
    plan(repo, "01-05", "--name", "Proposed", agent="planner-001")
    rows = {r["block_id"]: r for r in repo.gridgit_json("ready", "--explain")}
    assert [r["block_id"] for r in rows.values()][:2] == ["01-04", "01-01"]  # ready first, P0 before P2
    # wave 2 (after its dependency's): it waits for 01-01 and the rest of wave 1, not for a proposal
    assert rows["01-02"]["reason"] == "depends" and rows["01-02"]["waits_for"] == ["01-01", "01-03", "01-04"]
    held = rows["01-03"]
    assert (held["reason"], held["agent"]) == ("held", "executor-001") and held["since"]
    assert "held by executor-001 (taken) since " in held["text"]
    assert rows["01-05"]["reason"] == "proposed" and "gridgit approve block 01-05" in rows["01-05"]["text"]
    assert rows["02-01"]["text"] == "its phase 02-core is not in progress"
    labelled = {r["block_id"]: r for r in repo.gridgit_json("ready", "--explain", "--label", "backend")}
    assert (
        labelled["01-01"]["reason"] == "label" and labelled["01-01"]["text"] == "filtered out: it has no label backend"
    )
    text = repo.gridgit("ready", "--explain").stdout
    assert "  01-04  READY  ready\n" in text and "  01-02  waits  waits for 01-01, 01-03, 01-04\n" in text
    later = {"GRIDGIT_NOW": clock.format_iso(clock.now() + timedelta(minutes=30))}  # past heartbeat.stale_minutes
    (stale,) = json.loads(repo.gridgit("ready", "--explain", "01-03", "--json", env=later).stdout)["data"]
    assert (stale["ready"], stale["stale_owner"]) == (True, "executor-001")
    assert stale["text"].startswith("ready: offered again, executor-001 went quiet (")
    assert repo.gridgit_json("ready", "01-02")[0]["reason"] == "depends"  # a block named is explained
    for bad, code in (
        (["ready", "--explain", "1-3"], 1),
        (["ready", "--explain", "01-09"], 7),
    ):
        proc = repo.gridgit(*bad, check=False)
        assert proc.returncode == code and proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr, proc.stderr


def test_priority_and_labels_order_and_filter_the_queue_and_bad_values_change_nothing(repo: Repo) -> None:
    plan(repo, "01-01", "--name", "Low", "--priority", "P3", "--label", "backend")
    plan(repo, "01-02", "--name", "Urgent", "--priority", "p0", "--label", "frontend", "--label", "ui")
    plan(repo, "01-03", "--name", "Plain")
    assert ids(repo.gridgit_json("ready")) == ["01-02", "01-03", "01-01"]
    assert (meta(repo, "02-PLAN.md")["priority"], meta(repo, "02-PLAN.md")["labels"]) == (0, ["frontend", "ui"])
    assert "labels" not in meta(repo, "03-PLAN.md")  # written only when set: older clones still read the plan
    assert ids(repo.gridgit_json("ready", "--label", "backend")) == ["01-01"]
    assert ids(repo.gridgit_json("ready", "--label", "frontend", "--label", "ui")) == ["01-02"]  # all of them
    listed = repo.gridgit("block", "list").stdout
    assert "P0  -                Urgent  [frontend, ui]" in listed
    assert "priority P0, labels: frontend, ui" in repo.gridgit("block", "show", "01-02").stdout
    taken = repo.gridgit_json("take", "--label", "backend", agent="executor-001")
    assert taken["block"]["block_id"] == "01-01"
    none = repo.gridgit("take", "--label", "docs", agent="executor-002", check=False)
    assert none.returncode == 8 and "2 without the labels asked for" in none.stderr
    named = repo.gridgit_json(
        "take", "01-03", "--label", "docs", agent="executor-002"
    )  # a block named: its labels aside
    assert named["block"]["block_id"] == "01-03"
    before = repo.snapshot()
    for args, code in (
        (["--priority", "P5"], 2), (["--priority", "high"], 2), (["--label", "two words"], 1), (["--label", "a" * 51], 1),
        (["--discovered-from", "1-2"], 1),
    ):  # fmt: skip
        proc = repo.gridgit("block", "plan", "01-03", *args, agent="mc", check=False)
        assert proc.returncode == code and proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr, proc.stderr
    bad = repo.gridgit("ready", "--label", "no/ ok", check=False)
    assert bad.returncode == 1 and "invalid label" in bad.stderr
    assert repo.snapshot() == before
    path = repo.grid / "phases" / PHASE / "03-PLAN.md"
    path.write_text(path.read_text().replace("priority: 2", "priority: 2\nlabels: [two words]\ndiscovered_from: x"))
    problems = json.loads(repo.gridgit("validate", "--json", check=False).stdout)["data"]["problems"]
    messages = " | ".join(p["message"] for p in problems)
    assert (
        "field 'labels' must be a list of labels" in messages
        and "field 'discovered_from' must be a block id" in messages
    )
    path.write_bytes(before["phases/01-foundation/03-PLAN.md"])
    repo.gridgit("block", "plan", "01-01", "--label", "", agent="mc")  # --label "" clears them
    assert "labels" not in meta(repo, "01-PLAN.md")


def test_any_working_agent_files_a_block_it_discovered_proposed_in_hands_on_mode(repo: Repo) -> None:
    plan(repo, "01-01", "--name", "Checkout")
    repo.gridgit("take", agent="executor-001")
    refused = repo.gridgit("block", "plan", "01-02", agent="executor-001", check=False)
    assert refused.returncode == 4 and "--discovered-from BLOCK" in refused.stderr
    out = repo.gridgit(
        "block", "plan", "01-02", "--name", "Fix the tax rounding", "--discovered-from", "01-01", "--label", "bug",
        agent="executor-001",
    ).stdout  # fmt: skip
    assert out.strip() == "block 01-02 planned in 01-foundation (wave 1, P2, discovered from 01-01)"
    found = meta(repo, "02-PLAN.md")
    assert (found["status"], found["planned_by"], found["discovered_from"]) == ("planned", "executor-001", "01-01")
    assert "discovered from 01-01" in repo.gridgit("block", "show", "01-02").stdout
    assert repo.events("block_planned")[-1]["payload"]["discovered_from"] == "01-01"
    assert ids(repo.gridgit_json("ready")) == ["01-02"]  # in the queue at once outside hands_on
    for args, agent, code, said in (
        (["01-02", "--discovered-from", "01-01", "--name", "x"], "executor-001", 4, "only planners and Master Control edit"),
        (["01-03", "--discovered-from", "01-01"], "scout-001", 4, "scouts only read"),
        (["01-03", "--discovered-from", "01-09"], "executor-001", 7, "unknown block 01-09"),
        (["01-03", "--discovered-from", "01-03"], "executor-001", 1, "cannot be discovered from itself"),
    ):  # fmt: skip
        proc = repo.gridgit("block", "plan", *args, agent=agent, check=False)
        assert (proc.returncode, said in proc.stderr) == (code, True), proc.stderr
    repo.gridgit("state", "update", "--set", "mode=hands_on", agent="mc")
    plan(repo, "01-03", "--discovered-from", "01-01", "--name", "Refund path", agent="executor-001")
    assert meta(repo, "03-PLAN.md")["status"] == "proposed"
    (why,) = repo.gridgit_json("ready", "--explain", "01-03")
    assert why["reason"] == "proposed"
    repo.gridgit("approve", "block", "01-03", agent="mc")
    assert "01-03" in ids(repo.gridgit_json("ready"))


def test_a_plan_discovered_from_itself_or_with_bad_labels_is_a_finding() -> None:
    meta = {"block_id": "01-02", "phase_id": PHASE, "status": "planned", "discovered_from": "01-02", "labels": ["ok"]}
    assert plan_problems(meta, PHASE, "02-PLAN.md") == [("discovered_from", "block 01-02 is discovered from itself")]
    bad = plan_problems({**meta, "discovered_from": None, "labels": ["-dash"]}, PHASE, "02-PLAN.md")
    assert [field for field, _ in bad] == ["labels"]
