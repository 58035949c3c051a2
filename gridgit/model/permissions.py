"""The spec's access-control matrices. Identity is declared, not authenticated: these guard
against mistakes (an agent writing where its type should not), not against a hostile agent."""

from __future__ import annotations

import os
import re

from gridgit.errors import BadInput, PermissionDenied
from gridgit.store import usertext

TYPE_CHECKING = False
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


# An agent id: `{type}-{id}` (`executor-001`, `executor-claude-1a2b3c4d`), or `mc` alone.
_AGENT_ID_RE = re.compile(r"^([A-Za-z][A-Za-z0-9_]*)(?:-[A-Za-z0-9][A-Za-z0-9_.-]*)?$")
_TOKEN_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
# Custom type -> the built-in type whose rights it has (config.json `agents.custom_types`).
# The checks below take an agent id, not a Blackboard: `check_agent`, which every agent id
# from outside passes first (CLI, Python API, MCP, agent-tool and git hooks), loads them.
_custom_types: dict[str, str] = {}


def _shown(agent_id: object) -> str:
    return repr(agent_id[:80] + "…" if isinstance(agent_id, str) and len(agent_id) > 80 else agent_id)


def check_agent_token(agent_id: str) -> str:
    """AGENT_ID when it is a plain token (it becomes a file name for cursors): what a .grid/ file may hold.

    Looser than check_agent_id: entries and events written by earlier versions stay valid.
    """
    if not isinstance(agent_id, str) or not _TOKEN_RE.match(agent_id) or len(agent_id) > usertext.limit("agent id"):
        raise BadInput(
            f"invalid agent id {_shown(agent_id)}: expected {{type}}-{{id}}, e.g. executor-001 "
            f"(letters, digits, `_.-`, at most {usertext.limit('agent id')} characters)"
        )
    return agent_id


def check_agent_id(agent_id: str) -> str:
    """AGENT_ID when it names an agent: `{type}-{id}` of a known or custom type, or `mc` (Master Control).

    The one check of an agent id given to gridgit; a custom type is known once `check_agent`
    loaded the Blackboard's config.
    """
    check_agent_token(agent_id)
    match = _AGENT_ID_RE.match(agent_id)
    kind = match.group(1).lower() if match else ""
    if match is None or ("-" not in agent_id and kind not in _BARE_IDS):
        raise BadInput(f"invalid agent id {_shown(agent_id)}: expected {{type}}-{{id}}, e.g. executor-001, or mc")
    if kind not in AGENT_TYPES and kind not in _custom_types:
        raise BadInput(f"invalid agent id {_shown(agent_id)}: unknown agent type {kind!r} ({_types()})")
    return agent_id


def check_agent(layout: Layout, agent_id: str) -> str:
    """check_agent_id, with LAYOUT's custom agent types (config.json `agents.custom_types`) known."""
    kind = agent_id.split("-", 1)[0].lower() if isinstance(agent_id, str) else ""
    if kind not in AGENT_TYPES:  # config.json is read only for a type that is not built in
        from gridgit.store import config

        _custom_types.clear()
        _custom_types.update(config.current(layout)["agents"]["custom_types"])  # checked by config.load
    return check_agent_id(agent_id)


def _types() -> str:
    custom = f"; custom: {', '.join(sorted(_custom_types))}" if _custom_types else ""
    return f"types: {', '.join(sorted(AGENT_TYPES - {SYSTEM_AGENT}))}{custom}"


# Ids without a `-{id}`: Master Control is one, and gridgit's own workflows write as `system`.
_BARE_IDS = frozenset({"mc", SYSTEM_AGENT})


def declared_agent(layout: Layout, agent_id: str | None = None) -> str | None:
    """Who says they act: AGENT_ID, else GRID_AGENT_ID, else `git config grid.agent`, checked; None: nobody."""
    chosen = agent_id or os.environ.get("GRID_AGENT_ID")
    if not chosen:
        from gridgit.store import gitcmd

        chosen = gitcmd.config_get(layout.root, "grid.agent")
    return check_agent(layout, chosen) if chosen else None


def attribute_agent(layout: Layout, agent_id: str | None = None) -> str:
    """Who made a change (the git hooks, the watcher): the declared agent, else unknown."""
    return declared_agent(layout, agent_id) or UNKNOWN_AGENT


def agent_type(agent_id: str) -> str:
    """`executor-001` -> `executor`; a custom type's id -> the built-in type whose rights it has."""
    kind = (agent_id or "").split("-", 1)[0].lower()
    if kind in AGENT_TYPES:
        return kind
    if kind in _custom_types:
        return _custom_types[kind]
    raise BadInput(f"unknown agent type {kind!r} in agent id {_shown(agent_id)} ({_types()})")


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
