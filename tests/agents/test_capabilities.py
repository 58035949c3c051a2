"""The capability table against each tool's documented output schema: every answer gridgit can give is one the
tool reads, an after-edit answer never replaces the tool's result, and silence is what the tool reads as silence."""

from __future__ import annotations

import itertools
import json

import jsonschema
import pytest

from gridgit.agents import capabilities
from gridgit.agents.answer import Reply, render
from tests.agents.helpers import NATIVE, SCHEMAS, TOOLS

# Fields that replace what the tool did or stop the agent: never where gridgit only has something to say.
REPLACING = {"decision", "reason", "continue", "stopReason", "updatedMCPToolOutput", "tool_output",
             "updated_mcp_tool_output", "followup_message", "updated_input", "updatedInput"}  # fmt: skip


def _fields(data: dict[str, object]) -> set[str]:
    inner = data.get("hookSpecificOutput")
    return set(data) | (set(inner) if isinstance(inner, dict) else set())


@pytest.mark.parametrize("tool", TOOLS)
def test_every_event_hooked_is_a_documented_one(tool: str) -> None:
    natives = {cap.event: cap.native for cap in capabilities.of(tool)}
    assert natives == NATIVE[tool]
    assert set(natives.values()) <= set(SCHEMAS[tool]["events"])


@pytest.mark.parametrize("cap", capabilities.TABLE, ids=repr)
def test_every_answer_fits_the_tools_schema(cap: capabilities.Capability) -> None:
    schema = SCHEMAS[cap.tool]
    event_schema = schema["events"][cap.native]
    decisions = [None, *cap.decisions]
    for context, decision, notice in itertools.product(["", "new for you"], decisions, ["", "told the user"]):
        out = render(cap, Reply(context=context, decision=decision, reason="because", notice=notice))
        if not out:
            assert not schema["json_only"]
            continue
        data = json.loads(out)
        jsonschema.validate(data, event_schema)
        if decision is None and cap.event != "before-edit":
            assert not _fields(data) & REPLACING, (cap, data)  # said, never by replacing anything
        if context and cap.adds_context:
            assert "new for you" in out
    # a decision the tool does not enforce is never written
    for unenforced in {"allow", "deny", "ask"} - set(cap.decisions):
        assert render(cap, Reply(decision=unenforced, reason="because")) == cap.silent


@pytest.mark.parametrize("tool", TOOLS)
def test_after_an_edit_every_tool_can_add_context_without_replacing_the_result(tool: str) -> None:
    cap = capabilities.get(tool, "after-edit")
    assert cap is not None and cap.adds_context and not cap.decisions
