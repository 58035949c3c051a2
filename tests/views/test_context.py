"""`gridgit context`: the context pack an agent reads first, ranked and packed to its budget."""

from __future__ import annotations

import json
import math

import pytest

from gridgit.views import context
from tests.conftest import Repo


def write(repo: Repo, category: str, topic: str, content: str, *extra: str, agent: str = "executor-001") -> None:
    repo.gridgit("write", "-c", category, "-t", topic, "--content", content, *extra, agent=agent)


def test_keywords_drop_stop_words_and_keep_order() -> None:
    assert context.keywords("Fix the auth token refresh, then the DB") == ["auth", "token", "refresh", "db"]
    assert context.keywords(None) == []


def test_estimate_is_chars_over_four_rounded_up() -> None:
    assert context.estimate_tokens("") == 0
    assert context.estimate_tokens("abcd") == 1
    assert context.estimate_tokens("abcde") == 2


def test_entries_ranked_by_topic_match_with_the_query(repo: Repo) -> None:
    write(repo, "discovery", "database", "Found: migrations run twice", "-r", "HIGH")
    write(repo, "gotcha", "auth", "Gotcha: the token expires early", "--tags", "jwt", "-r", "LOW", agent="executor-002")
    write(repo, "pattern", "api", "Pattern: handlers are pure", "-r", "MEDIUM", agent="recognizer-001")
    data = repo.gridgit_json("context", "--query", "auth token expiry", agent="executor-003")
    entries = [i for i in data["items"] if i["section"] == "entry"]
    assert entries[0]["data"]["topic"] == "auth"  # topic match beats a newer or more relevant entry
    assert data["keywords"] == ["auth", "token", "expiry"]
    no_query = repo.gridgit_json("context", agent="executor-003")
    first = next(i for i in no_query["items"] if i["section"] == "entry")
    assert first["data"]["topic"] == "database"  # without a query: relevance (HIGH) leads


def test_blockers_and_handoffs_first_heartbeats_left_out(repo: Repo) -> None:
    repo.gridgit("heartbeat", "--progress", "10", "--action", "working", agent="executor-001")
    write(repo, "discovery", "auth", "Found: x")
    write(repo, "handoff", "auth", "Handoff: finish refresh tokens")
    write(repo, "blocker", "stripe", "Blocker: no Stripe key")
    data = repo.gridgit_json("context", agent="executor-002")
    sections = [i["section"] for i in data["items"]]
    assert sections[:2] == ["blocker", "handoff"]
    assert all(i["data"].get("category") != "heartbeat" for i in data["items"] if i["section"] == "entry")
    text = repo.gridgit("context", agent="executor-002").stdout
    assert (
        text.index("## Open blockers, questions and warnings")
        < text.index("## Handoffs")
        < text.index("## Phase entries")
    )
    assert "Blocker: no Stripe key" in text and "Handoff: finish refresh tokens" in text
    assert "Mission: Test Mission" in text and "# Context for executor-002 (phase 01-foundation)" in text


def test_unconfirmed_high_entries_of_the_agents_topics_ask_for_its_validation(repo: Repo) -> None:
    write(repo, "gotcha", "db", "Gotcha: the pool is per thread", "-r", "HIGH")
    write(repo, "pattern", "ui", "Pattern: tabs everywhere", "-r", "HIGH")  # not executor-002's topic
    write(repo, "discovery", "db", "Found: db pool sizing", "-r", "MEDIUM", agent="executor-002")
    data = repo.gridgit_json("context", agent="executor-002")
    (asked,) = [i for i in data["items"] if i["section"] == "confirm"]
    assert asked["key"] == "01-foundation#1" and "(executor-001; 0/3 validations)" in asked["text"]
    assert "01-foundation#1" not in [i["key"] for i in data["items"] if i["section"] == "entry"]  # said once
    assert "confirm what you met (`gridgit confirm ID`)" in data["text"]
    assert "01-foundation#1" in [
        i["key"]
        for i in repo.gridgit_json("context", "--query", "db", agent="executor-003")["items"]
        if i["section"] == "confirm"
    ]
    repo.gridgit("confirm", "01-foundation#1", agent="executor-002")  # the pack's own reference works
    again = repo.gridgit_json("context", agent="executor-002")
    assert not [i for i in again["items"] if i["section"] == "confirm"]
    for reader in ("executor-001", "scout-001"):  # the author, and an agent that may not confirm
        pack = repo.gridgit_json("context", "--query", "db", agent=reader)
        assert not [i for i in pack["items"] if i["section"] == "confirm"]


@pytest.mark.parametrize(("agent", "budget"), [("executor-001", 2000), ("scout-001", 1000), ("recognizer-001", 1500),
                                               ("memory-001", 5000), ("planner-001", 3000), ("mc", 5000)])  # fmt: skip
def test_default_budget_is_the_agent_types(repo: Repo, agent: str, budget: int) -> None:
    assert repo.gridgit_json("context", agent=agent)["budget"] == budget


