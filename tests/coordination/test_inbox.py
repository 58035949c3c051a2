"""The inbox: what is new for one agent, each relevant event exactly once, across polls and phases."""

from __future__ import annotations

import json

import pytest

from gridgit import Blackboard
from gridgit.errors import BadInput
from tests.conftest import Repo


def kinds(items: list[object]) -> list[str]:
    return [i.type for i in items]  # type: ignore[attr-defined]


def test_each_relevant_event_once_across_two_polls_and_a_phase_change(repo: Repo) -> None:
    board = Blackboard(repo.path)
    board.register_agent("executor-002", task="api", block="01-03", agent="mc")
    board.subscribe(["auth"], "MEDIUM", agent="executor-002")
    assert board.inbox(agent="executor-002") == []

    board.write(
        "discovery",
        "auth",
        "Found: tokens expire early\nImpact: x\nEvidence: y",
        relevance="HIGH",
        agent="executor-001",
    )
    board.write("gotcha", "db", "Gotcha: g\nFirst Hit: h\nFix: f", agent="executor-001")  # not subscribed
    board.write(
        "question", "auth", "Question: q\nContext: c\nUrgency: low", relevance="LOW", agent="executor-001"
    )  # below MEDIUM
    handoff = "Handoff: JWT done\n\n**Completed:**\n- a\n\n**For Next Agent:**\n- b\n\n**Files to Review:**\n- c"
    board.write("handoff", "api", handoff, block="01-02 -> 01-03", agent="executor-001")
    board.write("handoff", "api-other", handoff, block="01-02 -> 01-09", agent="executor-001")  # another block
    board.write("discovery", "auth", "Found: mine\nImpact: i\nEvidence: e", agent="executor-002")  # its own

    first = board.inbox(agent="executor-002")
    assert kinds(first) == ["entry", "handoff"]
    assert first[0].summary.startswith("01-foundation#1 discovery | auth (HIGH) by executor-001: Found: tokens expire")
    assert first[0].entry is not None and first[0].entry["content"].startswith("Found: tokens expire early")
    assert first[1].summary.startswith("handoff to your block 01-03 from executor-001")
    assert board.inbox(agent="executor-002") == []  # the second poll: nothing twice

    board.touch("src/a.py", agent="executor-002")
    board.touch("src/a.py", agent="executor-001")  # a write conflict executor-002 is part of
    board.claim(["src/*.py"], agent="executor-003", reason="refactor")  # a claim on a file it touched
    board.claim(["docs/**"], agent="executor-003")  # not its files
    blocker = board.write(
        "blocker", "env", "Blocker: no key\nType: missing_credential\nAction Required: add it", agent="executor-002"
    )
    board.resolve(blocker.id, note="key added", agent="mc")
    board.complete_phase("01-foundation", agent="mc")
    board.write(
        "decision", "auth", "Decision: rotate\nRationale: r\nAffects: a", agent="executor-001"
    )  # phase 2: carried subscription

    second = board.inbox(agent="executor-002")
    assert kinds(second) == ["conflict", "claim", "resolution", "phase", "entry"]
    summaries = [i.summary for i in second]
    assert summaries[0] == "write conflict on src/a.py with executor-001: coordinate first (.grid/CHECKPOINT.md)"
    assert summaries[1].startswith("executor-003 claimed src/*.py until ") and summaries[1].endswith("(refactor)")
    assert summaries[2] == f"your blocker 01-foundation#{blocker.id} [env] was resolved by mc: key added"
    assert summaries[3] == "phase changed: 01-foundation -> 02-core"
    assert summaries[4].startswith("02-core#") and "decision | auth" in summaries[4]
    assert board.inbox(agent="executor-002") == []
    delivered = [i.event["id"] for i in [*first, *second]]
    assert len(delivered) == len(set(delivered))


def test_peek_limit_and_a_first_look(repo: Repo) -> None:
    board = Blackboard(repo.path)
    board.write("discovery", "auth", "Found: before", agent="executor-001")
    assert board.inbox(agent="executor-002") == []  # the first look opens the inbox: the past is the context pack's
    board.subscribe(["*"], agent="executor-002")
    for n in range(3):
        board.write("pattern", f"p{n}", "Pattern: x\nWhere Found: y\nUsage: z", agent="executor-001")
    assert len(board.inbox(agent="executor-002", peek=True)) == 3
    assert len(board.inbox(agent="executor-002", peek=True)) == 3  # peeking moves nothing
    assert [i.event["payload"]["topic"] for i in board.inbox(agent="executor-002", limit=2)] == ["p0", "p1"]
    assert [i.event["payload"]["topic"] for i in board.inbox(agent="executor-002", limit=2)] == ["p2"]
    with pytest.raises(BadInput, match="--limit 0"):
        board.inbox(agent="executor-002", limit=0)
    assert len(board.poll(agent="executor-002", types=["entry_written"])) == 4  # `events poll` has its own cursor


