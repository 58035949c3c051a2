"""Resolving blockers, questions and warnings: recorded in the entry, closed everywhere, never carried."""

from __future__ import annotations

import pytest

from gridgit import Blackboard
from tests.conftest import Repo

BLOCKER = "Blocker: Stripe key missing\nType: missing_credential\nAction Required: add STRIPE_SECRET_KEY"


def test_resolving_a_blocker_records_who_when_and_how(repo: Repo) -> None:
    repo.gridgit("write", "-c", "blocker", "-t", "env", "--content", BLOCKER, agent="executor-002")
    assert [i["text"] for i in repo.gridgit_json("status")["open"]] == ["[env] Blocker: Stripe key missing"]
    env = {"GRIDGIT_NOW": "2026-01-24T15:00:00Z"}
    proc = repo.gridgit("resolve", "1", "--note", "key added\nto .env.local", agent="mc", env=env)
    assert proc.stdout.strip() == "01-foundation#1 (blocker) resolved"
    text = (repo.grid / "phases" / "01-foundation" / "scratchpad.md").read_text()
    assert "**Resolved:** 2026-01-24T15:00:00Z by mc\n**Resolution:** key added to .env.local\n" in text
    payload = repo.events("entry_resolved")[-1]["payload"]
    uid = payload.pop("entry_uid")
    assert payload == {
        "source": "scratchpad", "phase_id": "01-foundation", "entry_id": 1, "category": "blocker", "topic": "env",
        "entry_agent": "executor-002", "agent": "mc", "note": "key added to .env.local", "answer": "",
        "state_id": f"blocker-{uid}",  # the STATE blocker the entry added is resolved with it
    }  # fmt: skip
    assert repo.gridgit_json("status")["open"] == []
    pack = repo.gridgit_json("context", agent="executor-001")
    assert not [i for i in pack["items"] if i["section"] == "blocker"]
    entry = repo.gridgit_json("read", "-c", "blocker")[0]
    assert entry["resolution"] == {
        "at": "2026-01-24T15:00:00Z",
        "by": "mc",
        "note": "key added to .env.local",
        "answer": "",
    }

    before, events = repo.snapshot(), len(repo.events())
    again = repo.gridgit("resolve", "01-foundation#1", "--note", "again", agent="mc")
    assert "already resolved by mc at 2026-01-24T15:00:00Z: nothing changed" in again.stdout
    assert repo.snapshot() == before and len(repo.events()) == events
    # A new blocker on its topic, within the merge window, is a new entry: nothing merges into a resolved one.
    new = repo.gridgit_json("write", "-c", "blocker", "-t", "env", "--content", BLOCKER, agent="executor-003")
    assert new["id"] == 2 and "resolution" not in new
    # The stable id names an entry whatever its number becomes after archiving.
    by_uid = repo.gridgit_json("resolve", new["uid"], "--note", "done", agent="mc")
    assert (by_uid["id"], by_uid["resolution"]["note"]) == (2, "done")


@pytest.mark.parametrize(
    ("args", "agent", "code", "message"),
    [
        (["resolve", "99"], "mc", 7, "phase 01-foundation has no entry [99]"),
        (["resolve", "99"], "scout-001", 7, "phase 01-foundation has no entry [99]"),  # not found before not allowed
        (["resolve", "2"], "mc", 1, "entry [2] is a discovery: only blockers, questions, warnings and handoffs"),
        (["resolve", "1", "--answer", "x"], "mc", 1, "--answer is for questions"),
        (["resolve", "blocker-zzz"], "mc", 7, "no entry or STATE blocker with id 'blocker-zzz'"),
        (["resolve", "abc!!"], "executor-001", 7, "no entry or STATE blocker with id 'abc!!'"),
        (["resolve", "1"], "scout-001", 4, "scout agents may not write to a scratchpad"),
        (["resolve", "02-core#1", "--phase", "01-foundation"], "mc", 1, "names phase 02-core, but --phase is"),
        (["resolve", "1", "--phase", "../x"], "mc", 1, "invalid phase id"),
        (["resolve", "1"], None, 1, "no agent id"),
        (
            ["resolve", "01ARZ3NDEKTSV4RRFFQ69G5FAV"],
            "mc",
            7,
            "phase 01-foundation has no entry [01ARZ3NDEKTSV4RRFFQ69G5FAV]",
        ),
    ],
)
def test_bad_input_changes_nothing(repo: Repo, args: list[str], agent: str | None, code: int, message: str) -> None:
    repo.gridgit("write", "-c", "blocker", "-t", "env", "--content", BLOCKER, agent="executor-002")
    repo.gridgit(
        "write", "-c", "discovery", "-t", "x", "--content", "Found: x\nImpact: y\nEvidence: z", agent="executor-002"
    )
    before = repo.snapshot()
    proc = repo.gridgit(*args, agent=agent, check=False)
    assert proc.returncode == code and message in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    assert repo.snapshot() == before


