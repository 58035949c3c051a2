"""gridgit's server in each agent tool's project MCP config: added next to the user's own, taken out again,
and the entry written runs a working server."""

from __future__ import annotations

import json
import sys
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
import tomllib

from gridgit.errors import BadInput
from gridgit.mcp import clients
from tests.conftest import Repo
from tests.mcp.conftest import connect, server_env

JSON_TOOLS = {"claude": ".mcp.json", "gemini": ".gemini/settings.json", "cursor": ".cursor/mcp.json"}
THEIRS = {"mcpServers": {"docs": {"command": "npx", "args": ["-y", "docs-mcp"]}}, "theme": "dark"}


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


@pytest.mark.parametrize("tool", sorted(JSON_TOOLS))
def test_json_config_gets_the_server_next_to_the_users_own(tmp_path: Path, tool: str) -> None:
    path = tmp_path / JSON_TOOLS[tool]
    write(path, json.dumps(THEIRS, indent=4) + "\n")
    result = clients.install(tmp_path, tool, agent="executor-001")
    assert (result.changed, result.installed, result.kept) == (True, True, False)
    doc = json.loads(path.read_text(encoding="utf-8"))
    ours = doc["mcpServers"].pop("gridgit")
    assert doc == THEIRS
    extra = ["--repo", "${workspaceFolder}"] if tool == "cursor" else []
    assert ours == {
        "command": sys.executable,
        "args": ["-m", "gridgit", "mcp", *extra],
        "env": {"GRID_AGENT_ID": "executor-001"},
    }
    assert '\n    "mcpServers"' in path.read_text(encoding="utf-8")  # the file's own indentation
    assert clients.install(tmp_path, tool, agent="executor-001").changed is False  # twice is once
    assert clients.remove(tmp_path, tool).changed is True
    assert json.loads(path.read_text(encoding="utf-8")) == THEIRS
    assert clients.remove(tmp_path, tool).changed is False


def test_a_new_file_is_created_and_removed_again(tmp_path: Path) -> None:
    path = tmp_path / ".cursor" / "mcp.json"
    assert clients.install(tmp_path, "cursor").changed is True
    assert "env" not in json.loads(path.read_text(encoding="utf-8"))["mcpServers"]["gridgit"]
    clients.remove(tmp_path, "cursor")
    assert not path.exists()


def test_the_users_own_gridgit_entry_is_kept(tmp_path: Path) -> None:
    path = tmp_path / ".mcp.json"
    mine = {"mcpServers": {"gridgit": {"command": "/opt/gridgit-fork", "args": ["serve-mcp"]}}}
    write(path, json.dumps(mine))
    before = path.read_bytes()
    assert clients.install(tmp_path, "claude").kept is True
    assert clients.remove(tmp_path, "claude").kept is True
    assert path.read_bytes() == before


@pytest.mark.parametrize(
    ("text", "message"),
    [("{not json", "line 1 column 2: not valid JSON"), ("[1, 2]", "expected a JSON object, not list")],
)
def test_a_config_that_is_not_a_json_object_is_refused(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / ".gemini" / "settings.json"
    write(path, text)
    with pytest.raises(BadInput, match=message):
        clients.install(tmp_path, "gemini")
    assert path.read_text(encoding="utf-8") == text


def test_a_bad_agent_id_or_tool_is_refused(tmp_path: Path) -> None:
    with pytest.raises(BadInput, match="invalid agent id"):
        clients.install(tmp_path, "claude", agent="nobody")
    with pytest.raises(BadInput, match="unknown agent tool 'vim'"):
        clients.install(tmp_path, "vim")
    assert not (tmp_path / ".mcp.json").exists()


CODEX = """model = "o4-mini"

[mcp_servers.docs]
command = "npx"
args = ["-y", "docs-mcp"]

[profiles.fast]
model = "o4-mini"
"""


def test_codex_toml_gets_a_table_and_loses_it_again(tmp_path: Path) -> None:
    path = tmp_path / ".codex" / "config.toml"
    write(path, CODEX)
    assert clients.install(tmp_path, "codex", agent="executor-002").changed is True
    doc = tomllib.loads(path.read_text(encoding="utf-8"))
    assert doc["mcp_servers"]["gridgit"] == clients.entry("codex", "executor-002")
    assert doc["mcp_servers"]["docs"] == {"command": "npx", "args": ["-y", "docs-mcp"]}
    assert doc["profiles"] == {"fast": {"model": "o4-mini"}} and doc["model"] == "o4-mini"
    assert clients.install(tmp_path, "codex", agent="executor-002").changed is False
    assert clients.remove(tmp_path, "codex").changed is True
    assert path.read_text(encoding="utf-8") == CODEX  # byte for byte


def test_codex_toml_replaces_an_older_entry_in_place(tmp_path: Path) -> None:
    path = tmp_path / ".codex" / "config.toml"
    old = '[mcp_servers.gridgit]\ncommand = "/old/python"\nargs = ["-m", "gridgit", "mcp"]\n\n[mcp_servers.gridgit.env]\nGRID_AGENT_ID = "executor-001"\n\n[profiles.fast]\nmodel = "x"\n'
    write(path, old)
    assert clients.install(tmp_path, "codex").changed is True
    text = path.read_text(encoding="utf-8")
    assert text.endswith('\n\n[profiles.fast]\nmodel = "x"\n') and "/old/python" not in text
    assert tomllib.loads(text)["mcp_servers"]["gridgit"] == clients.entry("codex")
    theirs = '[mcp_servers.gridgit]\ncommand = "gridgit-fork"\n'
    write(path, theirs)
    assert clients.install(tmp_path, "codex").kept is True and path.read_text(encoding="utf-8") == theirs
    write(path, "model = [")
    with pytest.raises(BadInput, match="not valid TOML"):
        clients.install(tmp_path, "codex")
    assert path.read_text(encoding="utf-8") == "model = ["


def test_the_entry_written_runs_a_working_server(repo: Repo, tmp_path: Path) -> None:
    """Start the server exactly as Claude Code would from .mcp.json, with the SDK's client."""
    clients.install(repo.path, "claude", agent="executor-004")
    server: dict[str, Any] = json.loads((repo.path / ".mcp.json").read_text(encoding="utf-8"))["mcpServers"]["gridgit"]
    env = {**server_env(agent=None), **server["env"]}
    with ExitStack() as stack:
        client = connect(stack, repo.path, env, tmp_path / "server.stderr", argv=[server["command"], *server["args"]])
        assert client.data("heartbeat", progress=5, action="configured by setup")["agent"] == "executor-004"
