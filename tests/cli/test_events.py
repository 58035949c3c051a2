"""The CLI of events, touch, conflicts and claims: real subprocesses in real repositories."""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading

import pytest

from tests.conftest import Repo

COMMANDS = [
    ["events"],
    ["events", "emit"],
    ["events", "poll"],
    ["events", "tail"],
    ["events", "reset"],
    ["touch"],
    ["conflicts"],
    ["conflicts", "check"],
    ["conflicts", "list"],
    ["conflicts", "resolve"],
    ["claim"],
    ["release"],
    ["claims"],
]


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_help(repo: Repo, command: list[str]) -> None:
    proc = repo.gridgit(*command, "--help")
    assert "Usage:" in proc.stdout and proc.stderr == ""


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["events", "emit", "made_up"], "unknown event type"),
        (["events", "emit", "state_updated", "--payload", "{nope"], "payload line 1 column 2"),
        (["events", "emit", "state_updated", "--payload", "[1, 2]"], "JSON object"),
        (["events", "poll", "--agent", "mc", "--type", "bogus_type"], "unknown event type"),
        (["events", "poll", "--agent", "../etc"], "invalid agent id"),
        (["touch", "/definitely/elsewhere.py", "--agent", "executor-001"], "outside the repository"),
        (["touch", "../outside.py", "--agent", "executor-001"], "outside the repository"),
        (["touch", "a.py", "--agent", "executor-001", "--operation", "moved"], "old path"),
        (["touch", "a.py", "--agent", "executor-001", "--from", "b.py"], "only for a move"),
        (["conflicts", "check", "/elsewhere.py", "--agent", "executor-001"], "outside the repository"),
        (["conflicts", "resolve"], "--all"),
        (["claim", "../x/**", "--agent", "executor-001"], "outside the repository"),
        (["claim", "a.py"], "no agent id"),
    ],
)
def test_bad_input_exits_1_with_one_line_and_changes_nothing(repo: Repo, args: list[str], message: str) -> None:
    before = repo.snapshot()
    proc = repo.gridgit(*args, check=False)
    assert proc.returncode == 1, proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and message in proc.stderr
    assert repo.snapshot() == before


def test_bad_input_with_json_is_an_error_envelope(repo: Repo) -> None:
    proc = repo.gridgit("events", "emit", "made_up", "--json", check=False)
    assert proc.returncode == 1
    assert json.loads(proc.stdout)["error"]["code"] == "bad_input"


def test_emit_then_poll_prints_each_event_once(repo: Repo) -> None:
    repo.gridgit("events", "poll", agent="executor-001")
    event_id = repo.gridgit("events", "emit", "handoff_posted", "--payload", '{"from_agent": "executor-001"}').stdout
    repo.gridgit("events", "emit", "state_updated", "--payload", "-", input='{"topic": "auth"}')
    first = repo.gridgit("events", "poll", agent="executor-001").stdout.splitlines()
    assert len(first) == 2 and "handoff_posted" in first[0] and "from_agent=executor-001" in first[0]
    assert repo.gridgit("events", "poll", agent="executor-001").stdout == ""
    other = repo.gridgit_json("events", "poll", "--type", "handoff_posted", agent="executor-002")
    assert [e["id"] for e in other] == [event_id.strip()]


def test_tail(repo: Repo) -> None:
    for i in range(5):
        repo.gridgit("events", "emit", "state_updated", "--payload", json.dumps({"i": i}))
    data = repo.gridgit_json("events", "tail", "-n", "3")
    assert [e["payload"]["i"] for e in data] == [2, 3, 4]
    assert len(repo.gridgit("events", "tail", "-n", "2").stdout.splitlines()) == 2


def _reader(stream: object, lines: queue.Queue[str]) -> None:
    for line in stream:  # type: ignore[attr-defined]
        lines.put(line)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_tail_follow_prints_new_events_until_interrupted(repo: Repo, sig: signal.Signals) -> None:
    env = {k: v for k, v in os.environ.items() if k != "GRID_AGENT_ID"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "gridgit", "events", "tail", "-n", "1", "--follow", "--json", "--interval", "0.05"],
        cwd=repo.path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=_reader, args=(proc.stdout, lines), daemon=True).start()
    try:
        assert json.loads(lines.get(timeout=30))["type"] == "phase_started"  # init's first phase
        repo.gridgit("events", "emit", "agent_spawned", "--payload", '{"agent_id": "executor-003"}')
        assert json.loads(lines.get(timeout=30))["payload"] == {"agent_id": "executor-003"}
        proc.send_signal(sig)
        assert proc.wait(timeout=30) == 130
        assert proc.stderr is not None and "interrupted" in proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_touch_and_conflicts_check_exit_codes(repo: Repo) -> None:
    env = {"GRIDGIT_NOW": "2026-03-01T10:00:00Z"}
    assert repo.gridgit("touch", "src/a.py", agent="executor-001", env=env).stdout.strip() == (
        "modified src/a.py (executor-001)"
    )
    assert repo.gridgit("conflicts", "check", "src/a.py", agent="executor-001", env=env).returncode == 0
    proc = repo.gridgit("conflicts", "check", "src/a.py", "--json", agent="executor-002", env=env, check=False)
    assert proc.returncode == 6
    data = json.loads(proc.stdout)["data"]
    assert data["has_conflict"] is True and data["conflicting_agents"] == ["executor-001"]
    assert repo.events("write_conflict")[-1]["payload"]["path"] == "src/a.py"
    later = {"GRIDGIT_NOW": "2026-03-01T10:30:00Z"}
    assert repo.gridgit("conflicts", "check", "src/a.py", agent="executor-002", env=later).returncode == 0
    wide = repo.gridgit(
        "conflicts", "check", "src/a.py", "--window", "60", agent="executor-002", env=later, check=False
    )
    assert wide.returncode == 6 and "executor-001 modified src/a.py" in wide.stdout


