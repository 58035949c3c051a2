"""Cursor: hooks in `.cursor/hooks.json` (`version: 1`).

Documented at https://cursor.com/docs/hooks; what each event can say is in
gridgit.agents.capabilities. A hook entry is one `{"command", "timeout", "matcher"}` object;
timeouts are seconds. Edits are the `Write` tool (preToolUse and postToolUse match it), whose
`tool_input.file_path` names the file. The session id is `conversation_id`; the repository
is `workspace_roots[0]`. Cursor has no event before each prompt that can add context, so
what is new for the agent rides on postToolUse after its edits.
"""

from __future__ import annotations

from gridgit.agents.tool import Edit, Hook, Tool, file_paths

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

TIMEOUT_SECONDS = 15


def entry(hook: Hook, command: str) -> dict[str, Any]:
    item: dict[str, Any] = {"command": command, "timeout": TIMEOUT_SECONDS}
    if hook.matcher:
        item["matcher"] = hook.matcher
    return item


def edits(payload: dict[str, Any]) -> list[Edit]:
    return file_paths(payload.get("tool_input"), ("file_path", "path", "target_file"))


TOOL = Tool(name="cursor", title="Cursor", config=".cursor/hooks.json", edits=edits, entry=entry, config_version=1)
