"""`gridgit setup TOOL --mcp`: gridgit's MCP server in the tool's project MCP config, next to the user's servers.

Claude Code `.mcp.json`, Gemini CLI `.gemini/settings.json` (its hooks' file too) and Cursor
`.cursor/mcp.json` list JSON `mcpServers`: gridgit's entry is one `KeyValue` there, merged,
removed and checked by gridgit.agents.jsonconfig like the hooks (in one go with them where
they share the file). OpenAI Codex keeps its servers in `.codex/config.toml`: one
`[mcp_servers.gridgit]` table (gridgit.agents.tomltable). The entry runs `gridgit mcp`, found
on PATH as the hooks find it, so the file can be committed; an entry named `gridgit` that runs
something else is the user's, kept.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from gridgit.agents import jsonconfig, setup, tomltable
from gridgit.agents.jsonconfig import KeyValue, Report
from gridgit.errors import BadInput
from gridgit.model.permissions import check_agent, check_agent_id
from gridgit.store import gitcmd
from gridgit.store.layout import Layout

NAME = "gridgit"
COMMAND = "gridgit"
ARGS = ["mcp"]
_EARLIER_ARGS = ["-m", "gridgit", "mcp"]  # what earlier versions wrote, with their interpreter
FILES = {
    "claude": ".mcp.json",
    "codex": ".codex/config.toml",
    "gemini": ".gemini/settings.json",
    "cursor": ".cursor/mcp.json",
}
# Cursor may start a server outside the project: name the project with its own variable.
EXTRA_ARGS = {"cursor": ["--repo", "${workspaceFolder}"]}
TOML_TABLE = ("mcp_servers", NAME)


def entry(tool: str, agent: str | None = None) -> dict[str, Any]:
    """gridgit's server entry for TOOL; AGENT becomes the server's GRID_AGENT_ID."""
    value: dict[str, Any] = {"command": COMMAND, "args": [*ARGS, *EXTRA_ARGS.get(tool, [])]}
    if agent:
        check_agent_id(agent)
        value["env"] = {"GRID_AGENT_ID": agent}
    return value


def is_ours(value: Any) -> bool:
    """An entry that runs `gridgit mcp` (or an earlier version's `PYTHON -m gridgit mcp`), whatever its arguments."""
    if not isinstance(value, dict) or not isinstance(value.get("args"), list):
        return False
    args = value["args"]
    return args[:3] == _EARLIER_ARGS or (value.get("command") == COMMAND and args[:1] == ARGS)


def part(tool: str, agent: str | None = None) -> KeyValue:
    return KeyValue(("mcpServers", NAME), entry(tool, agent), is_ours)


def shares_hooks_file(tool: str, hooks_config: str) -> bool:
    """The tool keeps its MCP servers in the file of its hooks (Gemini CLI): one merge for both."""
    return FILES[tool] == hooks_config


def install(layout: Layout, tool: str, agent: str | None = None) -> Report:
    """gridgit's server in TOOL's own MCP file (not for a tool whose hooks' file holds it)."""
    path = layout.root / FILES[tool]
    if tool == "codex":
        return tomltable.install(path, TOML_TABLE, entry(tool, agent), is_ours)
    return jsonconfig.install(path, [part(tool, agent)], _backup(layout, tool))


def remove(layout: Layout, tool: str) -> Report:
    path = layout.root / FILES[tool]
    if tool == "codex":
        return tomltable.remove(path, TOML_TABLE, is_ours)
    return jsonconfig.remove(path, [part(tool)], _backup(layout, tool))


def check(layout: Layout, tool: str, agent: str | None = None) -> Report:
    path = layout.root / FILES[tool]
    if tool == "codex":
        return tomltable.status(path, TOML_TABLE, entry(tool, agent), is_ours)
    return jsonconfig.status(path, [part(tool, agent)])


def _backup(layout: Layout, tool: str) -> Any:
    return jsonconfig.backup_path(gitcmd.git_dir(layout.root), layout.root, layout.root / FILES[tool])


# ---- with the hooks: what `gridgit setup TOOL --mcp` does ---------------------------------------


def setup_all(layout: Layout, tool: str, agent: str | None = None) -> list[Report]:
    """TOOL's hooks and gridgit's MCP server: a Report per file changed (one when they share it)."""
    if agent:
        check_agent(layout, agent)  # a bad agent id is refused before anything is written
    problem = cannot_start()
    if problem:
        raise BadInput(f"gridgit's MCP server could not start: {problem}; nothing written")
    server = part(tool, agent)
    if shares_hooks_file(tool, setup.load_or_bad_input(tool).config):
        return [setup.install(layout, tool, extra=[server])]
    return [setup.install(layout, tool), install(layout, tool, agent)]


def cannot_start() -> str | None:
    """Why this interpreter (asked without a subprocess) cannot start gridgit's MCP server."""
    import importlib.util

    if importlib.util.find_spec("mcp") is None:
        return f"{sys.executable} has gridgit without the mcp extra (pip install 'gridgit[mcp]')"
    return None


def remove_all(layout: Layout, tool: str, local: bool = False) -> list[Report]:
    """Everything gridgit put in TOOL's config: its hooks and its MCP server."""
    if local or tool not in FILES:  # .claude/settings.local.json holds no MCP server; nor does a tool not in FILES
        return [setup.remove(layout, tool, local=local)]
    if shares_hooks_file(tool, setup.load_or_bad_input(tool).config):
        return [setup.remove(layout, tool, extra=[part(tool)])]
    return [setup.remove(layout, tool), remove(layout, tool)]


def check_all(layout: Layout, tool: str, agent: str | None = None) -> list[Report]:
    """TOOL's hooks and gridgit's MCP server as this gridgit writes them, and able to start (the extra there)."""
    if shares_hooks_file(tool, setup.load_or_bad_input(tool).config):
        reports = [setup.check(layout, tool, extra=[part(tool, agent)])]
    else:
        reports = [setup.check(layout, tool), check(layout, tool, agent)]
    server = reports[-1]
    problem = cannot_start() if f"mcpServers.{NAME}" not in server.missing else None
    if problem:
        server.installed = False
        server.outdated.append(f"the server cannot start: {problem}")
    return reports


def configured(layout: Layout, tool: str) -> dict[str, Any] | None:
    """gridgit's server entry as TOOL's MCP config holds it (None: it holds none)."""
    path = layout.root / FILES[tool]
    if not path.is_file():
        return None
    if tool == "codex":
        value = tomltable.value_of(path, TOML_TABLE)
    else:
        value = ((jsonconfig.load(path)[0] or {}).get("mcpServers") or {}).get(NAME)
    return value if is_ours(value) else None


def interpreter(command: str) -> str | None:
    """The Python that COMMAND runs: itself (an earlier version's `PYTHON -m gridgit mcp`), or the
    interpreter in the first line of the `gridgit` script PATH finds; None when neither tells."""
    import shutil

    found = shutil.which(command)
    if found is None or os.path.basename(found).startswith("python"):
        return found
    try:
        with open(found, "rb") as script:
            first = script.readline(1024).decode("utf-8", "replace")
    except OSError:
        return None
    words = first[2:].split() if first.startswith("#!") else []
    if words and os.path.basename(words[0]) == "env":
        words = words[1:]
    return shutil.which(words[0]) if words else None


def server_problem(command: str) -> str | None:
    """Why COMMAND cannot start gridgit's MCP server (not found, or its Python lacks gridgit or the mcp
    extra); None: it can, or its interpreter cannot be told. Asked without importing the SDK there."""
    import shutil
    import subprocess

    if shutil.which(command) is None:
        return f"{command} is not found on PATH (pip install 'gridgit[mcp]')"
    python = interpreter(command)
    if python is None:
        return None  # a launcher of another kind: only starting the server would tell
    probe = "import importlib.util as u, sys; sys.exit(3 if not u.find_spec('gridgit') else 4 if not u.find_spec('mcp') else 0)"
    try:
        code = subprocess.run([python, "-c", probe], capture_output=True, timeout=60).returncode
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"{python} does not run ({exc})"
    if code == 0:
        return None
    if code == 4:
        return f"{python} has gridgit without the mcp extra (pip install 'gridgit[mcp]')"
    return f"{python} cannot import gridgit"
