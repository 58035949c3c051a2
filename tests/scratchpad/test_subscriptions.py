"""Subscriptions: who is named in entry events, upserts, and their carry into the next phase."""

from __future__ import annotations

import pytest

from gridgit import Blackboard
from gridgit.errors import BadInput
from gridgit.scratchpad import subscriptions
from gridgit.scratchpad.document import Scratchpad
from gridgit.store.layout import Layout
from tests.conftest import Repo
from tests.scratchpad.test_store import PHASE, pad_of, write


@pytest.fixture
def layout(repo: Repo) -> Layout:
    return Layout.find(repo.path)


def test_subscriptions_name_matching_agents(repo: Repo, layout: Layout) -> None:
    subscriptions.subscribe(layout, PHASE, "executor-002", ["auth", "Database"], "MEDIUM")
    subscriptions.subscribe(layout, PHASE, "memory-001", ["*"], "HIGH")
    subscriptions.subscribe(layout, PHASE, "recognizer-001", ["api"], "LOW")
    subs = pad_of(repo).meta["subscriptions"]
    assert subs[0] == {"agent_id": "executor-002", "topics": ["auth", "database"], "relevance_min": "MEDIUM"}
    write(layout, "executor-001", "gotcha", "auth")  # MEDIUM
    write(layout, "executor-001", "blocker", "database")  # HIGH
    write(layout, "executor-001", "question", "api")  # LOW
    write(layout, "executor-002", "question", "auth")  # LOW, and its own subscription
    got = [e["payload"]["subscribers"] for e in repo.events("entry_written")]
    assert got == [["executor-002"], ["executor-002", "memory-001"], ["recognizer-001"], []]


def test_subscribe_is_an_upsert(repo: Repo, layout: Layout) -> None:
    subscriptions.subscribe(layout, PHASE, "executor-002", ["auth"], "LOW")
    subscriptions.subscribe(layout, PHASE, "executor-002", ["*", "api"], "high")
    assert pad_of(repo).meta["subscriptions"] == [
        {"agent_id": "executor-002", "topics": ["*"], "relevance_min": "HIGH"}
    ]
    assert subscriptions.unsubscribe(layout, PHASE, "executor-002") is True
    assert subscriptions.unsubscribe(layout, PHASE, "executor-002") is False
    with pytest.raises(BadInput, match="at least one topic"):
        subscriptions.subscribe(layout, PHASE, "executor-002", [], "LOW")
    with pytest.raises(BadInput, match="unknown relevance"):
        subscriptions.subscribe(layout, PHASE, "executor-002", ["a"], "SOME")


def test_subscriptions_carry_into_the_next_phase(repo: Repo) -> None:
    board = Blackboard(repo.path)
    board.subscribe(["auth"], "MEDIUM", agent="executor-002")
    board.subscribe(["*"], agent="memory-001")
    board.start_phase("02-core", agent="mc", force=True)
    board.subscribe(["db"], agent="memory-001", phase="02-core")  # its own choice there is kept
    board.complete_phase("01-foundation", agent="mc")
    subs = {s["agent_id"]: s["topics"] for s in subscriptions.listed(_pad(board, "02-core"))}
    assert subs == {"memory-001": ["db"], "executor-002": ["auth"]}
    entry = board.write("decision", "auth", "Decision: d\nRationale: r\nAffects: a", agent="executor-001")
    assert repo.events("entry_written")[-1]["payload"]["subscribers"] == ["executor-002"] and entry.id >= 1


def _pad(board: Blackboard, phase_id: str) -> Scratchpad:
    from gridgit.scratchpad import store

    return store.load(board.layout, phase_id)


# ---- subscriptions that work for everyone (issue 28) ---------------------------------------------


def _inbox(repo: Repo, agent: str) -> list[str]:
    return [item["summary"] for item in repo.gridgit_json("inbox", agent=agent)]


def test_subscribing_opens_the_inbox(repo: Repo) -> None:
    repo.gridgit("subscribe", "--topics", "auth", agent="executor-002")  # never registered, never fetched
    write(Layout.find(repo.path), "executor-001", "gotcha", "auth", "Gotcha: tokens expire early")
    assert [s for s in _inbox(repo, "executor-002") if "gotcha | auth" in s]


def test_a_scout_subscribes_machine_local_for_every_phase(repo: Repo) -> None:
    before = {k: v for k, v in repo.snapshot().items() if not k.startswith("events/")}
    out = repo.gridgit("subscribe", "--topics", "auth,db", "--min", "MEDIUM", agent="scout-001")
    assert out.stdout.strip() == "scout-001 subscribed to auth, db at MEDIUM+ (machine-local)"
    # Nothing shared changed: a scout may not write the scratchpad, and does not.
    assert {k: v for k, v in repo.snapshot().items() if not k.startswith("events/")} == before
    local = repo.grid / "events" / "cursors" / "subscriptions" / "scout-001.json"
    assert local.is_file()
    layout = Layout.find(repo.path)
    write(layout, "executor-001", "gotcha", "auth", "Gotcha: MEDIUM, on its topic")
    write(layout, "executor-001", "heartbeat", "auth", "**Status:** LOW, below its minimum")
    write(layout, "executor-001", "gotcha", "ui", "Gotcha: another topic")
    assert [s.split(" by ")[0] for s in _inbox(repo, "scout-001")] == [f"{PHASE}#1 gotcha | auth (MEDIUM)"]

    board = Blackboard(repo.path)
    board.complete_phase(PHASE, agent="mc")
    board.write("decision", "db", "Decision: Postgres", phase="02-core", agent="executor-001")
    assert [s.split(" by ")[0] for s in _inbox(repo, "scout-001") if "|" in s] == ["02-core#1 decision | db (MEDIUM)"]

    assert repo.gridgit_json("unsubscribe", agent="scout-001")["unsubscribed"] is True
    assert not local.exists()
    board.write("decision", "auth", "Decision: JWT", phase="02-core", agent="executor-001")
    assert not [s for s in _inbox(repo, "scout-001") if "|" in s]


def test_a_carried_subscription_fills_the_inbox_in_the_next_phase(repo: Repo) -> None:
    board = Blackboard(repo.path)
    board.subscribe(["auth"], agent="executor-002")
    board.complete_phase(PHASE, agent="mc")
    board.write("gotcha", "auth", "Gotcha: in the next phase", agent="executor-001")
    assert [s for s in _inbox(repo, "executor-002") if s.startswith("02-core#1 gotcha | auth")]
