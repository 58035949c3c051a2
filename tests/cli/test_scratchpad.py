"""The scratchpad commands through the real CLI: write, read, heartbeat, stale, subscribe, reindex."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gridgit.phases import archiving
from gridgit.store.layout import Layout
from tests.conftest import Repo

PHASE = "01-foundation"
EXEC = "executor-001"


def scratchpad_path(repo: Repo, phase: str = PHASE) -> Path:
    return repo.grid / "phases" / phase / "scratchpad.md"


def test_write_and_read_round_trip(repo: Repo) -> None:
    out = repo.gridgit(
        "write", "-c", "gotcha", "-t", "auth", "--content", "Gotcha: order", "--tags", "jwt, auth", agent=EXEC
    )
    assert out.stdout.strip() == "entry [1] gotcha | auth (HIGH) written"
    content = "Line one\n---\n### [7] [2026-01-01T00:00:00Z] mc | blocker | x\n```\ncode\n```\nünï ✓\n"
    proc = repo.gridgit(
        "write", "--category", "decision", "--topic", "db", "--content", "-", "--relevance", "low",
        "--block", "01-02", "--json", agent="executor-002", input=content,
    )  # fmt: skip
    data = json.loads(proc.stdout)["data"]
    assert data == {
        "id": 2, "timestamp": data["timestamp"], "agent_id": "executor-002", "category": "decision", "topic": "db",
        "tags": [], "relevance": "LOW", "block_id": "01-02", "content": content, "title": "Db", "uid": data["uid"],
    }  # fmt: skip
    entries = repo.gridgit_json("read")
    assert [e["id"] for e in entries] == [2, 1]
    assert entries[0]["content"] == content
    assert set(entries[1]) == {
        "id", "timestamp", "agent_id", "category", "topic", "tags", "relevance", "block_id", "content", "title", "uid",
    }  # fmt: skip
    human = repo.gridgit("read", "--topic", "auth").stdout
    assert human.startswith("### [1] [") and "| gotcha | auth" in human and "Gotcha: order" in human
    assert repo.gridgit("read", "--topic", "nothing").stdout.strip() == "(no entries)"


def test_read_filters(repo: Repo) -> None:
    repo.gridgit("write", "-c", "discovery", "-t", "auth", "--content", "a", "-r", "HIGH", agent=EXEC)
    repo.gridgit("write", "-c", "question", "-t", "api", "--content", "b", agent="executor-002")
    repo.gridgit("write", "-c", "gotcha", "-t", "api", "--content", "c", agent=EXEC)

    def ids(*args: str) -> list[int]:
        return [e["id"] for e in repo.gridgit_json("read", *args)]

    assert ids("--by", "executor-002") == [2]
    assert ids("--relevance", "MEDIUM") == [3, 1]
    assert ids("--category", "gotcha") == [3]
    assert ids("--topic", "api", "--limit", "1") == [3]
    assert ids("--phase", "02-core") == []
    archiving.archive_phase(Layout.find(repo.path), PHASE)
    assert ids() == [2]  # the open question, which only the archive holds now
    assert repo.gridgit_json("read")[0]["archived"] is True
    assert ids("--archived", "--by", "executor-001") == [3, 1]


def test_merge_is_reported(repo: Repo) -> None:
    repo.gridgit("write", "-c", "discovery", "-t", "auth", "--content", "a", agent=EXEC)
    out = repo.gridgit("write", "-c", "discovery", "-t", "auth", "--content", "b", agent="executor-002")
    assert out.stdout.strip() == "merged into entry [1] discovery | auth (contributors: executor-001, executor-002)"
    entry = repo.gridgit_json("read")[0]
    assert entry["contributors"] == ["executor-001", "executor-002"]
    assert entry["content"] == "a\n\n---\n\n**Update from executor-002:**\nb"


def test_heartbeat_and_stale(repo: Repo) -> None:
    env = {"GRIDGIT_NOW": "2026-01-24T16:30:00Z"}
    out = repo.gridgit("heartbeat", "--progress", "45", "--action", "CRUD endpoints", "--thread", "thread 2",
                       "--files", "a.py,b.py", "--block", "01-03", agent=EXEC, env=env)  # fmt: skip
    assert out.stdout.strip() == "heartbeat [1] executor-001 45%: CRUD endpoints"
    # what every reader of the event shows (inbox, status, serve): the progress and the action
    assert repo.events("entry_written")[-1]["payload"]["summary"] == "45% · CRUD endpoints"
    entry = repo.gridgit_json("read", "--category", "heartbeat")[0]
    assert "**Progress:** 45%" in entry["content"] and "**Files Touched:** a.py, b.py" in entry["content"]
    repo.gridgit("write", "-c", "discovery", "-t", "x", "--content", "y", agent="executor-002", env=env)
    later = {"GRIDGIT_NOW": "2026-01-24T16:37:00Z"}
    assert json.loads(repo.gridgit("stale", "--json", env=later).stdout)["data"] == []
    everyone = repo.gridgit("stale", "--all", env=later).stdout
    assert everyone.count("warning") == 2 and "executor-002" in everyone  # its write is a sign of work
    gone = json.loads(repo.gridgit("stale", "--json", env={"GRIDGIT_NOW": "2026-01-24T16:41:00Z"}).stdout)["data"]
    assert [s["agent_id"] for s in gone] == ["executor-001", "executor-002"]
    assert repo.gridgit("stale", "--phase", "02-core").stdout.strip() == "no stale agents"


def test_subscribe_then_write_names_the_subscriber(repo: Repo) -> None:
    out = repo.gridgit("subscribe", "--topics", "auth,db", "--min", "medium", agent="executor-002")
    assert out.stdout.strip() == "executor-002 subscribed to auth, db at MEDIUM+ (scratchpad)"
    repo.gridgit("write", "-c", "gotcha", "-t", "db", "--content", "x", agent=EXEC)
    assert repo.events("entry_written")[-1]["payload"]["subscribers"] == ["executor-002"]
    data = repo.gridgit_json("subscribe", "--topics", "*", agent="memory-001")
    assert data == {"agent_id": "memory-001", "topics": ["*"], "relevance_min": "LOW", "stored": "scratchpad"}


def test_reindex_reports_what_changed(repo: Repo) -> None:
    repo.gridgit("write", "-c", "gotcha", "-t", "db", "--content", "x", agent=EXEC)
    repo.gridgit("write", "-c", "gotcha", "-t", "db", "--content", "x", "--phase", "02-core", agent=EXEC)
    path = scratchpad_path(repo)
    path.write_text(path.read_text(encoding="utf-8").replace("| gotcha | db", "| gotcha | api"), encoding="utf-8")
    out = repo.gridgit("reindex").stdout
    assert out.splitlines() == ["01-foundation: re-indexed", "02-core: index up to date"]
    assert repo.gridgit_json("reindex", "--phase", PHASE) == {PHASE: False}
    assert [e["id"] for e in repo.gridgit_json("read", "--topic", "api")] == [1]


BIG = "x" * (64 * 1024 + 1)


@pytest.mark.parametrize(
    ("args", "agent", "stdin", "code", "message"),
    [
        (["write", "-c", "rumour", "-t", "a", "--content", "x"], EXEC, None, 1, "unknown category 'rumour'"),
        (["write", "-c", "gotcha", "-t", "a", "--content", "x", "-r", "URGENT"], EXEC, None, 1, "unknown relevance"),
        (["write", "-c", "gotcha", "-t", "a", "--content", "x", "--phase", "../x"], EXEC, None, 1, "invalid phase id"),
        (
            ["write", "-c", "gotcha", "-t", "a", "--content", "x", "--phase", "01-Foo"],
            EXEC,
            None,
            1,
            "invalid phase id",
        ),
        (["write", "-c", "gotcha", "-t", "a", "--content", "x", "--phase", "/abs"], EXEC, None, 1, "invalid phase id"),
        (["write", "-c", "gotcha", "-t", "  ", "--content", "x"], EXEC, None, 1, "topic is empty"),
        (["write", "-c", "gotcha", "-t", "a", "--content", "-"], EXEC, BIG, 1, "64 KiB"),
        (
            ["write", "-c", "gotcha", "-t", "a", "--content", "x"],
            "planner-001",
            None,
            4,
            "planner agents may not write",
        ),
        (["write", "-c", "gotcha", "-t", "a", "--content", "x"], "scout-001", None, 4, "scout agents may not write"),
        (["write", "-c", "gotcha", "-t", "a", "--content", "x"], "alice", None, 1, "expected {type}-{id}"),
        (["write", "-c", "gotcha", "-t", "a", "--content", "x"], None, None, 1, "no agent id"),
        (["read", "--phase", "../x"], None, None, 1, "invalid phase id"),
        (["read", "--relevance", "SOME"], None, None, 1, "unknown relevance"),
        (["heartbeat", "--progress", "150", "--action", "x"], EXEC, None, 2, "progress"),
        (["subscribe", "--topics", "a", "--min", "SOME"], EXEC, None, 1, "unknown relevance"),
        (["reindex", "--phase", "01-Foo"], None, None, 1, "invalid phase id"),
        (["reindex", "--phase", "02-core"], None, None, 7, "has no scratchpad"),
    ],
)
def test_bad_input_changes_nothing(
    repo: Repo, args: list[str], agent: str | None, stdin: str | None, code: int, message: str
) -> None:
    repo.gridgit("write", "-c", "gotcha", "-t", "seed", "--content", "x", agent=EXEC)
    before = repo.snapshot()
    proc = repo.gridgit(*args, agent=agent, input=stdin, check=False)
    assert proc.returncode == code
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("gridgit: error: ") and message in lines[0], proc.stderr
    assert repo.snapshot() == before


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("phase_name: Foundation", "phase_name: [broken", "scratchpad.md line"),
        ("| gotcha | seed", "gotcha seed", "broken entry header"),
    ],
)
@pytest.mark.parametrize(
    "args",
    [
        ["write", "-c", "gotcha", "-t", "a", "--content", "x"],
        ["read"],
        ["reindex"],
        ["heartbeat", "-p", "1", "-a", "x"],
    ],
)
def test_invalid_scratchpad_on_disk_is_reported_not_rewritten(
    repo: Repo, old: str, new: str, message: str, args: list[str]
) -> None:
    repo.gridgit("write", "-c", "gotcha", "-t", "seed", "--content", "x", agent=EXEC)
    path = scratchpad_path(repo)
    path.write_text(path.read_text(encoding="utf-8").replace(old, new), encoding="utf-8")
    before = repo.snapshot()
    proc = repo.gridgit(*args, agent=EXEC, check=False)
    assert proc.returncode == 1
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], proc.stderr
    assert repo.snapshot() == before


def test_json_errors_use_the_envelope(repo: Repo) -> None:
    proc = repo.gridgit("write", "-c", "rumour", "-t", "a", "--content", "x", "--json", agent=EXEC, check=False)
    assert proc.returncode == 1
    envelope = json.loads(proc.stdout)
    assert envelope["ok"] is False and envelope["error"]["code"] == "bad_input"


@pytest.mark.parametrize("command", ["write", "read", "heartbeat", "stale", "subscribe", "unsubscribe", "reindex"])
def test_help(repo: Repo, command: str) -> None:
    out = repo.gridgit(command, "--help").stdout
    assert out.startswith(f"Usage: gridgit {command}")
    assert "--json" in out
