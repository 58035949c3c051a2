"""The merge rules of the work files (pure functions of text), as sync and the merge driver apply them."""

from __future__ import annotations

from gridgit.history.merge import merger_for
from gridgit.history.work_merge import merge_budget, merge_document, merge_plan
from gridgit.store import frontmatter
from gridgit.work.blockfile import Block
from gridgit.work.contest import settle

PHASE = "01-foundation"


def plan(**take: object) -> str:
    block = Block("01-02", PHASE, name="Auth", planned_by="mc", planned_at="2026-01-01T00:00:00Z")
    for key, value in take.items():
        setattr(block, key, value)
    block.body = "\n# Block 01-02: Auth\n\nstep one\n"
    return block.render()


def take_of(agent: str, clone: str, at: str, status: str = "taken") -> dict[str, object]:
    return {"status": status, "owner": agent, "clone": clone, "taken_at": at}


def parsed(text: str) -> Block:
    return Block.parse(text, "x", PHASE, "02-PLAN.md")


def test_the_first_take_wins_whichever_side_merges() -> None:
    base = plan()
    ours = plan(**take_of("executor-001", "c2", "2026-01-01T10:00:05Z"))
    theirs = plan(**take_of("executor-002", "c1", "2026-01-01T10:00:01Z"))
    merged = merge_plan(base, ours, theirs, "phases/01-foundation/02-PLAN.md")
    assert merged == merge_plan(base, theirs, ours, "phases/01-foundation/02-PLAN.md")
    block = parsed(merged)
    assert (block.owner, block.clone) == ("executor-002", "c1")
    assert block.contested == [{"agent": "executor-001", "clone": "c2", "taken_at": "2026-01-01T10:00:05Z",
                                "status": "taken", "lost_to": "executor-002"}]  # fmt: skip
    # The same second: the clone id decides, the same way everywhere.
    same = plan(**take_of("executor-003", "c0", "2026-01-01T10:00:05Z"))
    assert parsed(merge_plan(base, ours, same, "p")).owner == "executor-003"


def test_a_take_that_moved_on_a_release_and_a_replan() -> None:
    taken = take_of("executor-001", "c1", "2026-01-01T10:00:00Z")
    base = plan(**taken)
    done = plan(**{**taken, "status": "complete", "completed_at": "2026-01-01T11:00:00Z"})
    started = plan(**{**taken, "status": "in_progress", "started_at": "2026-01-01T10:30:00Z"})
    assert parsed(merge_plan(base, started, done, "p")).status == "complete"  # one take, its furthest state
    released = plan(status="planned", owner=None)
    retaken = plan(**take_of("executor-002", "c2", "2026-01-01T10:20:00Z"))
    assert parsed(merge_plan(base, released, retaken, "p")).owner == "executor-002"  # a release and a take: the take
    replanned = base.replace("step one", "step one, revised")
    merged = parsed(merge_plan(base, replanned, started, "p"))
    assert (merged.plan, merged.status) == ("step one, revised", "in_progress")  # the plan by lines, the take apart
    assert settle({}, {}, {}) == ({}, [])


def test_notes_both_sides_appended_are_both_kept() -> None:
    base = frontmatter.render({"session_id": "s", "status": "open"}, "\n## Tried\n\n- a\n")
    ours = frontmatter.render({"session_id": "s", "status": "closed"}, "\n## Tried\n\n- a\n- b\n")
    theirs = frontmatter.render({"session_id": "s", "status": "open"}, "\n## Tried\n\n- a\n- c\n")
    meta, body = frontmatter.parse(merge_document(base, ours, theirs, "investigation.md"), "x")
    assert meta["status"] == "closed" and body.count("- b\n") == body.count("- c\n") == 1


def test_which_files_merge_how() -> None:
    assert merger_for("phases/01-x/02-PLAN.md") is merge_plan
    assert merger_for("phases/01-x/02-SUMMARY.md") is merge_document
    assert merger_for("debug/20260101-x-abcd/investigation.md") is merge_document
    assert merger_for("budget.json") is merge_budget
    assert merger_for("phases/01-x/notes.md") is None