def test_a_state_blocker_is_resolved_the_same_way(repo: Repo) -> None:
    repo.gridgit(
        "state", "update", "--add", "blockers={id: blocker-001, description: CI down, source: executor-001}", agent="mc"
    )
    assert [i["id"] for i in repo.gridgit_json("status")["open"]] == ["blocker-001"]
    result = repo.gridgit_json("resolve", "blocker-001", "--note", "CI back, password=hunter2", agent="recognizer-001")
    assert result["source"] == "STATE" and result["resolution"]["note"].startswith("CI back")
    assert "hunter2" not in repo.grid.joinpath("STATE.md").read_text()  # redacted like any content
    blocker = repo.gridgit_json("state", "show", "--field", "blockers")[0]
    assert blocker["resolved_by"] == "recognizer-001" and blocker["resolved_at"]
    assert repo.gridgit_json("status")["open"] == []
    assert "- Open Blockers: 0" in repo.grid.joinpath("STATE.md").read_text()
    assert repo.events("entry_resolved")[-1]["payload"]["entry_agent"] == "executor-001"
    assert repo.gridgit_json("resolve", "blocker-001", agent="mc")["already"] is True
    proc = repo.gridgit("resolve", "blocker-001", agent="executor-001", check=False)
    assert proc.returncode == 4  # executors may not write STATE blockers


def test_a_blocker_resolved_in_phase_two_is_not_carried_into_phase_three(repo: Repo) -> None:
    board = Blackboard(repo.path)
    board.write("blocker", "env", BLOCKER, agent="executor-002")
    board.complete_phase("01-foundation", agent="mc")
    carried = board.read(phase="02-core", category="blocker")
    assert len(carried) == 1 and carried[0].content.startswith("[Carried from 01-foundation]")
    assert [i["text"] for i in board.status()["open"]] == [
        "[env] Blocker: Stripe key missing"
    ]  # its text, not the marker
    board.resolve(carried[0].id, note="key added", agent="mc")
    assert board.status()["open"] == []
    result = board.complete_phase("02-core", "03-polish", agent="mc")
    assert board.read(phase="03-polish", category="blocker") == [] and result.carried == 0
    assert board.read(phase="02-core", category="blocker", archived=True)[0].resolution is not None


def test_conflicts_resolve_closes_its_warning_and_the_checkpoint_file(repo: Repo) -> None:
    repo.gridgit("touch", "src/a.py", agent="executor-001")
    repo.gridgit("touch", "src/a.py", agent="executor-002")
    assert repo.gridgit_json("state", "show", "--field", "resume.checkpoint_file") == ".grid/CHECKPOINT.md"
    warning = repo.gridgit_json("read", "-c", "warning")[0]
    assert warning["content"].startswith("Warning: write conflict on `src/a.py`") and "resolution" not in warning
    assert repo.gridgit("write", "-c", "warning", "-t", "w", "--content", warning["content"], agent="mc").stderr == ""
    repo.gridgit("conflicts", "resolve", "src/a.py", "--note", "kept both changes", agent="recognizer-001")
    resolved = repo.gridgit_json("read", "-c", "warning", "-t", "conflict")[0]["resolution"]
    assert resolved["by"] == "recognizer-001" and resolved["note"] == "kept both changes"
    assert repo.gridgit_json("state", "show", "--field", "resume.checkpoint_file") is None
    assert not (repo.grid / "CHECKPOINT.md").exists()


def test_promotion_uses_a_questions_answer(repo: Repo) -> None:
    board = Blackboard(repo.path)
    question = board.write(
        "question",
        "style",
        "Question: tabs or spaces?\nContext: c\nUrgency: low",
        tags=["user_preference"],
        agent="executor-001",
    )
    board.resolve(question.id, answer="spaces, 4 of them", agent="mc")
    promoted = board.promote(agent="memory-001").promoted
    assert len(promoted) == 1 and promoted[0].category == "user_preferences"
    assert promoted[0].content.endswith("Answer (mc, " + question_resolved_at(board) + "): spaces, 4 of them")


def question_resolved_at(board: Blackboard) -> str:
    return str(board.read(category="question")[0].resolution.at)
