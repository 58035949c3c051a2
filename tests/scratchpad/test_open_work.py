"""Open work never hides (DESIGN.md invariant 7, issue 28): an auto-archive moves only what is
settled, and every view sees every open item of the phase wherever it lives."""

from __future__ import annotations

import json
from typing import Any

import pytest

from gridgit import Blackboard
from gridgit.scratchpad import archive, store
from gridgit.store.layout import Layout
from tests.conftest import Repo
from tests.scratchpad.test_store import PHASE, pad_of, set_limits

BLOCKER = "Blocker: Stripe API key not configured\nType: missing_credential\nAction Required: add STRIPE_KEY"
QUESTION = "Question: which Stripe account do we bill?\nContext: two accounts\nUrgency: high"
HANDOFF = "Handoff: checkout form\n\nCompleted: the form\nFor Next Agent: wire the API\nFiles: src/checkout.ts"
GOTCHA = "Gotcha: webhooks arrive twice\nFirst Hit: double charges\nFix: idempotency keys"
WARNING = "Warning: the test card expires soon\nRisk Level: low\nMitigation: renew it"


def _scenario(repo: Repo, limits: tuple[int, int] | None) -> dict[str, Any]:
    """The issue's scenario: open work of every kind, a HIGH gotcha, then heartbeats until the
    scratchpad archived (twice). LIMITS: (max_entries, keep_recent), None for the defaults (50, 25)."""
    board = Blackboard(repo.path, agent="executor-001")
    layout = Layout.find(repo.path)
    if limits:
        set_limits(layout, *limits)
    board.register_agent("executor-002", agent="executor-002")
    written = {
        "blocker": board.write("blocker", "payments", BLOCKER),
        "question": board.write("question", "payments", QUESTION),
        "handoff": board.write("handoff", "checkout", HANDOFF, block="01-02 -> executor-002"),
        "gotcha": board.write("gotcha", "webhooks", GOTCHA, relevance="HIGH"),
        "warning": board.write("warning", "cards", WARNING),
    }
    max_entries = pad_of(repo).max_entries
    beats = 0
    while len(archive.read(layout, PHASE)) < max_entries:  # two archives at least
        board.heartbeat(beats % 100, f"step {beats}")
        beats += 1
    return {key: entry.uid for key, entry in written.items()}


@pytest.mark.parametrize("limits", [None, (8, 4)], ids=["default-50", "max-8-keep-4"])
def test_an_auto_archive_keeps_open_work_in_sight(repo: Repo, limits: tuple[int, int] | None) -> None:
    uids = _scenario(repo, limits)
    layout = Layout.find(repo.path)
    pad = pad_of(repo)
    live = {e.uid: e for e in pad.entries}
    # Open work stayed live, and so did the gotcha: heartbeats went to the archive first.
    assert {uids[k] for k in ("blocker", "question", "handoff", "warning", "gotcha")} <= set(live)
    assert {e.category for e in archive.read(layout, PHASE)} == {"heartbeat"}
    assert len([e for e in pad.entries if not e.is_open]) <= pad.max_entries

    status = repo.gridgit_json("status")
    assert {item["kind"] for item in status["open"]} == {"blocker", "question", "handoff", "warning"}
    pack = repo.gridgit_json("context", "--query", "stripe", agent="executor-003")
    assert "Stripe API key not configured" in pack["text"] and "which Stripe account" in pack["text"]
    assert "Stripe API key not configured" in repo.gridgit("read", "-c", "blocker").stdout
    inbox = repo.gridgit_json("inbox", agent="executor-002")
    [handoff] = [item for item in inbox if item["type"] == "handoff"]
    assert handoff["entry"]["uid"] == uids["handoff"]  # found by its id, whatever its number now
    resolved = repo.gridgit_json("resolve", uids["blocker"], "--note", "key added", agent="mc")
    assert resolved["source"] == "scratchpad" and not resolved["already"]

    completed = repo.gridgit_json("phase", "complete", PHASE, agent="mc")
    carried = {e.category: e for e in store.load(layout, "02-core").entries}
    assert {"question", "handoff", "warning"} <= set(carried)  # the open question too
    assert "blocker" not in carried  # resolved before the phase ended
    assert carried["question"].carried_from == uids["question"] and carried["question"].is_open
    assert completed["carried"] == len(store.load(layout, "02-core").entries)


def test_heartbeats_go_to_the_archive_first(repo: Repo) -> None:
    layout = Layout.find(repo.path)
    set_limits(layout, max_entries=6, keep_recent=3)
    board = Blackboard(repo.path, agent="executor-001")
    for n in range(3):
        board.write("discovery", f"d{n}", f"Found: {n}")
    for n in range(3):
        board.heartbeat(n, f"beat {n}")
    board.write("discovery", "d3", "Found: 3")  # one more than six settled entries: archive
    assert [e.topic for e in pad_of(repo).entries] == ["d0", "d1", "d2", "d3"]
    assert [e.category for e in archive.read(layout, PHASE)] == ["heartbeat"] * 3


