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


# write_file's result for a file it made (google-gemini/gemini-cli packages/core/src/tools/write-file.ts:
# "Successfully created and wrote to new file: PATH.", where an existing one is "Successfully overwrote file").
NEW_FILE = "created and wrote to new file"


def edits(payload: dict[str, Any]) -> list[Edit]:
    response = payload.get("tool_response")
    said = response.get("llmContent") if isinstance(response, dict) else None
    return file_paths(payload.get("tool_input"), created=isinstance(said, str) and NEW_FILE in said)


TOOL = Tool(name="gemini", title="Gemini CLI", config=".gemini/settings.json", edits=edits, entry=entry)
