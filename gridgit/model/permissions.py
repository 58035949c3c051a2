"""The spec's access-control matrices. Identity is declared, not authenticated: these guard
against mistakes (an agent writing where its type should not), not against a hostile agent."""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING

from gridgit.errors import BadInput, PermissionDenied
from gridgit.store import usertext

if TYPE_CHECKING:
    from gridgit.store.layout import Layout

STATE_FIELDS = (
    "version", "session_id", "mission_id", "cluster", "created_at", "updated_at", "status", "mode",
    "phases", "position", "progress", "agents", "persistent", "resume", "budget", "warnings",
    "blockers", "energy",
)  # fmt: skip

# Section 1 "Access Rules"; `system` is gridgit's own workflows (hooks, phase completion).
STATE_WRITABLE: dict[str, frozenset[str]] = {
    "mc": frozenset(STATE_FIELDS),
    "system": frozenset(STATE_FIELDS),
    "executor": frozenset({"position", "agents", "warnings"}),
    "planner": frozenset({"phases", "position"}),
    "recognizer": frozenset({"warnings", "blockers"}),
    "scout": frozenset(),
    "memory": frozenset({"persistent"}),
}
# Section 9 "Access Control Matrix".
SCRATCHPAD_WRITERS = frozenset({"mc", "executor", "recognizer", "memory", "system"})
LEARNINGS_WRITERS = frozenset({"memory", "system"})
# `.grid/memory/`, the memory agent's workspace: memory agents, and Master Control who runs the phases.
MEMORY_WRITERS = frozenset({"memory", "mc", "system"})
AGENT_TYPES = frozenset(STATE_WRITABLE)
# The attribution of a change nobody declared (no GRID_AGENT_ID, no `git config grid.agent`).
UNKNOWN_AGENT = "unknown"
# gridgit's own workflows (hooks, phase completion, carry-forward, the watcher) write as this agent.
SYSTEM_AGENT = "system"


_AGENT_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


def check_agent_id(agent_id: str) -> str:
    """AGENT_ID when it is a plain token (it becomes a file name for cursors)."""
    if not isinstance(agent_id, str) or not _AGENT_RE.match(agent_id) or len(agent_id) > usertext.limit("agent id"):
        shown = agent_id[:80] + "…" if isinstance(agent_id, str) and len(agent_id) > 80 else agent_id
        raise BadInput(
            f"invalid agent id {shown!r}: expected e.g. executor-001 "
            f"(letters, digits, `_.-`, at most {usertext.limit('agent id')} characters)"
        )
    return agent_id


def attribute_agent(layout: Layout, agent_id: str | None = None) -> str:
    """Who made a change: AGENT_ID, else GRID_AGENT_ID, else `git config grid.agent`, else unknown."""
    chosen = agent_id or os.environ.get("GRID_AGENT_ID")
    if not chosen:
        from gridgit.store import gitcmd

        chosen = gitcmd.config_get(layout.root, "grid.agent") or UNKNOWN_AGENT
    return check_agent_id(chosen)


def agent_type(agent_id: str) -> str:
    """`executor-001` -> `executor`; an unknown type is bad input."""
    kind = (agent_id or "").split("-", 1)[0].lower()
    if kind not in AGENT_TYPES:
        known = ", ".join(sorted(AGENT_TYPES))
        raise BadInput(f"unknown agent type {kind!r} in agent id {agent_id!r} (known: {known})")
    return kind


def check_state_fields(agent_id: str, fields: list[str]) -> None:
    """Refuse STATE fields the agent's type may not write."""
    kind = agent_type(agent_id)
    for field in fields:
        if field not in STATE_FIELDS:
            raise BadInput(f"unknown STATE field {field!r}")
        if field not in STATE_WRITABLE[kind]:
            raise PermissionDenied(f"{kind} may not write STATE field {field!r} (agent {agent_id})")


def check_scratchpad_writer(agent_id: str) -> None:
    kind = agent_type(agent_id)
    if kind not in SCRATCHPAD_WRITERS:
        raise PermissionDenied(f"{kind} agents may not write to a scratchpad (agent {agent_id})")


def check_learnings_writer(agent_id: str) -> None:
    kind = agent_type(agent_id)
    if kind not in LEARNINGS_WRITERS:
        raise PermissionDenied(f"only memory agents may write LEARNINGS.md (agent {agent_id} is {kind})")


def check_memory_writer(agent_id: str) -> None:
    kind = agent_type(agent_id)
    if kind not in MEMORY_WRITERS:
        raise PermissionDenied(
            f"only memory agents and Master Control may write .grid/memory/ (agent {agent_id} is {kind})"
        )
