"""Block plans and summaries through the real CLI: files as the spec names them, STATE in step, bad input refused."""

from __future__ import annotations

import json

from gridgit.model import state as state_mod
from gridgit.store import frontmatter
from gridgit.store.layout import Layout
from gridgit.work.blockfile import Block
from tests.conftest import Repo

PHASE = "01-foundation"


def plan(repo: Repo, block_id: str, *args: str) -> None:
    repo.gridgit("block", "plan", block_id, *args, agent="mc")


def state(repo: Repo) -> dict:  # type: ignore[type-arg]
    return state_mod.read(Layout.find(repo.path))


def block_file(repo: Repo, name: str) -> tuple[dict, str]:  # type: ignore[type-arg]
    path = repo.grid / "phases" / PHASE / name
    return frontmatter.parse(path.read_text(encoding="utf-8"), str(path))


def test_a_block_from_plan_to_summary(repo: Repo) -> None:
    """Plan, take, start, complete: the PLAN and SUMMARY files, STATE's counts, position and percent, the events."""
    plan(
        repo, "01-01", "--name", "Settings loader", "--files", "src/settings.py", "--content", "## Goal\nLoad settings"
    )
    plan(repo, "01-02", "--name", "API", "--depends-on", "01-01")
    meta, body = block_file(repo, "01-PLAN.md")
    assert (meta["block_id"], meta["phase_id"], meta["status"], meta["owner"], meta["wave"]) == (
        "01-01", PHASE, "planned", None, 1,
    )  # fmt: skip
    assert meta["files"] == ["src/settings.py"] and meta["planned_by"] == "mc"
    assert body.startswith("\n# Block 01-01: Settings loader\n") and "Load settings" in body
    assert block_file(repo, "02-PLAN.md")[0]["wave"] == 2  # after its dependency's wave
    st = state(repo)
    assert [(d["blocks"], d["blocks_complete"]) for d in st["phases"]["definitions"]] == [(2, 0), (0, 0)]
    assert (st["position"]["block_id"], st["position"]["block_name"]) == ("01-01", "Settings loader")

    taken = repo.gridgit_json("take", agent="executor-001")
    assert taken["block"]["block_id"] == "01-01" and taken["claimed"] == ["src/settings.py"]
    repo.gridgit("block", "start", "01-01", agent="executor-001")
    assert block_file(repo, "01-PLAN.md")[0]["status"] == "in_progress"
    done = repo.gridgit(
        "block", "complete", "01-01", "--summary", "-", "--json", agent="executor-001", input="Loaded.\n"
    )
    assert json.loads(done.stdout)["data"]["status"] == "complete"
    summary, text = block_file(repo, "01-SUMMARY.md")
    assert (summary["block_id"], summary["agent"], summary["phase_id"]) == ("01-01", "executor-001", PHASE)
    assert "Loaded." in text
    st = state(repo)
    assert (st["phases"]["definitions"][0]["blocks_complete"], st["progress"]["blocks_complete"]) == (1, 1)
    assert st["progress"]["percent"] == 25.0  # half of phase 1 of 2
    assert st["position"]["block_id"] == "01-02"
    assert next(a for a in st["agents"]["active"] if a["id"] == "executor-001")["block"] is None
    assert repo.gridgit_json("claims") == []  # its files went with it
    types = [e["type"] for e in repo.events() if e["type"].startswith("block_")]
    assert types == ["block_planned", "block_planned", "block_taken", "block_started", "block_completed"]
    listed = repo.gridgit_json("block", "list")
    assert [(b["block_id"], b["status"]) for b in listed] == [("01-01", "complete"), ("01-02", "planned")]
    assert repo.gridgit("block", "show", "01-01").stdout.startswith("block 01-01 (01-foundation, wave 1): complete")
    assert repo.gridgit("validate").returncode == 0
    repo.gridgit("snapshot")  # the blocks go onto the grid ref with the next snapshot, like every write
    log = repo.gridgit("log").stdout
    assert "completed executor-001" in log and "planned  mc" in log


BAD = [
        (["block", "plan", "1-2"], 1, "invalid block id '1-2'"),
        (["block", "plan", "01-00"], 1, "invalid block id"),
        (["block", "plan", "../01"], 1, "invalid block id"),
        (["block", "plan", "07-01"], 7, "no phase numbered 07"),
        (["block", "plan", "01-03", "--phase", "02-core"], 1, "belongs to phase 01"),
        (["block", "plan", "01-03", "--depends-on", "01-09"], 7, "dependency 01-09 of block 01-03 is not planned"),
        (["block", "plan", "01-03", "--depends-on", "01-03"], 1, "cannot depend on itself"),
        (["block", "plan", "01-03", "--depends-on", "01-01", "--wave", "1"], 1, "comes after its dependencies"),
        (["block", "plan", "01-03", "--files", "../outside"], 1, "outside the repository"),
        (["block", "start", "01-09"], 7, "unknown block 01-09"),
        (["block", "complete", "01-01", "--summary", "  "], 1, "the summary is empty"),
        (["block", "complete", "01-02", "--summary", "x"], 1, "nobody holds block 01-02"),
        (["take", "01-9"], 1, "invalid block id"),
        (["ready", "--phase", "09-nowhere"], 7, "unknown phase 09-nowhere"),
        (["block", "list", "--phase", "09-nowhere"], 7, "unknown phase 09-nowhere"),
        (["block", "list", "--phase", "Bad"], 1, "invalid phase id"),
        (["phase", "complete", PHASE], 1, "has blocks in progress: 01-01 (executor-001, taken)"),
]  # fmt: skip