def test_touch_reports_a_conflict_but_succeeds(repo: Repo) -> None:
    repo.gridgit("touch", "a.py", agent="executor-001")
    proc = repo.gridgit("touch", "a.py", agent="executor-002")
    assert "write conflict on a.py with executor-001" in proc.stderr
    assert (repo.grid / "CHECKPOINT.md").exists()
    listed = repo.gridgit_json("conflicts", "list")
    assert [c["path"] for c in listed] == ["a.py"]
    repo.gridgit("conflicts", "resolve", "a.py", "--note", "kept 002", agent="mc")
    assert not (repo.grid / "CHECKPOINT.md").exists()
    assert repo.gridgit("conflicts", "list").stdout.strip() == "no open conflicts"


def test_touch_from_a_subdirectory_and_a_move(repo: Repo) -> None:
    sub = repo.path / "src" / "pkg"
    sub.mkdir(parents=True)
    repo.gridgit("touch", "mod.py", cwd=sub, agent="executor-001")
    repo.gridgit("touch", "new.py", "--operation", "moved", "--from", "mod.py", cwd=sub, agent="executor-001")
    paths = [(e["payload"]["path"], e["payload"].get("old_path")) for e in repo.events("file_modified")]
    assert paths == [("src/pkg/mod.py", None), ("src/pkg/new.py", "src/pkg/mod.py")]


def test_touch_needs_an_agent_like_write(repo: Repo) -> None:
    before = repo.snapshot()
    proc = repo.gridgit("touch", "a.py", check=False)
    assert proc.returncode == 1 and proc.stderr.startswith("gridgit: error: no agent id")
    assert repo.snapshot() == before
    repo.git("config", "grid.agent", "executor-042")
    repo.gridgit("touch", "b.py")
    repo.gridgit("write", "-c", "discovery", "-t", "auth", "--content", "x")
    assert [e["payload"]["agent"] for e in repo.events("file_modified")] == ["executor-042"]
    assert repo.events("entry_written")[-1]["payload"]["agent"] == "executor-042"


def test_claim_release_and_list(repo: Repo) -> None:
    repo.gridgit("claim", "src/**", "--exclusive", "--ttl", "30", "--reason", "refactor", agent="executor-001")
    proc = repo.gridgit("claim", "src/a.py", agent="executor-002")
    assert "overlaps src/**  executor-001  exclusive" in proc.stderr
    listed = repo.gridgit_json("claims")
    assert [(c["pattern"], c["agent"], c["exclusive"]) for c in listed] == [
        ("src/**", "executor-001", True),
        ("src/a.py", "executor-002", False),
    ]
    assert repo.gridgit("conflicts", "check", "src/b.py", agent="executor-002", check=False).returncode == 6
    assert repo.gridgit("release", agent="executor-001").stdout.splitlines() == [
        "1 claim(s) released",
        "  src/**  executor-001",
    ]
    assert repo.gridgit("conflicts", "check", "src/b.py", agent="executor-002").returncode == 0
    assert [c["pattern"] for c in repo.gridgit_json("claims", "--agent", "executor-002")] == ["src/a.py"]
    repo.gridgit("release", "src/a.py", agent="executor-002")
    assert repo.gridgit("claims").stdout.strip() == "no claims"


def test_master_control_releases_any_agents_claim_on_a_glob_and_each_holder_is_told(repo: Repo) -> None:
    for agent in ("executor-001", "executor-002"):  # registered: an inbox starts at the registration
        repo.gridgit("agent", "register", agent, "--task", "lib", agent=agent)
    repo.gridgit("claim", "lib/**", "--exclusive", agent="executor-001")
    repo.gridgit("claim", "lib/**", agent="executor-002")
    said = repo.gridgit("release", "lib/**", agent="mc").stdout  # was "0 claim(s) released": mc's own only
    assert said.splitlines()[0] == "2 claim(s) released"
    assert repo.gridgit_json("claims") == []
    for holder in ("executor-001", "executor-002"):
        told = [i["summary"] for i in repo.gridgit_json("inbox", agent=holder) if i["type"] == "claim"]
        assert "mc released your claim on lib/**: it no longer holds" in told
    refused = repo.gridgit("release", "lib/**", "--holder", "executor-001", agent="executor-002", check=False)
    assert refused.returncode == 4  # only Master Control releases another agent's claims


def test_claim_from_a_subdirectory_is_repo_relative(repo: Repo) -> None:
    sub = repo.path / "lib"
    sub.mkdir()
    proc = repo.gridgit("claim", "*.py", "--json", agent="executor-001", cwd=sub)
    assert json.loads(proc.stdout)["data"]["granted"][0]["pattern"] == "lib/*.py"


def test_reset_cursor(repo: Repo) -> None:
    assert repo.gridgit("events", "poll", agent="executor-001").stdout
    repo.gridgit("events", "reset", agent="executor-001")
    assert repo.gridgit("events", "poll", agent="executor-001").stdout
    repo.gridgit("events", "emit", "state_updated")
    repo.gridgit("events", "reset", "--end", agent="executor-001")
    assert repo.gridgit("events", "poll", agent="executor-001").stdout == ""


def test_commands_need_a_blackboard(bare_repo: Repo) -> None:
    for args in (["events", "tail"], ["touch", "a.py"], ["claims"], ["events", "poll", "--agent", "mc"]):
        proc = bare_repo.gridgit(*args, check=False)
        assert proc.returncode == 3, args