def test_packed_to_the_budget_with_an_honest_estimate(repo: Repo) -> None:
    for n in range(12):
        write(repo, "discovery", f"topic{n}", f"Found: {'long text ' * 40} number {n}", agent=f"executor-{n + 1:03d}")
    data = repo.gridgit_json("context", "--budget", "300", agent="executor-099")
    assert data["tokens"] <= 300 and data["omitted"]
    assert data["tokens"] == math.ceil(len(data["text"]) / 4)
    assert data["text"].rstrip().endswith(f"~{data['tokens']} tokens of 300 (executor budget), "
                                          f"{len(data['items'])} items, {len(data['omitted'])} left out")  # fmt: skip
    full = repo.gridgit_json("context", agent="executor-099")
    assert full["tokens"] <= 2000 and len(full["items"]) > len(data["items"])


def test_learnings_relevant_to_the_query(repo: Repo) -> None:
    write(repo, "gotcha", "auth", "Gotcha: refresh tokens rotate on every use", "-r", "HIGH", "--tags", "promote")
    write(
        repo, "discovery", "css", "Found: the grid layout breaks in Safari", "--tags", "promote", agent="executor-002"
    )
    repo.gridgit("phase", "complete", "01-foundation", agent="mc")
    data = repo.gridgit_json("context", "--query", "refresh tokens", agent="executor-003")
    learned = [i for i in data["items"] if i["section"] == "learning"]
    assert len(learned) == 1 and "rotate on every use" in learned[0]["text"]
    assert data["phase_id"] == "02-core"
    everything = repo.gridgit_json("context", agent="executor-003")
    assert len([i for i in everything["items"] if i["section"] == "learning"]) == 2


def test_earlier_phases_are_searched_by_the_query_or_the_agents_task(repo: Repo) -> None:
    write(
        repo,
        "discovery",
        "importer",
        "Found: the zeppelin importer rewrites timestamps\n\nEvidence:\n- File: src/legacy.py",
    )
    write(repo, "discovery", "css", "Found: the grid layout breaks in Safari", agent="executor-002")
    repo.gridgit("phase", "complete", "01-foundation", agent="mc")
    data = repo.gridgit_json("context", "--query", "zeppelin timestamps", agent="executor-003")
    (earlier,) = [i for i in data["items"] if i["section"] == "history"]
    assert earlier["data"]["where"] == "01-foundation#1 (archive)" and "zeppelin importer" in earlier["text"]
    assert "## From earlier phases\n\n### 01-foundation#1 (archive) discovery | importer" in data["text"]
    assert data["tokens"] <= data["budget"]
    active = [{"id": "executor-003", "task": "fix the zeppelin importer"}]
    repo.gridgit("state", "update", "--json", json.dumps({"agents": {"active": active}}), agent="mc")
    at_start = repo.gridgit_json("context", agent="executor-003")  # what the session-start hook prints
    assert [i["data"]["where"] for i in at_start["items"] if i["section"] == "history"] == ["01-foundation#1 (archive)"]
    small = repo.gridgit_json("context", "--query", "zeppelin", "--budget", "120", agent="executor-003")
    assert small["tokens"] <= 120


def test_the_agents_own_registration_is_in_the_header(repo: Repo) -> None:
    active = [{"id": "executor-001", "task": "auth middleware", "block": "01-02", "worktree": "/wt/e1"}]
    repo.gridgit("state", "update", "--json", json.dumps({"agents": {"active": active}}), agent="mc")
    text = repo.gridgit("context", agent="executor-001").stdout
    assert "You: auth middleware (block 01-02), worktree /wt/e1" in text


def test_other_phase(repo: Repo) -> None:
    repo.gridgit("phase", "start", "02-core", "--force", agent="mc")
    write(repo, "decision", "orm", "Decision: use SQLAlchemy", "--phase", "02-core")
    data = repo.gridgit_json("context", "--phase", "02-core", agent="executor-002")
    assert data["phase_id"] == "02-core" and any("SQLAlchemy" in i["text"] for i in data["items"])


@pytest.mark.parametrize(
    ("args", "agent", "code", "message"),
    [
        ((), None, 1, "no agent id"),
        ((), "wizard-001", 1, "unknown agent type"),
        (("--phase", "../x"), "executor-001", 1, "invalid phase id"),
        (("--phase", "07-nowhere"), "executor-001", 7, "no phase 07-nowhere"),
        (("--budget", "0"), "executor-001", 2, "--budget"),
    ],
)
def test_bad_input(repo: Repo, args: tuple[str, ...], agent: str | None, code: int, message: str) -> None:
    before = repo.snapshot()
    proc = repo.gridgit("context", *args, agent=agent, check=False)
    assert proc.returncode == code and message in proc.stderr
    assert proc.stderr.count("\n") == 1  # usage errors too
    assert repo.snapshot() == before


def test_json_error_envelope(repo: Repo) -> None:
    proc = repo.gridgit("context", "--json", agent="wizard-001", check=False)
    envelope = json.loads(proc.stdout)
    assert proc.returncode == 1 and envelope["ok"] is False and envelope["error"]["code"] == "bad_input"


def test_python_api(board: object, repo: Repo) -> None:
    write(repo, "discovery", "auth", "Found: y")
    pack = board.context("executor-001", query="auth")  # type: ignore[attr-defined]
    assert pack.agent_type == "executor" and pack.items and pack.tokens <= pack.budget


def test_help(repo: Repo) -> None:
    out = repo.gridgit("context", "--help").stdout
    assert "--query" in out and "--budget" in out and "--agent" in out and "--json" in out
