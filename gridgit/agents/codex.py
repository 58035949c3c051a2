"""OpenAI Codex CLI: hooks in `.codex/hooks.json`.

Documented at https://developers.openai.com/codex/hooks (schemas in openai/codex
codex-rs/hooks/schema); what each event can say is in gridgit.agents.capabilities. Hooks run
by default since Codex 0.124 (`[features] hooks`; older versions need `codex_hooks = true` in
config.toml). Entries are Claude Code's shape; timeouts are seconds. File edits are the
`apply_patch` tool, whose raw patch is `tool_input.command`: its `*** Add File:` /
`*** Update File:` / `*** Delete File:` / `*** Move to:` lines name the files. Codex runs
each hook only once the person trusted it: `gridgit setup codex` trusts gridgit's through
Codex's app server (gridgit.agents.codextrust).
"""

from __future__ import annotations

from gridgit.agents.claude import entry
from gridgit.agents.tool import Edit, Tool

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_HEADERS = {"*** Add File: ": "created", "*** Update File: ": "modified", "*** Delete File: ": "deleted"}


def patch_edits(patch: str) -> list[Edit]:
    """The files an apply_patch patch touches; an Update followed by `*** Move to:` is a move."""
    found: list[Edit] = []
    for line in patch.splitlines():
        if line.startswith("*** Move to: ") and found and found[-1].operation == "modified":
            old = found.pop()
            found.append(Edit(line[len("*** Move to: ") :].strip(), "moved", old.path))
            continue
        for header, operation in _HEADERS.items():
            if line.startswith(header) and line[len(header) :].strip():
                found.append(Edit(line[len(header) :].strip(), operation))
    return found


def edits(payload: dict[str, Any]) -> list[Edit]:
    tool_input = payload.get("tool_input")
    patch = tool_input.get("command") if isinstance(tool_input, dict) else tool_input
    return patch_edits(patch) if isinstance(patch, str) else []


# From a linked worktree Codex reads the main worktree's .codex/hooks.json (gridgit.agents.setup `_main_of`).
TOOL = Tool(
    name="codex", title="OpenAI Codex CLI", config=".codex/hooks.json", edits=edits, entry=entry, main_worktree=True
)