def test_exactly_once_across_rotations_of_the_log(repo: Repo) -> None:
    config = json.loads((repo.grid / "config.json").read_text())
    config["events"]["rotate_bytes"] = 1000
    (repo.grid / "config.json").write_text(json.dumps(config))
    board = Blackboard(repo.path)
    board.subscribe(["*"], agent="executor-002")
    board.inbox(agent="executor-002")
    seen = []
    for n in range(12):
        board.write("pattern", f"p{n}", "Pattern: x\nWhere Found: y\nUsage: z", agent="executor-001")
        if n % 5 == 4:
            seen += [i.event["payload"]["topic"] for i in board.inbox(agent="executor-002")]
    seen += [i.event["payload"]["topic"] for i in board.inbox(agent="executor-002")]
    assert seen == [f"p{n}" for n in range(12)]
    assert len(list((repo.grid / "events" / "archive").iterdir())) >= 2


def test_a_handoff_to_an_agent_and_an_answered_question(repo: Repo) -> None:
    board = Blackboard(repo.path)
    board.inbox(agent="executor-003")
    board.inbox(agent="recognizer-001")
    body = "**Completed:**\n- a\n\n**For Next Agent:**\n- b\n\n**Files to Review:**\n- c"
    board.write("handoff", "search", body, block="01-02 -> executor-003", agent="executor-001")
    question = board.write(
        "question", "cache", "Question: which TTL?\nContext: c\nUrgency: low", agent="recognizer-001"
    )
    board.resolve(f"01-foundation#{question.id}", answer="60 seconds,\nper the SLA", agent="mc")
    assert [i.summary for i in board.inbox(agent="executor-003")] == [
        "handoff to you from executor-001 (01-foundation#1 search): Completed:"
    ]
    answered = board.inbox(agent="recognizer-001")
    assert [i.summary for i in answered] == [
        f"your question 01-foundation#{question.id} [cache] was answered by mc: 60 seconds, per the SLA"
    ]


def decide(repo: Repo, agent: str) -> None:
    repo.gridgit(
        "write", "-c", "decision", "-t", "auth", "--content", "Decision: d\nRationale: r\nAffects: a", agent=agent
    )


def test_cli_inbox(repo: Repo) -> None:
    repo.gridgit("agent", "register", "--task", "t", agent="executor-002")
    repo.gridgit("subscribe", "--topics", "auth", agent="executor-002")
    assert repo.gridgit("inbox", agent="executor-002").stdout.strip() == "nothing new for executor-002"
    decide(repo, "executor-001")
    peeked = repo.gridgit("inbox", "--peek", agent="executor-002").stdout
    assert peeked.startswith("- 01-foundation#1 decision | auth (MEDIUM) by executor-001: Decision: d")
    envelope = json.loads(repo.gridgit("inbox", "--json", agent="executor-002").stdout)
    item = envelope["data"][0]
    assert set(item) == {"type", "summary", "event", "entry"} and item["type"] == "entry"
    assert item["event"]["type"] == "entry_written" and item["entry"]["topic"] == "auth"
    assert repo.gridgit_json("inbox", agent="executor-002") == []
    proc = repo.gridgit("inbox", agent="bad id", check=False)
    assert proc.returncode == 1 and "invalid agent id" in proc.stderr


def test_unsubscribe_stops_entries(repo: Repo) -> None:
    repo.gridgit("subscribe", "--topics", "*", agent="executor-002")
    repo.gridgit("inbox", agent="executor-002")
    assert repo.gridgit("unsubscribe", agent="executor-002").stdout.strip() == "executor-002 unsubscribed"
    assert repo.gridgit("unsubscribe", agent="executor-002").stdout.strip() == "executor-002 had no subscription"
    decide(repo, "executor-001")
    assert repo.gridgit_json("inbox", agent="executor-002") == []
