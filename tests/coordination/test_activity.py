"""Liveness from activity (issues 35 and 36): every sign of work is a heartbeat, recorded without a
scratchpad entry, and a block is offered again only when its holder has really gone quiet."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.agents.helpers import command, payload
from tests.conftest import Repo

T0 = "2030-01-01T10:00:00Z"


def at(minutes: int) -> dict[str, str]:
    return {"GRIDGIT_NOW": f"2030-01-01T{10 + minutes // 60:02d}:{minutes % 60:02d}:00Z"}


def record(repo: Repo, agent: str) -> dict[str, Any]:
    found: dict[str, Any] = json.loads((repo.grid / "activity" / f"{agent}.json").read_text(encoding="utf-8"))
    return found


def ready(repo: Repo, minutes: int) -> list[str]:
    offers = json.loads(repo.gridgit("ready", "--json", agent="executor-002", env=at(minutes)).stdout)["data"]
    return [o["block_id"] for o in offers]


def data(repo: Repo, minutes: int, *args: str) -> Any:
    """The --json answer of gridgit ARGS at T0 + MINUTES."""
    return json.loads(repo.gridgit(*args, "--json", env=at(minutes)).stdout)["data"]


def heartbeat_entries(repo: Repo) -> int:
    return len(repo.gridgit_json("read", "--category", "heartbeat"))


@pytest.fixture
def held(repo: Repo) -> Repo:
    """Block 01-01 taken by executor-001 at T0; Claude Code's hooks set up."""
    repo.gridgit("setup", "claude")
    repo.gridgit("block", "plan", "01-01", "--name", "Auth", agent="mc", env=at(0))
    repo.gridgit("take", agent="executor-001", env=at(0))
    return repo


def after_edit(repo: Repo, minutes: int, through: list[str] | None = None) -> None:
    """Claude Code's after-edit hook of executor-001, run by this process (a live agent tool), or THROUGH a
    process that exits once the hook is done (an agent tool that crashed or was closed since)."""
    (repo.path / "src.py").write_text("x = 1\n", encoding="utf-8")
    text = payload("claude", "after-edit", session="s-1", cwd=str(repo.path), file=str(repo.path / "src.py"),
                   rel="src.py")  # fmt: skip
    hook = ["sh", "-c", command(repo.path, "claude", "after-edit")]
    env = {**os.environ, **at(minutes), "GRID_AGENT_ID": "executor-001"}
    if through:
        runner = "import subprocess, sys; subprocess.run(sys.argv[1:], input=sys.stdin.buffer.read(), check=True)"
        hook = [*through, "-c", runner, *hook]
    done = subprocess.run(hook, input=text.encode(), cwd=repo.path, env=env, capture_output=True)
    assert done.returncode == 0 and not done.stderr, done.stderr


def test_every_sign_of_work_is_recorded_and_stamps_state_without_an_entry(
    repo: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo.gridgit("agent", "register", "executor-001", agent="executor-001", env=at(0))
    repo.gridgit("write", "-c", "discovery", "-t", "db", "--content", "Found: x", agent="executor-001", env=at(1))
    assert (record(repo, "executor-001")["what"], record(repo, "executor-001")["at"]) == ("write", at(1)["GRIDGIT_NOW"])
    repo.gridgit("touch", "src.py", agent="executor-001", env=at(2))
    assert record(repo, "executor-001")["what"] == "touch"
    # A sign of work costs one small file: STATE is stamped at most every five minutes.
    assert repo.gridgit_json("state", "show", "--field", "agents.active")[0]["last_heartbeat"] is None
    repo.gridgit("touch", "src.py", agent="executor-001", env=at(7))
    stamped = repo.gridgit_json("state", "show", "--field", "agents.active")[0]["last_heartbeat"]
    assert stamped == at(7)["GRIDGIT_NOW"]
    monkeypatch.setenv("GRIDGIT_HOOK_SYNC", "1")
    monkeypatch.setenv("GRIDGIT_NOW", at(8)["GRIDGIT_NOW"])
    (repo.path / "a.py").write_text("a = 1\n", encoding="utf-8")
    repo.git("add", "a.py")
    repo.git("commit", "-q", "-m", "a")  # nobody named: no sign of anyone's work
    assert heartbeat_entries(repo) == 0  # no scratchpad entry per sign (nor per commit)
    repo.git("config", "grid.agent", "executor-001")
    (repo.path / "b.py").write_text("b = 1\n", encoding="utf-8")
    repo.git("add", "b.py")
    repo.git("commit", "-q", "-m", "b")
    assert record(repo, "executor-001")["what"].startswith("commit ")
    assert heartbeat_entries(repo) == 0
    assert [r["agent_id"] for r in data(repo, 17, "stale")] == []  # its last sign: the commit at minute 8
    assert [r["agent_id"] for r in data(repo, 19, "stale")] == ["executor-001"]
    assert "activity/" in (repo.grid / ".gitignore").read_text(encoding="utf-8")  # machine-local


def test_a_quiet_agent_goes_stale_from_its_last_sign(repo: Repo) -> None:
    repo.gridgit("agent", "register", "executor-001", agent="executor-001", env=at(0))
    repo.gridgit("touch", "src.py", agent="executor-001", env=at(30))
    assert data(repo, 34, "agent", "list")["active"][0]["warning_level"] == "ok"
    report = data(repo, 37, "agent", "list")["active"][0]
    assert (report["warning_level"], report["last_heartbeat"]) == ("warning", at(30)["GRIDGIT_NOW"])
    assert data(repo, 41, "agent", "list")["active"][0]["warning_level"] == "stale"


def test_a_busy_agents_block_is_not_offered_again(held: Repo) -> None:
    after_edit(held, 1)  # the agent tool (this process) runs on: one long tool call, no hook for 11 minutes
    assert record(held, "executor-001")["session"]["pid"] > 0
    assert ready(held, 12) == []
    assert heartbeat_entries(held) == 0
    assert ready(held, 62) == ["01-01"]  # heartbeat.session_minutes (60) after its last sign: quiet after all


def test_a_block_is_offered_again_once_its_agent_tool_is_gone(held: Repo) -> None:
    after_edit(held, 1, through=[sys.executable])  # the tool that ran the hook has exited since
    assert ready(held, 9) == []  # its last sign is recent
    assert ready(held, 12) == ["01-01"]  # gone quiet: the block is offered again
    taken = json.loads(held.gridgit("take", "--json", agent="executor-002", env=at(12)).stdout)["data"]
    assert (taken["block"]["block_id"], taken["reoffered_from"]) == ("01-01", "executor-001")


def test_an_unreadable_record_is_no_sign_and_is_rewritten(held: Repo) -> None:
    path = Path(held.grid / "activity" / "executor-001.json")
    path.write_text("{not json", encoding="utf-8")
    assert ready(held, 12) == ["01-01"]  # the take at T0 is its last sign now
    held.gridgit("touch", "src.py", agent="executor-001", env=at(12))
    assert record(held, "executor-001")["what"] == "touch" and ready(held, 13) == []
