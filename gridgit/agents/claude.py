"""Claude Code: hooks in `.claude/settings.json` (or `settings.local.json`), and its status line.

Documented at https://code.claude.com/docs/en/hooks and https://code.claude.com/docs/en/statusline.
SessionStart and UserPromptSubmit add plain stdout to the model's context; PreToolUse answers
with `hookSpecificOutput.permissionDecision`; PostToolUse's `decision: block` gives its
`reason` to the model (the tool already ran: nothing is undone), and its
`hookSpecificOutput.additionalContext` adds context without touching the tool's result (the
urgent inbox, mid-turn); Stop's `decision: block` with a `reason` keeps Claude going, and
its payload's `stop_hook_active` says a stop hook already did (unacknowledged messages wake
the agent a few times at most, gridgit.coordination.wakeup). Hook timeouts are seconds.
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
        decided = {"hookEventName": "PreToolUse", "permissionDecision": reply.decision}
        return as_json({"hookSpecificOutput": {**decided, "permissionDecisionReason": reply.reason}}), 0
    if event == "after-edit" and (reply.conflict or reply.context):
        out: dict[str, Any] = {"decision": "block", "reason": reply.conflict} if reply.conflict else {}
        if reply.context:
            out["hookSpecificOutput"] = {"hookEventName": "PostToolUse", "additionalContext": reply.context}
        return as_json(out), 0
    if event == "end" and reply.decision == "block":
        return as_json({"decision": "block", "reason": reply.reason}), 0
    return "", 0


TOOL = Tool(
    name="claude",
    title="Claude Code",
    config=".claude/settings.json",
    hooks=HOOKS,
    render=render,
    edits=edits,
    entry=entry,
    mid_turn=True,
    wakes=True,
    docs=("https://code.claude.com/docs/en/hooks", "https://code.claude.com/docs/en/statusline"),
)
LOCAL_CONFIG = ".claude/settings.local.json"
