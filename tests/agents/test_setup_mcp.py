"""`gridgit setup TOOL --mcp`: gridgit's MCP server in the tool's project MCP config, next to the user's servers;
checked, twice is once, removed byte for byte with the hooks, and the entry written runs a working server."""

from __future__ import annotations

import json
import sys
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10 (CI runs these tests there too): the backport gridgit depends on
    import tomli as tomllib

from gridgit.agents import mcpconfig
from tests.agents.helpers import CONFIG
from tests.conftest import Repo

MCP_FILE = {"claude": ".mcp.json", "gemini": ".gemini/settings.json", "cursor": ".cursor/mcp.json"}
THEIRS = {"mcpServers": {"docs": {"command": "npx", "args": ["-y", "docs-mcp"]}}, "theme": "dark"}
CODEX = 'model = "o4-mini"\n\n[mcp_servers.docs]\ncommand = "npx"\nargs = ["-y", "docs-mcp"]\n\n[profiles.fast]\nmodel = "o4-mini"\n'


def put(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def server_of(repo: Repo, tool: str) -> Any:
    path = repo.path / mcpconfig.FILES[tool]
    if tool == "codex":
        return tomllib.loads(path.read_text(encoding="utf-8"))["mcp_servers"]["gridgit"]
    return json.loads(path.read_text(encoding="utf-8"))["mcpServers"]["gridgit"]


@pytest.mark.parametrize("tool", sorted(MCP_FILE))
def test_the_server_goes_next_to_the_users_own_and_out_again(bare_repo: Repo, tool: str) -> None:
    path = bare_repo.path / MCP_FILE[tool]
    original = json.dumps(THEIRS, indent=4) + "\n"
    put(path, original)
    assert bare_repo.gridgit("setup", tool, "--mcp", "--check", check=False).returncode == 1

    bare_repo.gridgit("setup", tool, "--mcp", "--agent", "executor-001")
    doc = json.loads(path.read_text(encoding="utf-8"))
    assert doc["theme"] == "dark" and doc["mcpServers"]["docs"] == THEIRS["mcpServers"]["docs"]
    extra = ["--repo", "${workspaceFolder}"] if tool == "cursor" else []
    assert doc["mcpServers"]["gridgit"] == {
        "command": "gridgit", "args": ["mcp", *extra], "env": {"GRID_AGENT_ID": "executor-001"},
    }  # fmt: skip
    assert (bare_repo.path / CONFIG[tool]).exists()  # the hooks came too
    assert bare_repo.gridgit("setup", tool, "--mcp", "--check", "--agent", "executor-001").returncode == 0
    once = path.read_bytes()
    again = bare_repo.gridgit_json("setup", tool, "--mcp", "--agent", "executor-001")
    assert not any(r["changed"] for r in again) and path.read_bytes() == once

    bare_repo.gridgit("setup", tool, "--remove")
    assert path.read_text(encoding="utf-8") == original
    assert tool == "gemini" or not (bare_repo.path / CONFIG[tool]).exists()


def test_codex_gets_a_toml_table_and_loses_it_byte_for_byte(bare_repo: Repo) -> None:
    path = bare_repo.path / ".codex" / "config.toml"
    put(path, CODEX)
    bare_repo.gridgit("setup", "codex", "--mcp")
    assert server_of(bare_repo, "codex") == {"command": "gridgit", "args": ["mcp"]}
    doc = tomllib.loads(path.read_text(encoding="utf-8"))
    assert doc["mcp_servers"]["docs"] == {"command": "npx", "args": ["-y", "docs-mcp"]} and doc["model"] == "o4-mini"
    assert bare_repo.gridgit("setup", "codex", "--mcp", "--check").returncode == 0
    bare_repo.gridgit("setup", "codex", "--remove")
    assert path.read_text(encoding="utf-8") == CODEX


def test_codex_replaces_an_older_table_in_place_and_keeps_the_users_own(bare_repo: Repo) -> None:
    path = bare_repo.path / ".codex" / "config.toml"
    rest = '\n\n[profiles.fast]\nmodel = "x"\n'
    put(path, '[mcp_servers.gridgit]\ncommand = "/old/python"\nargs = ["-m", "gridgit", "mcp"]\n\n'
        '[mcp_servers.gridgit.env]\nGRID_AGENT_ID = "executor-001"' + rest)  # fmt: skip
    bare_repo.gridgit("setup", "codex", "--mcp", "--agent", "executor-002")
    text = path.read_text(encoding="utf-8")
    assert text.endswith(rest) and "/old/python" not in text
    assert server_of(bare_repo, "codex")["env"] == {"GRID_AGENT_ID": "executor-002"}
    theirs = '[mcp_servers.gridgit]\ncommand = "gridgit-fork"\n'
    put(path, theirs)
    assert "kept your own mcp_servers.gridgit" in bare_repo.gridgit("setup", "codex", "--mcp").stdout
    assert bare_repo.gridgit("setup", "codex", "--mcp", "--check").returncode == 0  # theirs stands, as for hooks
    bare_repo.gridgit("setup", "codex", "--remove")
    assert path.read_text(encoding="utf-8") == theirs


def test_the_users_own_gridgit_server_is_kept(bare_repo: Repo) -> None:
    path = bare_repo.path / ".mcp.json"
    put(path, json.dumps({"mcpServers": {"gridgit": {"command": "/opt/gridgit-fork", "args": ["serve-mcp"]}}}))
    before = path.read_bytes()
    assert "kept your own mcpServers.gridgit" in bare_repo.gridgit("setup", "claude", "--mcp").stdout
    assert "kept your own mcpServers.gridgit" in bare_repo.gridgit("setup", "claude", "--mcp", "--check").stdout
    bare_repo.gridgit("setup", "claude", "--remove")
    assert path.read_bytes() == before


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--agent", "executor-001"], "--agent goes with --mcp"),
        (["--mcp", "--local"], "--mcp writes the project's MCP config"),
        (["--mcp", "--agent", "nobody"], "invalid agent id 'nobody'"),
    ],
)
def test_bad_options_are_refused_and_nothing_written(bare_repo: Repo, args: list[str], message: str) -> None:
    proc = bare_repo.gridgit("setup", "claude", *args, check=False)
    assert proc.returncode == 1 and message in proc.stderr
    assert not (bare_repo.path / ".mcp.json").exists() and not (bare_repo.path / ".claude").exists()