def test_bad_input_is_refused_and_changes_nothing(repo: Repo) -> None:
    plan(repo, "01-01")
    plan(repo, "01-02")
    repo.gridgit("take", "01-01", agent="executor-001")
    before = repo.snapshot()
    for args, code, said in BAD:
        agent = "mc" if args[0] in ("phase",) or args[:2] == ["block", "plan"] else "executor-001"
        result = repo.gridgit(*args, agent=agent, check=False)
        assert (result.returncode, result.stdout) == (code, ""), (args, result.stderr)
        assert result.stderr.startswith("gridgit: error:") and said in result.stderr, (args, result.stderr)
        assert repo.snapshot() == before, args


def test_completing_twice_a_huge_summary_and_the_phase_force(repo: Repo) -> None:
    plan(repo, "01-01", "--name", "Only block")
    repo.gridgit("take", agent="executor-001")
    huge = repo.gridgit("block", "complete", "01-01", "--summary", "-", agent="executor-001", check=False,
                        input="x" * (10 * 1024 * 1024))  # fmt: skip
    assert huge.returncode == 1 and "a block summary is" in huge.stderr and "the limit is 65536" in huge.stderr
    assert not (repo.grid / "phases" / PHASE / "01-SUMMARY.md").exists()
    refused = repo.gridgit("phase", "complete", PHASE, agent="mc", check=False)
    assert refused.returncode == 1 and "01-01 (executor-001, taken)" in refused.stderr
    # A phase commit does not complete it either: the hook warns, the commit stands.
    repo.git("commit", "--allow-empty", "-m", "done", "-m", f"Grid-Phase-Complete: {PHASE}")
    assert PHASE not in state(repo)["phases"]["completed"] and repo.git("log", "-1", "--format=%s") == "done\n"
    repo.gridgit("block", "complete", "01-01", "--summary", "done", agent="executor-001")
    before = repo.snapshot()
    again = repo.gridgit("block", "complete", "01-01", "--summary", "again", agent="executor-001", check=False)
    assert again.returncode == 1 and "already complete" in again.stderr and repo.snapshot() == before
    # --force completes a phase whose block is still held (here: a second block, taken and left).
    plan(repo, "01-02")
    repo.gridgit("take", agent="executor-002")
    forced = repo.gridgit_json("phase", "complete", PHASE, "--force", agent="mc")
    assert forced["phase_id"] == PHASE and state(repo)["position"]["phase_id"] == "02-core"


def test_who_may_plan_and_work_blocks(repo: Repo) -> None:
    refused = repo.gridgit("block", "plan", "01-01", agent="executor-001", check=False)
    assert refused.returncode == 4 and "only planners and Master Control plan blocks" in refused.stderr
    repo.gridgit("block", "plan", "01-01", "--name", "By the planner", agent="planner-001")
    scout = repo.gridgit("take", agent="scout-001", check=False)
    assert scout.returncode == 4 and "scouts only read" in scout.stderr
    repo.gridgit("take", agent="executor-001")
    other = repo.gridgit("block", "release", "01-01", agent="executor-002", check=False)
    assert other.returncode == 4 and "executor-001's" in other.stderr
    repo.gridgit("block", "release", "01-01", agent="mc")  # Master Control may give anyone's block back
    meta, _ = block_file(repo, "01-PLAN.md")
    assert (meta["status"], meta["owner"]) == ("planned", None)
    assert [e["payload"]["owner"] for e in repo.events("block_released")] == ["executor-001"]


def test_a_replan_keeps_the_take_and_a_complete_plan_is_final(repo: Repo) -> None:
    plan(repo, "01-01", "--name", "First", "--content", "one")
    repo.gridgit("take", agent="executor-001")
    plan(repo, "01-01", "--content", "two")
    block = Block.parse((repo.grid / "phases" / PHASE / "01-PLAN.md").read_text(), "x", PHASE, "01-PLAN.md")
    assert (block.owner, block.status, block.name, block.plan) == ("executor-001", "taken", "First", "two")
    repo.gridgit("block", "complete", "01-01", "--summary", "done", agent="executor-001")
    final = repo.gridgit("block", "plan", "01-01", "--content", "three", agent="mc", check=False)
    assert final.returncode == 1 and "its plan is final" in final.stderr
    assert repo.gridgit("block", "plan", "--template").stdout.startswith("## Goal")


def test_validate_names_a_broken_plan_and_summary(repo: Repo) -> None:
    plan(repo, "01-01")
    path = repo.grid / "phases" / PHASE / "01-PLAN.md"
    path.write_text(path.read_text().replace("status: planned", "status: maybe").replace("wave: 1", "wave: 0"))
    (repo.grid / "phases" / PHASE / "02-SUMMARY.md").write_text("---\nblock_id: 01-03\n---\n")
    result = repo.gridgit("validate", "--json", check=False)
    problems = json.loads(result.stdout)["data"]["problems"]
    found = {(p["path"].rsplit("/", 1)[-1], p["message"].split(",")[0]) for p in problems}
    assert ("01-PLAN.md", "field 'status' must be one of proposed") in found
    assert ("01-PLAN.md", "field 'wave' must be a whole number from 1 to 99") in found
    assert ("02-SUMMARY.md", "missing field 'phase_id'") in found
    assert ("02-SUMMARY.md", "block_id '01-03' does not match its file 01-foundation/02-SUMMARY.md") in found
    assert result.returncode == 1
    listed = repo.gridgit("block", "list", check=False)
    assert listed.returncode == 1 and "01-PLAN.md" in listed.stderr and "Traceback" not in listed.stderr
    assert "Blocks, cost, debug sessions:" in repo.gridgit("status").stdout  # the dashboard still shows the rest
