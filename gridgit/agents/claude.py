"""Claude Code: hooks in `.claude/settings.json` (or `settings.local.json`), and its status line.

Documented at https://code.claude.com/docs/en/hooks and https://code.claude.com/docs/en/statusline.
SessionStart and UserPromptSubmit add plain stdout to the model's context; PreToolUse answers
with `hookSpecificOutput.permissionDecision`; PostToolUse's `decision: block` gives its
`reason` to the model (the tool already ran: nothing is undone). Hook timeouts are seconds.
"""

from __future__ import annotations

from typing import Any

from gridgit.agents.tool import Edit, Hook, Reply, Tool, as_json, file_paths

EDIT_TOOLS = "Edit|Write|MultiEdit|NotebookEdit"
TIMEOUT_SECONDS = 15

HOOKS = (
    Hook("SessionStart", "session-start"),
    Hook("UserPromptSubmit", "prompt"),
    Hook("PreToolUse", "before-edit", EDIT_TOOLS),
    Hook("PostToolUse", "after-edit", EDIT_TOOLS),
    Hook("Stop", "end"),
)


def entry(hook: Hook, command: str) -> dict[str, Any]:
    group: dict[str, Any] = {"matcher": hook.matcher} if hook.matcher else {}
    group["hooks"] = [{"type": "command", "command": command, "timeout": TIMEOUT_SECONDS}]
    return group


def edits(payload: dict[str, Any]) -> list[Edit]:
    return file_paths(payload.get("tool_input"))


def render(event: str, reply: Reply) -> tuple[str, int]:
    if event in ("session-start", "prompt"):
        return reply.context, 0
    if event == "before-edit" and reply.decision:
        out = {"hookEventName": "PreToolUse", "permissionDecision": reply.decision}
        return as_json({"hookSpecificOutput": {**out, "permissionDecisionReason": reply.reason}}), 0
    if event == "after-edit" and reply.conflict:
        return as_json({"decision": "block", "reason": reply.conflict}), 0
    return "", 0


TOOL = Tool(
    name="claude",
    title="Claude Code",
    config=".claude/settings.json",
    hooks=HOOKS,
    render=render,
    edits=edits,
    entry=entry,
    docs=("https://code.claude.com/docs/en/hooks", "https://code.claude.com/docs/en/statusline"),
)
LOCAL_CONFIG = ".claude/settings.local.json"