def test_a_toml_config_that_is_not_toml_is_refused(bare_repo: Repo) -> None:
    path = bare_repo.path / ".codex" / "config.toml"
    put(path, "model = [")
    proc = bare_repo.gridgit("setup", "codex", "--mcp", check=False)
    assert proc.returncode == 1 and "not valid TOML" in proc.stderr
    assert path.read_text(encoding="utf-8") == "model = ["


def test_the_entry_written_runs_a_working_server(repo: Repo, tmp_path: Path) -> None:
    """Start the server exactly as Claude Code would from .mcp.json, and call it with the SDK's client."""
    from tests.mcp.conftest import connect, server_env

    repo.gridgit("setup", "claude", "--mcp", "--agent", "executor-004")
    server = server_of(repo, "claude")
    with ExitStack() as stack:
        argv = [server["command"], *server["args"]]
        client = connect(stack, repo.path, {**server_env(agent=None), **server["env"]}, tmp_path / "err", argv=argv)
        assert client.data("heartbeat", progress=5, action="configured by setup")["agent"] == "executor-004"


@pytest.mark.parametrize("tool", ["claude", "codex"])
def test_files_gridgit_created_go_again(bare_repo: Repo, tool: str) -> None:
    bare_repo.gridgit("setup", tool, "--mcp")
    assert server_of(bare_repo, tool) == {"command": "gridgit", "args": ["mcp"]}
    bare_repo.gridgit("setup", tool, "--remove")
    assert not (bare_repo.path / mcpconfig.FILES[tool]).exists()
    assert tool == "claude" or not (bare_repo.path / ".codex").exists()
