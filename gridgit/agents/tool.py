"""What every agent tool's module provides, and the pieces they share.

A tool module (claude, codex, gemini, cursor, copilot, opencode) says where its project config
lives, how one hook entry of it is written (or, for OpenCode, the plugin file that runs them),
and how to find the files an edit touched in its payload. Which of its events run which of
gridgit's, and how gridgit's answer is said, is the capability table
(gridgit.agents.capabilities).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from gridgit.agents import capabilities
from gridgit.agents.capabilities import EVENTS, TOOLS
from gridgit.agents.payload import Skip
from gridgit.store.record import FrozenRecord, Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["EVENTS", "TOOLS", "Edit", "Hook", "Skip", "Tool", "command", "file_paths", "is_ours", "load"]

MODULE = "gridgit.agents"
# The variable a machine may set (Claude Code: in .claude/settings.local.json) when gridgit is not on PATH.
BIN_VARIABLE = "GRIDGIT_BIN"
INSTALL = "pip install gridgit"


class Edit(FrozenRecord):
    """One file an edit touched, as the tool named it (absolute, or relative to the payload's cwd)."""

    FIELDS = ("path", "operation", "old_path")
    __slots__ = FIELDS

    def __init__(self, path: str, operation: str = "modified", old_path: str | None = None) -> None:
        self.path = path
        self.operation = operation
        self.old_path = old_path


class Hook(FrozenRecord):
    """NATIVE (the tool's event name, with MATCHER where it filters tools) runs gridgit's EVENT."""

    FIELDS = ("native", "event", "matcher")
    __slots__ = FIELDS

    def __init__(self, native: str, event: str, matcher: str | None = None) -> None:
        self.native = native
        self.event = event
        self.matcher = matcher


class Tool(Record):
    """One agent tool (a Record, not a dataclass: a hook creates them on every run, and start-up counts).

    CONFIG is its project config file, relative to the work tree; EDITS finds the files a
    payload's edit touched; ENTRY writes one config entry for a Hook running a command;
    CONTEXT_LIMIT is the characters of context a hook may print; CONFIG_VERSION the `version`
    its config file declares (Cursor's, Copilot CLI's). A tool whose hooks are a plugin
    (OpenCode) has PLUGIN: its whole config file's text, from its entries by native name.
    MAIN_WORKTREE: from a linked worktree the tool reads the hooks of the main worktree's CONFIG
    (Codex, gridgit.agents.setup `_main_of`), so setup in a linked worktree writes that one too.
    """

    FIELDS = ("name", "title", "config", "edits", "entry", "context_limit", "config_version", "plugin", "main_worktree")
    __slots__ = FIELDS

    def __init__(
        self,
        name: str,
        title: str,
        config: str,
        edits: Callable[[dict[str, Any]], list[Edit]],
        entry: Callable[[Hook, str], Any],
        context_limit: int = 10_000,
        config_version: int | None = None,
        plugin: Callable[[dict[str, Any]], str] | None = None,
        main_worktree: bool = False,
    ) -> None:
        self.name = name
        self.title = title
        self.config = config
        self.edits = edits
        self.entry = entry
        self.context_limit = context_limit
        self.config_version = config_version
        self.plugin = plugin
        self.main_worktree = main_worktree

    @property
    def hooks(self) -> tuple[Hook, ...]:
        return tuple(Hook(c.native, c.event, c.matcher) for c in capabilities.of(self.name))

    @property
    def docs(self) -> tuple[str, ...]:
        return capabilities.DOCS[self.name]

    def plugin_text(self) -> str:
        """The plugin file gridgit writes for a tool whose hooks are a plugin."""
        assert self.plugin is not None
        return self.plugin({hook.native: self.entry(hook, self.command(hook.event)) for hook in self.hooks})

    def command(self, event: str) -> str:
        cap = capabilities.get(self.name, event)
        return command(f"agent-hook {self.name} {event}", cap.silent if cap is not None else "")


def command(args: str, silent: str = "") -> str:
    """The shell command a tool's config runs: `gridgit ARGS`, found on PATH (or at $GRIDGIT_BIN).

    Nothing in it is of this machine, so the config can be committed for the team. Without
    gridgit it prints one line naming the install command and SILENT (what the tool reads as
    "nothing to say"), and exits 0: the agent's tool call goes on.
    """
    import shlex  # only setup writes commands: a hook never needs it

    said = f"; printf '%s\\n' {shlex.quote(silent)}" if silent else ""
    return (
        f'g=${{{BIN_VARIABLE}:-gridgit}}; command -v "$g" >/dev/null 2>&1 && exec "$g" {args}; '
        f'echo "gridgit: $g not found: {args} skipped ({INSTALL})" >&2{said}'
    )


def load(name: str) -> Tool:
    """The module of tool NAME (imported on demand: a hook loads only its own tool)."""
    if name not in TOOLS:
        raise Skip(f"unknown agent tool {name!r} (one of: {', '.join(TOOLS)})")
    tool: Tool = importlib.import_module(f"{MODULE}.{name}").TOOL
    return tool


def is_ours(command: Any) -> bool:
    """A command gridgit wrote: this version's (through $GRIDGIT_BIN) or an earlier one's (`-m gridgit.agents`)."""
    return isinstance(command, str) and (f"${{{BIN_VARIABLE}:-gridgit}}" in command or f" -m {MODULE} " in command)


def file_paths(
    tool_input: Any, keys: tuple[str, ...] = ("file_path", "notebook_path", "path"), created: bool = False
) -> list[Edit]:
    """The file a tool's input names under one of KEYS (the first that is a non-empty string); CREATED when the
    tool's own answer says the file is new (as git's pre-commit says `created` for a file HEAD does not have)."""
    if not isinstance(tool_input, dict):
        return []
    for key in keys:
        value = tool_input.get(key)
        if isinstance(value, str) and value.strip():
            return [Edit(value, "created" if created else "modified")]
    return []
