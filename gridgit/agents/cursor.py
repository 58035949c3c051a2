"""Cursor: hooks in `.cursor/hooks.json` (`version: 1`).

Documented at https://cursor.com/docs/hooks. Hooks answer in JSON. sessionStart and
postToolUse add `additional_context` to the conversation; preToolUse answers with
`permission` (allow, deny, ask) and an `agent_message`; afterFileEdit's answer reaches
nobody, so a conflict found after an edit is told by the next postToolUse. The session id
is `conversation_id`; the repository is `workspace_roots[0]`.
"""

from __future__ import annotations

from typing import Any

from gridgit.agents.tool import Edit, Hook, Reply, Tool, as_json, file_paths

HOOKS = (
    Hook("sessionStart", "session-start"),
    Hook("postToolUse", "prompt"),
    Hook("preToolUse", "before-edit", "Write"),
    Hook("afterFileEdit", "after-edit"),
    Hook("stop", "end"),
)
TIMEOUT_SECONDS = 15


def entry(hook: Hook, command: str) -> dict[str, Any]:
    item: dict[str, Any] = {"command": command, "timeout": TIMEOUT_SECONDS}
    if hook.matcher:
        item["matcher"] = hook.matcher
    return item


def edits(payload: dict[str, Any]) -> list[Edit]:
    found = file_paths(payload)  # afterFileEdit names the file at the top level
    return found or file_paths(payload.get("tool_input"), ("file_path", "path", "target_file"))


def render(event: str, reply: Reply) -> tuple[str, int]:
    if event in ("session-start", "prompt") and reply.context:
        return as_json({"additional_context": reply.context}), 0
    if event == "before-edit" and reply.decision:
        return as_json({"permission": reply.decision, "user_message": reply.reason, "agent_message": reply.reason}), 0
    return "{}", 0


TOOL = Tool(
    name="cursor",
    title="Cursor",
    config=".cursor/hooks.json",
    hooks=HOOKS,
    render=render,
    edits=edits,
    entry=entry,
    session_keys=("conversation_id", "session_id"),
    tells_after_edit=False,
    silent="{}",
    docs=("https://cursor.com/docs/hooks",),
)
