"""Gemini CLI: hooks in `.gemini/settings.json`.

Documented at https://geminicli.com/docs/hooks/reference. stdout must be JSON only, so
every answer (and "nothing to say", `{}`) is JSON. Context goes back as
`hookSpecificOutput.additionalContext` (SessionStart, BeforeAgent, AfterTool); BeforeTool
denies with `decision: deny` and a `reason` for the model. BeforeTool has no "ask": a claim
under `claims.on_edit: ask` lets the edit through and shows the user a `systemMessage`.
Hook timeouts are milliseconds.
"""

from __future__ import annotations

from typing import Any

from gridgit.agents.tool import Edit, Hook, Reply, Tool, as_json, file_paths

EDIT_TOOLS = "write_file|replace"
TIMEOUT_MS = 15_000

HOOKS = (
    Hook("SessionStart", "session-start"),
    Hook("BeforeAgent", "prompt"),
    Hook("BeforeTool", "before-edit", EDIT_TOOLS),
    Hook("AfterTool", "after-edit", EDIT_TOOLS),
    Hook("AfterAgent", "end"),
)


def entry(hook: Hook, command: str) -> dict[str, Any]:
    group: dict[str, Any] = {"matcher": hook.matcher} if hook.matcher else {}
    config = {"name": f"gridgit-{hook.event}", "type": "command", "command": command, "timeout": TIMEOUT_MS}
    group["hooks"] = [config]
    return group


def edits(payload: dict[str, Any]) -> list[Edit]:
    return file_paths(payload.get("tool_input"))


_NATIVE = {"session-start": "SessionStart", "prompt": "BeforeAgent", "after-edit": "AfterTool"}


def render(event: str, reply: Reply) -> tuple[str, int]:
    text = reply.conflict if event == "after-edit" else reply.context
    if event in _NATIVE and text:
        return as_json({"hookSpecificOutput": {"hookEventName": _NATIVE[event], "additionalContext": text}}), 0
    if event == "before-edit" and reply.decision == "deny":
        return as_json({"decision": "deny", "reason": reply.reason}), 0
    if event == "before-edit" and reply.decision == "ask":
        return as_json({"systemMessage": f"gridgit: {reply.reason}"}), 0
    return "{}", 0


TOOL = Tool(
    name="gemini",
    title="Gemini CLI",
    config=".gemini/settings.json",
    hooks=HOOKS,
    render=render,
    edits=edits,
    entry=entry,
    silent="{}",
    docs=("https://geminicli.com/docs/hooks/reference",),
)
