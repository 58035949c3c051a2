"""`gridgit status`: the mission dashboard, as text, as JSON, and live."""

from __future__ import annotations

import json
import queue
import signal
import subprocess
import sys
import threading

from tests.conftest import Repo

PAST = "2026-01-24T14:30:00Z"


def register(repo: Repo, *agents: str) -> None:
    active = [{"id": a, "type": a.split("-")[0], "task": f"task of {a}", "worktree": f"/wt/{a}"} for a in agents]
    repo.gridgit("state", "update", "--json", json.dumps({"agents": {"active": active}}), agent="mc")


def test_agents_with_heartbeat_age_and_stale_marked(repo: Repo) -> None:
    register(repo, "executor-001", "executor-002", "recognizer-001", "scout-001")
    repo.gridgit("heartbeat", "--progress", "10", "--action", "starting", agent="executor-001")
    repo.gridgit("heartbeat", "--progress", "10", "--action", "old", agent="recognizer-001", env={"GRIDGIT_NOW": PAST})
    data = repo.gridgit_json("status")
    agents = {a["id"]: a for a in data["agents"]}
    assert agents["executor-001"]["warning_level"] == "ok" and agents["executor-001"]["stale"] is False
    assert agents["executor-002"]["warning_level"] == "stale" and agents["executor-002"]["last_heartbeat"] is None
    assert agents["recognizer-001"]["warning_level"] == "stale" and agents["recognizer-001"]["last_heartbeat"] == PAST
    assert agents["scout-001"]["warning_level"] == "n/a"  # scouts may not write heartbeats
    assert agents["executor-001"]["worktree"] == "/wt/executor-001"
    text = repo.gridgit("status").stdout
    assert "STALE" in text and "executor-001" in text and "task of executor-001" in text


def test_position_progress_and_mission(repo: Repo) -> None:
    repo.gridgit("block", "plan", "01-02", "--name", "Auth", agent="mc")  # the position follows the blocks
    repo.gridgit(
        "state", "update", "--set", "progress.percent=50", "--set", "status=in_progress", agent="mc",
    )  # fmt: skip
    data = repo.gridgit_json("status")
    assert data["mission"] == "Test Mission" and data["status"] == "in_progress" and data["progress"] == 50
    assert data["position"]["phase_id"] == "01-foundation" and data["position"]["block_id"] == "01-02"
    assert data["phases_total"] == 2
    text = repo.gridgit("status").stdout
    assert "██████████░░░░░░░░░░" in text and "50%" in text
    assert "Phase 1/2: 01-foundation Foundation" in text and "Block 01-02: Auth" in text


def test_open_blockers_and_questions(repo: Repo) -> None:
    blocker = {"id": "blocker-001", "type": "missing_credential", "description": "Stripe key missing"}
    repo.gridgit("state", "update", "--json", json.dumps({"blockers": [blocker]}), agent="recognizer-001")
    repo.gridgit("write", "-c", "blocker", "-t", "db", "--content", "Blocker: no database", agent="executor-001")
    repo.gridgit("write", "-c", "question", "-t", "api", "--content", "Question: REST?", agent="executor-001")
    repo.gridgit(
        "write",
        "-c",
        "question",
        "-t",
        "cache",
        "--tags",
        "resolved",
        "--content",
        "Question: done",
        agent="executor-001",
    )
    repo.gridgit("write", "-c", "discovery", "-t", "misc", "--content", "Found: x", agent="executor-001")
    data = repo.gridgit_json("status")
    texts = [item["text"] for item in data["open"]]
    assert texts[0] == "Stripe key missing"
    assert any("no database" in t for t in texts) and any("REST?" in t for t in texts)
    assert not any("done" in t for t in texts) and not any("Found" in t for t in texts)
    assert {item["kind"] for item in data["open"]} == {"blocker", "question"}
    # The blocker entry and the STATE blocker it added are one item.
    [db] = [item for item in data["open"] if "no database" in item["text"]]
    assert db["state_id"] == f"blocker-{db['uid']}"
    assert "Open work: blockers, questions, handoffs, warnings (3)" in repo.gridgit("status").stdout


def test_recent_conflicts_and_last_events(repo: Repo) -> None:
    repo.write("src/a.py", "x = 1\n")
    repo.gridgit("touch", "src/a.py", agent="executor-001")
    repo.gridgit("touch", "src/a.py", agent="executor-002")
    data = repo.gridgit_json("status")
    conflict = data["conflicts"][0]
    assert conflict["type"] == "write_conflict" and conflict["payload"]["path"] == "src/a.py"
    assert data["events"][0]["id"] > data["events"][-1]["id"]  # newest first
    text = repo.gridgit("status").stdout
    assert "src/a.py: executor-002 vs executor-001" in text
    assert "file_modified" in text


def test_watch_with_count_prints_one_envelope_per_refresh(repo: Repo) -> None:
    proc = repo.gridgit("status", "--watch", "--interval", "0.1", "--count", "3", "--json")
    frames = [json.loads(line) for line in proc.stdout.splitlines()]
    assert len(frames) == 3 and all(f["ok"] and f["data"]["mission"] == "Test Mission" for f in frames)


def test_watch_refreshes_until_interrupted(repo: Repo) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "gridgit", "status", "--watch", "--interval", "0.1"],
        cwd=repo.path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    screens: queue.Queue[str] = queue.Queue()

    def drain() -> None:
        # Keep reading until the end: a full pipe would block the dashboard's last flush at exit.
        assert proc.stdout is not None
        for line in proc.stdout:
            if line.startswith("Mission: Test Mission"):
                screens.put(line)

    threading.Thread(target=drain, daemon=True).start()
    try:
        for _ in range(2):
            screens.get(timeout=30)
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=30) == 130  # like `events tail -f` and `daemon logs -f`
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_not_initialised_is_one_line_exit_3(bare_repo: Repo) -> None:
    proc = bare_repo.gridgit("status", check=False)
    assert proc.returncode == 3
    assert proc.stderr.count("\n") == 1 and "gridgit init" in proc.stderr


def test_bad_interval_is_a_usage_error(repo: Repo) -> None:
    before = repo.snapshot()
    proc = repo.gridgit("status", "--watch", "--interval", "0", check=False)
    assert proc.returncode == 2
    assert repo.snapshot() == before


def test_help(repo: Repo) -> None:
    proc = repo.gridgit("status", "--help")
    assert "--watch" in proc.stdout and "--interval" in proc.stdout and "--json" in proc.stdout
