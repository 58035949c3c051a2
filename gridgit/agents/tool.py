"""What every agent tool's module provides, and the pieces they share.

A tool module (claude, codex, gemini, cursor) says where its project config lives, which of
its events run which of gridgit's (`EVENTS`), how to find the files an edit touched in its
payload, and how to say gridgit's answer in the channel its model reads (`render`).
"""

from __future__ import annotations

import importlib
import json
import sys
from collections.abc import Callable
from typing import Any, NamedTuple

# gridgit's events, whatever the tool calls them.
EVENTS = ("session-start", "prompt", "before-edit", "after-edit", "end")
TOOLS = ("claude", "codex", "gemini", "cursor")
# Every command gridgit writes into a tool's config runs this module: how gridgit finds its own entries.
MODULE = "gridgit.agents"
MAX_STDIN = 16 * 1024 * 1024  # a Write of a large file carries its content: beyond this, skip


class Skip(Exception):
    """The payload cannot be used (bad JSON, a missing field): one warning line, nothing written."""


class Edit(NamedTuple):
    """One file an edit touched, as the tool named it (absolute, or relative to the payload's cwd)."""

    path: str
    operation: str = "modified"
    old_path: str | None = None


class Reply(NamedTuple):
    """gridgit's answer to one hook call, before the tool's module says it in the tool's format."""

    context: str = ""  # for the model: the context pack, the inbox
    conflict: str = ""  # for the model, after an edit
    decision: str | None = None  # before an edit: ask or deny (None: go ahead)
    reason: str = ""


class Hook(NamedTuple):
    """NATIVE (the tool's event name, with MATCHER where it filters tools) runs gridgit's EVENT."""

    native: str
    event: str
    matcher: str | None = None


class Tool(NamedTuple):
    """One agent tool (NamedTuples, not dataclasses: a hook creates them on every run, and start-up counts)."""

    name: str
    title: str
    config: str  # the project config file, relative to the work tree
    hooks: tuple[Hook, ...]
    render: Callable[[str, Reply], tuple[str, int]]
    edits: Callable[[dict[str, Any]], list[Edit]]
    entry: Callable[[Hook, str], Any]  # one config entry for HOOK running COMMAND
    session_keys: tuple[str, ...] = ("session_id",)
    context_limit: int = 10_000  # characters of context a hook may print
    tells_after_edit: bool = True  # False: the next prompt event carries the conflict message
    # The after-edit answer can add context for the model without replacing the tool's result:
    # urgent inbox items are told there, mid-turn (gridgit.coordination.inbox, urgent).
    mid_turn: bool = False
    # The end (stop) hook can keep the agent going with a reason: unacknowledged messages wake it.
    wakes: bool = False
    silent: str = ""  # what stdout says when gridgit has nothing to say (JSON-only tools: "{}")
    docs: tuple[str, ...] = ()

    def command(self, event: str, python: str | None = None) -> str:
        return command(f"{self.name} {event}", python)


def command(args: str, python: str | None = None) -> str:
    """The shell command that runs `python -m gridgit.agents ARGS` with the interpreter gridgit was
    installed with (PYTHON, default this one), as the git hook shims do; python3 when it is gone."""
    import shlex

    py = shlex.quote(python or sys.executable)
    return f'py={py}; [ -x "$py" ] || py=python3; "$py" -m {MODULE} {args}'


def load(name: str) -> Tool:
    """The module of tool NAME (imported on demand: a hook loads only its own tool)."""
    if name not in TOOLS:
        raise Skip(f"unknown agent tool {name!r} (one of: {', '.join(TOOLS)})")
    tool: Tool = importlib.import_module(f"{MODULE}.{name}").TOOL
    return tool


def is_ours(command: Any) -> bool:
    return isinstance(command, str) and f" -m {MODULE} " in command


def file_paths(tool_input: Any, keys: tuple[str, ...] = ("file_path", "notebook_path", "path")) -> list[Edit]:
    """The file a tool's input names under one of KEYS (the first that is a non-empty string)."""
    if not isinstance(tool_input, dict):
        return []
    for key in keys:
        value = tool_input.get(key)
        if isinstance(value, str) and value.strip():
            return [Edit(value)]
    return []


def as_json(data: dict[str, Any]) -> str:
    return json.dumps(data, ensure_ascii=False)


def read_payload(stream: Any) -> dict[str, Any]:
    """The JSON object on STREAM (bytes), or Skip."""
    if stream is None or (hasattr(stream, "isatty") and stream.isatty()):
        raise Skip("no JSON payload on stdin")
    data = stream.read(MAX_STDIN + 1)
    if len(data) > MAX_STDIN:
        raise Skip(f"payload larger than {MAX_STDIN // (1024 * 1024)} MiB: skipped")
    if not data.strip():
        raise Skip("empty payload on stdin")
    try:
        payload = json.loads(data.decode("utf-8", "surrogateescape"))
    except ValueError as exc:
        raise Skip(f"payload is not JSON ({exc})") from None
    if not isinstance(payload, dict):
        raise Skip(f"payload is a JSON {type(payload).__name__}, not an object")
    return payload
