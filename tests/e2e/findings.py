"""Issue 34's findings, and the marks that keep the tier green while one of them is still open.

A test that still fails by a finding is a strict xfail naming it: an unexpected pass fails the
run, so the fix is noticed, and the mark goes with the fix (branch agentfix).
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.e2e import programs

# issue 34's findings, by number (the issue's "What the real programs showed")
FINDINGS = {
    1: "Codex runs none of gridgit's hooks (untrusted until trusted by hash)",
    2: "Codex in a linked worktree reads the main worktree's .codex/hooks.json",
    3: "Gemini CLI's shell turns git hooks off (empty core.hooksPath)",
    4: "`opencode run` loses the end hook's answer",
    5: "the model is told the same thing several times",
    6: "every edit an agent commits is recorded twice",
    7: "what gridgit tells the model to run does not run",
    8: "smaller: -p's ask, created recorded as modified, setup claude's machine path",
}


# defects this tier found besides the eight (reported to the lead with issue 34), by a short name
DEFECTS = {
    "opencode-pack": "OpenCode's plugin adds the context pack from its session.created event, which `opencode run` "
    "does not wait for: a session-start hook slower than OpenCode's first request leaves the pack out of it",
}


def defect(name: str) -> pytest.MarkDecorator:
    return pytest.mark.xfail(strict=True, reason=f"found by the end-to-end tier: {DEFECTS[name]}")


def xfail(finding: int) -> pytest.MarkDecorator:
    return pytest.mark.xfail(
        strict=True, reason=f"issue 34 finding {finding} ({FINDINGS[finding]}): fixed on branch agentfix"
    )


def tools(*only: str, **known: int | pytest.MarkDecorator) -> list[Any]:
    """One parameter per tool of ONLY (default: all), each in its tool's xdist group; KNOWN: tool -> the finding it
    still fails by (or a `defect` mark)."""
    marks = {tool: xfail(n) if isinstance(n, int) else n for tool, n in known.items()}
    group = pytest.mark.xdist_group
    return [
        pytest.param(tool, marks=[group(f"e2e-{tool}"), *([marks[tool]] if tool in marks else [])])
        for tool in only or programs.TOOLS
    ]
