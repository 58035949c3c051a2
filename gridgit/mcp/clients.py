"""Where each agent tool keeps its project's MCP servers, and gridgit's entry there (`gridgit setup TOOL --mcp`).

Claude Code `.mcp.json`, Gemini CLI `.gemini/settings.json` and Cursor `.cursor/mcp.json`
hold JSON `mcpServers`; OpenAI Codex `.codex/config.toml` holds a TOML `[mcp_servers.NAME]`
table. The entry runs `python -m gridgit mcp` with the interpreter gridgit was installed
with (as the git hooks do), so it works without gridgit on the tool's PATH. Everything
else in the file is the user's and stays as it is; an entry named `gridgit` that is not
gridgit's is kept. No MCP SDK here: the setup command imports this module.
"""

from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gridgit.coordination.agents import check_agent_id
from gridgit.errors import BadInput
from gridgit.store import fileio

NAME = "gridgit"
ARGS = ["-m", "gridgit", "mcp"]


@dataclass(frozen=True)
class Target:
    """TOOL's project file for MCP servers (relative to the work tree) and the server arguments it needs."""

    tool: str
    path: str
    extra_args: tuple[str, ...] = ()


TARGETS = {
    "claude": Target("claude", ".mcp.json"),
    "codex": Target("codex", ".codex/config.toml"),
    "gemini": Target("gemini", ".gemini/settings.json"),
    # Cursor may start a server outside the project: name the project with its own variable.
    "cursor": Target("cursor", ".cursor/mcp.json", ("--repo", "${workspaceFolder}")),
}


@dataclass
class Result:
    """What a set-up or removal did to one file."""

    path: str
    changed: bool = False
    kept: bool = False  # an entry named gridgit that is the user's own: left alone
    installed: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "changed": self.changed, "kept": self.kept, "installed": self.installed}


def target(tool: str) -> Target:
    if tool not in TARGETS:
        raise BadInput(f"unknown agent tool {tool!r} (one of: {', '.join(TARGETS)})")
    return TARGETS[tool]


def entry(tool: str, agent: str | None = None, python: str | None = None) -> dict[str, Any]:
    """gridgit's server entry for TOOL; AGENT becomes the server's GRID_AGENT_ID."""
    value: dict[str, Any] = {"command": python or sys.executable, "args": [*ARGS, *target(tool).extra_args]}
    if agent:
        check_agent_id(agent)
        value["env"] = {"GRID_AGENT_ID": agent}
    return value


def is_ours(value: Any) -> bool:
    """An entry that runs `python -m gridgit mcp` (any interpreter, any version of its arguments)."""
    return isinstance(value, dict) and isinstance(value.get("args"), list) and value["args"][:3] == ARGS


def install(root: Path, tool: str, agent: str | None = None, python: str | None = None) -> Result:
    """Put gridgit's server into TOOL's project MCP config under ROOT (created when missing)."""
    path = root / target(tool).path
    wanted = entry(tool, agent, python)
    if tool == "codex":
        return _toml_install(path, wanted)
    doc, text = _load_json(path)
    servers = doc.setdefault("mcpServers", {})
    if not isinstance(servers, dict):
        raise BadInput(f"{path}: `mcpServers` must be a mapping to add gridgit's server; nothing written")
    current = servers.get(NAME)
    result = Result(str(path), installed=True)
    if current is not None and not is_ours(current):
        return Result(str(path), kept=True)
    if current != wanted:
        servers[NAME] = wanted
        _write_json(path, doc, text)
        result.changed = True
    return result


def remove(root: Path, tool: str) -> Result:
    """Take gridgit's server out of TOOL's project MCP config (a file left empty goes)."""
    path = root / target(tool).path
    if tool == "codex":
        return _toml_remove(path)
    result = Result(str(path))
    if not path.exists():
        return result
    doc, text = _load_json(path)
    servers = doc.get("mcpServers")
    if not isinstance(servers, dict) or not is_ours(servers.get(NAME)):
        result.kept = isinstance(servers, dict) and NAME in servers
        return result
    del servers[NAME]
    if not servers:
        del doc["mcpServers"]
    if doc:
        _write_json(path, doc, text)
    else:
        path.unlink()
    result.changed = True
    return result


# ---- JSON -----------------------------------------------------------------------------------


