"""OpenAI Codex CLI: hooks in `.codex/hooks.json`.

Documented at https://developers.openai.com/codex/hooks (schemas in openai/codex
codex-rs/hooks/schema). Hooks run by default since Codex 0.124 (`[features] hooks`; older
versions need `codex_hooks = true` in config.toml). File edits are the `apply_patch` tool,
whose raw patch is `tool_input.command`: its `*** Add File:` / `*** Update File:` /
`*** Delete File:` / `*** Move to:` lines name the files. Context goes back as
`hookSpecificOutput.additionalContext`; PostToolUse's `decision: block` gives its `reason`
to the model. Hook timeouts are seconds.
"""

from __future__ import annotations

from typing import Any

from gridgit.agents import claude
from gridgit.agents.claude import entry
from gridgit.agents.tool import Edit, Hook, Reply, Tool, as_json

EDIT_TOOLS = "apply_patch"
_HEADERS = {"*** Add File: ": "created", "*** Update File: ": "modified", "*** Delete File: ": "deleted"}

HOOKS = (
    Hook("SessionStart", "session-start"),
    Hook("UserPromptSubmit", "prompt"),
    Hook("PreToolUse", "before-edit", EDIT_TOOLS),
    Hook("PostToolUse", "after-edit", EDIT_TOOLS),
    Hook("Stop", "end"),
)


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


_NATIVE = {"session-start": "SessionStart", "prompt": "UserPromptSubmit"}


def render(event: str, reply: Reply) -> tuple[str, int]:
    if event in _NATIVE:  # context as JSON where Claude Code takes plain text
        if not reply.context:
            return "", 0
        return as_json({"hookSpecificOutput": {"hookEventName": _NATIVE[event], "additionalContext": reply.context}}), 0
    return claude.render(event, reply)  # PreToolUse / PostToolUse answers are Claude Code's


TOOL = Tool(
    name="codex",
    title="OpenAI Codex CLI",
    config=".codex/hooks.json",
    hooks=HOOKS,
    render=render,
    edits=edits,
    entry=entry,
    docs=("https://developers.openai.com/codex/hooks",),
)
