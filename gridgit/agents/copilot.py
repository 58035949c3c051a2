"""GitHub Copilot CLI: hooks in `.github/hooks/gridgit.json`, a file of gridgit's own (`version: 1`).

Documented at https://docs.github.com/en/copilot/reference/hooks-reference: Copilot CLI loads
every `.github/hooks/*.json` of the repository, so gridgit's hooks live in a file of their own
next to the team's; what each event can say is in gridgit.agents.capabilities. gridgit uses
the camelCase event names, whose payloads are camelCase (`sessionId`, `toolName`,
`toolArgs`). A hook entry is one `{"type": "command", "bash", "timeoutSec", "matcher"}`
object; timeouts are seconds and the matcher is a regex on the tool's name. Edits are the
`create` and `edit` tools, whose `toolArgs.path` names the file (an older CLI sends
`toolArgs` as a JSON string).
"""

from __future__ import annotations

import json

from gridgit.agents.tool import Edit, Hook, Tool, file_paths

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

TIMEOUT_SECONDS = 15


def entry(hook: Hook, command: str) -> dict[str, Any]:
    item: dict[str, Any] = {"type": "command", "bash": command, "timeoutSec": TIMEOUT_SECONDS}
    if hook.matcher:
        item["matcher"] = hook.matcher
    return item


def edits(payload: dict[str, Any]) -> list[Edit]:
    args = payload.get("toolArgs")
    if isinstance(args, str):
        try:
            args = json.loads(args)
        except ValueError:
            return []
    return file_paths(args, ("path",), created=payload.get("toolName") == "create")  # `create` makes a new file


TOOL = Tool(
    name="copilot",
    title="GitHub Copilot CLI",
    config=".github/hooks/gridgit.json",
    edits=edits,
    entry=entry,
    config_version=1,
)