def _load_json(path: Path) -> tuple[dict[str, Any], str]:
    if not path.exists() and not path.is_symlink():
        return {}, ""
    text = fileio.read_text(path)
    try:
        doc = json.loads(text) if text.strip() else {}
    except json.JSONDecodeError as exc:
        raise BadInput(
            f"{path} line {exc.lineno} column {exc.colno}: not valid JSON ({exc.msg}); nothing written"
        ) from None
    if not isinstance(doc, dict):
        raise BadInput(f"{path}: expected a JSON object, not {type(doc).__name__}; nothing written")
    return doc, text


def _write_json(path: Path, doc: dict[str, Any], old_text: str) -> None:
    """DOC in the indentation PATH was written with (two spaces for a new file)."""
    found = re.search(r"\n([ \t]+)\S", old_text)
    indent: int | str = 2 if found is None else (found.group(1) if "\t" in found.group(1) else len(found.group(1)))
    path.parent.mkdir(parents=True, exist_ok=True)
    fileio.atomic_write(path, json.dumps(doc, indent=indent, ensure_ascii=False) + "\n")


# ---- TOML (Codex) -----------------------------------------------------------------------------

_HEADER = re.compile(r"^\s*\[\s*mcp_servers\s*\.\s*(?:gridgit|\"gridgit\")\s*(\.[^\]]*)?\]\s*(?:#.*)?$")
_ANY_HEADER = re.compile(r"^\s*\[")


def _toml_block(value: dict[str, Any]) -> list[str]:
    # JSON's string and array syntax is TOML's for these values (ASCII escapes, no newlines).
    lines = [
        f"[mcp_servers.{NAME}]",
        f"command = {json.dumps(value['command'])}",
        f"args = {json.dumps(value['args'])}",
    ]
    if "env" in value:
        pairs = ", ".join(f"{k} = {json.dumps(v)}" for k, v in value["env"].items())
        lines.append(f"env = {{ {pairs} }}")
    return lines


def _toml_span(lines: list[str]) -> tuple[int, int] | None:
    """The lines of the `[mcp_servers.gridgit]` table and its sub-tables: (start, end), or None."""
    start = next((i for i, line in enumerate(lines) if _HEADER.match(line)), None)
    if start is None:
        return None
    end = start + 1
    while end < len(lines) and not (_ANY_HEADER.match(lines[end]) and not _HEADER.match(lines[end])):
        end += 1
    while end > start + 1 and not lines[end - 1].strip():
        end -= 1  # the blank lines before the next table are not ours
    return start, end


def _toml_value(path: Path, text: str) -> Any:
    """mcp_servers.gridgit as TOML reads it (None when absent); a file that is not TOML is bad input."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10: no TOML reader to check the result with
        raise BadInput(f"{path}: editing Codex's config.toml needs Python 3.11 or later") from None

    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise BadInput(f"{path}: not valid TOML ({exc}); nothing written") from None
    servers = doc.get("mcp_servers")
    return servers.get(NAME) if isinstance(servers, dict) else None


def _toml_install(path: Path, wanted: dict[str, Any]) -> Result:
    text = fileio.read_text(path) if path.exists() or path.is_symlink() else ""
    current = _toml_value(path, text)
    if current is not None and not is_ours(current):
        return Result(str(path), kept=True)
    result = Result(str(path), installed=True)
    if current == wanted:
        return result
    lines = text.splitlines()
    span = _toml_span(lines)
    if span is None and current is not None:
        raise BadInput(f"{path}: gridgit's server is not a [mcp_servers.{NAME}] table; edit it by hand")
    if span is None:
        new = [*lines, *([""] if lines and lines[-1].strip() else []), *_toml_block(wanted)]
    else:
        new = [*lines[: span[0]], *_toml_block(wanted), *lines[span[1] :]]
    new_text = "\n".join(new) + "\n"
    if _toml_value(path, new_text) != wanted:
        raise BadInput(f"{path}: could not write gridgit's server into it; edit it by hand")
    path.parent.mkdir(parents=True, exist_ok=True)
    fileio.atomic_write(path, new_text)
    result.changed = True
    return result


def _toml_remove(path: Path) -> Result:
    result = Result(str(path))
    if not path.exists():
        return result
    text = fileio.read_text(path)
    current = _toml_value(path, text)
    if not is_ours(current):
        result.kept = current is not None
        return result
    lines = text.splitlines()
    span = _toml_span(lines)
    if span is None:
        raise BadInput(f"{path}: gridgit's server is not a [mcp_servers.{NAME}] table; edit it by hand")
    left = [*lines[: span[0]], *lines[span[1] :]]
    while left and not left[-1].strip():
        left.pop()
    if any(line.strip() for line in left):
        fileio.atomic_write(path, "\n".join(left) + "\n")
    else:
        path.unlink()
    result.changed = True
    return result
