"""Gemini CLI: hooks in `.gemini/settings.json`.

Documented at https://geminicli.com/docs/hooks/reference; what each event can say is in
gridgit.agents.capabilities (stdout must be JSON only, so "nothing to say" is `{}`). A hook
entry is a matcher group of named `{"name", "type": "command", "command", "timeout"}` hooks;
timeouts are milliseconds. Edits are the write_file and replace tools. Hooks run with a
sanitized environment: PATH passes, and so does GRID_AGENT_ID unless the redaction is strict.
"""

from __future__ import annotations

from gridgit.agents.tool import Edit, Hook, Tool, file_paths

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

TIMEOUT_MS = 15_000


def entry(hook: Hook, command: str) -> dict[str, Any]:
    group: dict[str, Any] = {"matcher": hook.matcher} if hook.matcher else {}
    config = {"name": f"gridgit-{hook.event}", "type": "command", "command": command, "timeout": TIMEOUT_MS}
    group["hooks"] = [config]
    return group


def edits(payload: dict[str, Any]) -> list[Edit]:
    return file_paths(payload.get("tool_input"))


TOOL = Tool(name="gemini", title="Gemini CLI", config=".gemini/settings.json", edits=edits, entry=entry)