def test_open_work_counts_toward_neither_the_limit_nor_the_archive(repo: Repo) -> None:
    layout = Layout.find(repo.path)
    set_limits(layout, max_entries=3, keep_recent=1)
    board = Blackboard(repo.path, agent="executor-001")
    for n in range(6):
        board.write("question", f"q{n}", f"Question: {n}?")
    assert len(pad_of(repo).entries) == 6 and not layout.scratchpad_archive(PHASE).exists()
    board.resolve(1, answer="yes")  # settled now: it counts, and goes with the next archive
    for n in range(3):
        board.write("discovery", f"d{n}", f"Found: {n}")
    assert [e.topic for e in archive.read(layout, PHASE)] == ["q0", "d0"]
    assert [e.topic for e in pad_of(repo).entries] == ["q1", "q2", "q3", "q4", "q5", "d1", "d2"]


def _archive_open_work_by_hand(repo: Repo) -> dict[str, str]:
    """Open work that only the archive holds, as an earlier gridgit's auto-archive left it."""
    board = Blackboard(repo.path, agent="executor-001")
    uids = {
        "blocker": board.write("blocker", "payments", BLOCKER).uid,
        "handoff": board.write("handoff", "checkout", HANDOFF, block="01-02 -> executor-002").uid,
    }
    board.write("discovery", "misc", "Found: x")
    layout = Layout.find(repo.path)
    with store.modify(layout, PHASE) as pad:
        archive.append(layout, PHASE, pad.phase_name, pad.entries[:2])
        pad.entries = pad.entries[2:]
        pad.renumber()
    return uids


def test_open_work_only_the_archive_holds_is_seen_and_resolved_there(repo: Repo) -> None:
    uids = _archive_open_work_by_hand(repo)
    status = repo.gridgit_json("status")
    blocker = next(i for i in status["open"] if i["kind"] == "blocker")
    assert (
        blocker["archived"] is True and blocker["source"] == f"{PHASE} archive#1" and blocker["uid"] == uids["blocker"]
    )
    assert f"(id {uids['blocker']})" in repo.gridgit("status").stdout
    assert "Stripe API key" in repo.gridgit_json("context", agent="executor-003")["text"]
    text = repo.gridgit("read").stdout
    assert text.index("Found: x") < text.index("# Open, in the phase's archive") < text.index("Stripe API key")
    rows = repo.gridgit_json("read", "-c", "handoff")
    assert [(r["uid"], r["archived"]) for r in rows] == [(uids["handoff"], True)]

    done = repo.gridgit_json("resolve", uids["blocker"], "--note", "key added", agent="mc")
    assert (done["source"], done["id"], done["state_id"]) == ("archive", 1, f"blocker-{uids['blocker']}")
    [held] = [e for e in archive.read(Layout.find(repo.path), PHASE) if e.uid == uids["blocker"]]
    assert held.resolution is not None and held.resolution.note == "key added"
    event = repo.events("entry_resolved")[-1]["payload"]
    assert (event["source"], event["entry_uid"]) == ("archive", uids["blocker"])
    assert all(i["kind"] != "blocker" for i in repo.gridgit_json("status")["open"])
    taken = repo.gridgit("resolve", uids["handoff"], agent="executor-002")  # a handoff is taken
    assert "(handoff) taken" in taken.stdout
    assert repo.gridgit_json("status")["open"] == []


def test_the_web_view_shows_open_work_of_the_archive(repo: Repo) -> None:
    from gridgit.serve import routes

    uids = _archive_open_work_by_hand(repo)
    rows = routes.entries(Blackboard(repo.path), {})["entries"]
    # Open work first (the archive's too, marked so), then the rest.
    assert [(r["uid"], r["open"], r.get("archived", False)) for r in rows] == [
        (uids["handoff"], True, True),
        (uids["blocker"], True, True),
        (rows[2]["uid"], False, False),
    ]


def test_phase_completion_closes_what_it_carried(repo: Repo) -> None:
    board = Blackboard(repo.path, agent="executor-001")
    question = board.write("question", "payments", QUESTION)
    board.complete_phase(PHASE, agent="mc")
    layout = Layout.find(repo.path)
    [held] = [e for e in archive.read(layout, PHASE) if e.uid == question.uid]
    # Its open copy is in 02-core now; the archived original is closed by the carry, not open work twice.
    assert held.resolution is not None and held.resolution.note == "carried into 02-core" and not held.is_open
    assert [e.carried_from for e in store.load(layout, "02-core").entries] == [question.uid]
    assert [i["kind"] for i in board.status()["open"]] == ["question"]
    assert board.read(phase=PHASE, category="question") == []  # nothing open is left in 01


def test_archive_counts_what_was_promoted_mid_phase_too(repo: Repo) -> None:
    layout = Layout.find(repo.path)
    set_limits(layout, max_entries=6, keep_recent=2)
    board = Blackboard(repo.path, agent="executor-001")
    for n in range(5):  # gotchas tagged `promote` are promoted at phase end
        board.write("gotcha", f"g{n}", f"Gotcha: trap {n}\nFirst Hit: x\nFix: y", ["promote"], relevance="HIGH")
    for n in range(4):
        board.heartbeat(n, f"beat {n}")
    assert layout.scratchpad_archive(PHASE).exists()  # archived mid-phase, promoted at the end
    board.complete_phase(PHASE, agent="mc")
    held = archive.load(layout, PHASE)
    assert held is not None
    meta = held.meta()
    assert meta["high_value_extracted"] == 5 and len(meta["extracted"]) == 5
    assert "Extracted to LEARNINGS.md\n\nNone" not in held.render()
    assert repo.events("phase_archived")[-1]["payload"]["entries_promoted"] == 5
    assert json.loads(json.dumps(meta))["total_entries"] == 9
