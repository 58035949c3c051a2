"""What gridgit tells a model to run runs, for the agent the hook knew (issue 34, finding 7): an agent whose identity
came from its tool's session (no GRID_AGENT_ID) is named in every command told to it, and its shell learns it
where the tool lets a SessionStart hook say so (Claude Code's and Codex's env file). Each command is run here,
as the model would run it from its shell, without GRID_AGENT_ID."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

from tests.agents.helpers import hook, run
from tests.conftest import Repo

SESSION = "sess-told"
SPOKEN = re.compile(r"`(gridgit [^`]+)`")


def _said(stdout: str) -> str:
    data = json.loads(stdout) if stdout.strip() else {}
    out = data.get("hookSpecificOutput", {})
    return str(out.get("additionalContext") or out.get("permissionDecisionReason") or data.get("reason") or "")


def _agent(repo: Repo) -> str:
    (found,) = repo.grid.glob("events/cursors/sessions/claude-*.json")
    return str(json.loads(found.read_text(encoding="utf-8"))["agent_id"])


def _run_told(repo: Repo, line: str, **values: str) -> None:
    """Run LINE (a command told to the model) as its shell would, placeholders filled with VALUES."""
    words = [values.get(w, w) for w in shlex.split(line)]
    done = run(shlex.join(words), "", repo.path)  # no GRID_AGENT_ID: the agent is who the command names
    assert done.returncode == 0, f"{line}: {done.stderr}"


def test_the_commands_told_to_a_session_agent_run_as_it(repo: Repo) -> None:
    repo.gridgit("setup", "claude")
    hook(repo, "claude", "session-start", repo.path, SESSION)
    me = _agent(repo)
    sent = repo.gridgit_json("send", "--to", me, "--content", "Read the plan", agent="executor-002")
    told = _said(hook(repo, "claude", "prompt", repo.path, SESSION).stdout)
    (ack,) = [c for c in SPOKEN.findall(told) if c.startswith("gridgit ack")]
    assert ack == f"gridgit ack {sent['id']} --agent {me}"
    _run_told(repo, ack)
    assert me in json.loads(repo.gridgit("thread", sent["id"], "--json").stdout)["data"][0]["acks"]

    pad = repo.grid / "phases" / "01-foundation" / "scratchpad.md"
    refused = _said(hook(repo, "claude", "before-edit", repo.path, SESSION, file=str(pad)).stdout)
    (write, resolve) = SPOKEN.findall(refused)
    _run_told(repo, write, CATEGORY="discovery", TOPIC="parser", TEXT="Found: the parser is fine")
    assert repo.gridgit_json("read", "--topic", "parser")[0]["agent_id"] == me
    assert resolve == f"gridgit resolve ID --agent {me}"

    budget = _said(hook(repo, "claude", "before-edit", repo.path, SESSION, file=str(repo.grid / "budget.json")).stdout)
    (add, _show) = SPOKEN.findall(budget)
    _run_told(repo, add, N="10")


def test_an_agent_named_by_grid_agent_id_is_not_named_again(repo: Repo) -> None:
    repo.gridgit("setup", "claude")
    hook(repo, "claude", "session-start", repo.path, SESSION, GRID_AGENT_ID="executor-001")
    repo.gridgit("send", "--to", "executor-001", "--content", "hi", agent="executor-002")
    told = _said(hook(repo, "claude", "prompt", repo.path, SESSION, GRID_AGENT_ID="executor-001").stdout)
    assert "gridgit ack " in told and "--agent" not in told


def test_the_session_shell_learns_its_agent_from_the_env_file(repo: Repo, tmp_path: Path) -> None:
    repo.gridgit("setup", "claude")
    env_file = tmp_path / "claude-env"
    env_file.write_text("export EARLIER=1\n", encoding="utf-8")
    hook(repo, "claude", "session-start", repo.path, SESSION, CLAUDE_ENV_FILE=str(env_file))
    assert env_file.read_text(encoding="utf-8") == f"export EARLIER=1\nexport GRID_AGENT_ID={_agent(repo)}\n"
    other = tmp_path / "codex-env"
    hook(repo, "claude", "session-start", repo.path, "other", CODEX_ENV_FILE=str(other), GRID_AGENT_ID="executor-001")
    assert not other.exists()  # GRID_AGENT_ID named it: the shell has it already
