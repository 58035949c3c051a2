"""Agent ids are checked once, alike everywhere: `{type}-{id}` of a built-in type or a type config.json adds
(`agents.custom_types`, with the rights of a built-in type), or `mc`; anything else is refused before a byte
is written, by the CLI, the Python API and the agent-tool hooks (the MCP tools: tests/mcp/test_errors.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gridgit import Blackboard
from gridgit.errors import BadInput, PermissionDenied
from tests.agents.helpers import hook
from tests.conftest import Repo

WRITE = ["write", "-c", "discovery", "-t", "auth", "--content", "Found: x"]


@pytest.mark.parametrize("agent", ["executor", "bogus-001", "executor 1", "executor-", "-001", "Ünï-1"])
def test_a_malformed_or_unknown_agent_id_is_refused_everywhere_and_writes_nothing(repo: Repo, agent: str) -> None:
    before = repo.snapshot()
    for args in (WRITE, ["touch", "src/a.py"], ["inbox"], ["events", "reset"], ["events", "poll"], ["claim", "a"],
                 ["heartbeat", "-p", "5", "-a", "x"], ["context"], ["subscribe", "--topics", "auth"]):  # fmt: skip
        proc = repo.gridgit(*args, agent=agent, check=False)
        assert proc.returncode == 1 and proc.stderr.startswith("gridgit: error: invalid agent id"), (args, proc.stderr)
    assert repo.snapshot() == before  # no cursor file for the bogus id either
    assert not (repo.grid / "events" / "cursors").exists() or not any(
        agent in p.name for p in (repo.grid / "events" / "cursors").rglob("*")
    )
    with pytest.raises(BadInput, match="invalid agent id"):
        Blackboard(repo.path).write("discovery", "auth", "Found: x", agent=agent)


def test_mc_and_system_stand_alone_other_types_need_their_id(board: Blackboard) -> None:
    assert board.agent("mc") == "mc" and board.agent("executor-claude-1a2b3c4d") == "executor-claude-1a2b3c4d"
    for bare in ("executor", "scout", "memory"):
        with pytest.raises(BadInput, match=r"expected \{type\}-\{id\}"):
            board.agent(bare)


def test_custom_types_have_the_rights_of_the_type_they_name(repo: Repo) -> None:
    config = json.loads((repo.grid / "config.json").read_text(encoding="utf-8"))
    config["agents"] = {"custom_types": {"reviewer": "scout", "tester": "executor"}}
    (repo.grid / "config.json").write_text(json.dumps(config), encoding="utf-8")
    repo.gridgit(*WRITE, agent="tester-001")
    assert repo.gridgit_json("read", "--by", "tester-001")[0]["agent_id"] == "tester-001"
    refused = repo.gridgit(*WRITE, agent="reviewer-001", check=False)
    assert refused.returncode == 4 and "scout agents may not write" in refused.stderr
    repo.gridgit("context", agent="reviewer-001")  # a scout's budget
    registered = repo.gridgit_json("agent", "register", agent="tester-002")
    assert registered["agent"]["type"] == "tester"
    assert "unknown agent type 'bogus'" in repo.gridgit(*WRITE, agent="bogus-001", check=False).stderr
    with pytest.raises(PermissionDenied):
        Blackboard(repo.path, agent="reviewer-002").write("discovery", "auth", "x")


@pytest.mark.parametrize(
    ("types", "problem"),
    [
        ({"executor": "scout"}, "agents.custom_types.executor must be a new lowercase type name"),
        ({"re-viewer": "scout"}, "agents.custom_types.re-viewer must be a new lowercase type name"),
        ({"reviewer": "wizard"}, "agents.custom_types.reviewer must be the built-in type whose rights it has"),
        ({"reviewer": "system"}, "agents.custom_types.reviewer must be the built-in type whose rights it has"),
        (["reviewer"], "agents.custom_types must be an object"),
    ],
)
def test_a_bad_custom_type_is_named(repo: Repo, types: object, problem: str) -> None:
    (repo.grid / "config.json").write_text(json.dumps({"agents": {"custom_types": types}}), encoding="utf-8")
    before = repo.snapshot()
    proc = repo.gridgit(*WRITE, agent="reviewer-001", check=False)
    assert proc.returncode == 1 and problem in proc.stderr
    assert problem in repo.gridgit("validate", check=False).stdout
    assert repo.snapshot() == before


def test_an_agent_hook_with_a_bad_grid_agent_id_fails_open_and_writes_nothing(repo: Repo, tmp_path: Path) -> None:
    repo.gridgit("setup", "claude")
    before = repo.snapshot()
    for agent in ("executor", "bogus-001"):
        proc = hook(repo, "claude", "session-start", repo.path, "s-bad", GRID_AGENT_ID=agent)
        assert proc.returncode == 0 and proc.stdout == "" and "GRID_AGENT_ID" in proc.stderr, proc.stderr
    assert repo.snapshot() == before
