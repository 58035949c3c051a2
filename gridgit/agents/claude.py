"""Claude Code: hooks in `.claude/settings.json` (or `settings.local.json`), and its status line.

Documented at https://code.claude.com/docs/en/hooks and https://code.claude.com/docs/en/statusline;
what each event can say is in gridgit.agents.capabilities. A hook entry is a matcher group of
`{"type": "command", "command", "timeout"}` hooks; timeouts are seconds. Edits are the Edit,
Write, MultiEdit and NotebookEdit tools, whose `tool_input` names the file.
"""

from __future__ import annotations

from gridgit.agents.tool import Edit, Hook, Tool, file_paths

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

TIMEOUT_SECONDS = 15


def entry(hook: Hook, command: str) -> dict[str, Any]:
    group: dict[str, Any] = {"matcher": hook.matcher} if hook.matcher else {}
    group["hooks"] = [{"type": "command", "command": command, "timeout": TIMEOUT_SECONDS}]
    return group


def edits(payload: dict[str, Any]) -> list[Edit]:
    # Write's PostToolUse `tool_response` says `"type": "create"` for a new file, `"update"` otherwise
    # (Claude Code 2.1.197, seen in its hook payloads: the hooks reference leaves tool_response's shape to each tool).
    response = payload.get("tool_response")
    created = isinstance(response, dict) and response.get("type") == "create"
    return file_paths(payload.get("tool_input"), created=created)


TOOL = Tool(name="claude", title="Claude Code", config=".claude/settings.json", edits=edits, entry=entry)
LOCAL_CONFIG = ".claude/settings.local.json"
