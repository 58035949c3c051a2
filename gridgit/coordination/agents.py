"""The agent lifecycle: register, done, list (STATE `agents.active` and `agents.completed`).

An agent registers itself, or Master Control registers it, with its task, block and
worktree (the watcher attributes direct edits in that worktree to it); `done` moves it to
`agents.completed` with its result and summary, and releases its claims. Both change one
item of the lists under the STATE lock (gridgit.model.state_lists), so agents registering
at once are all there, and both are idempotent: a second registration with nothing new and
a second `done` change nothing and emit nothing.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from gridgit.coordination import claims, heartbeat, inbox
from gridgit.errors import BadInput, GridError, NotFound, PermissionDenied
from gridgit.events import bus
from gridgit.model import permissions, state
from gridgit.model.state_lists import ListChange, current_list, item_id, updates_for
from gridgit.scratchpad.entry import check_one_line
from gridgit.store import clock, usertext
from gridgit.store import config as config_mod
from gridgit.store.layout import Layout
from gridgit.store.record import Record

TYPE_CHECKING = False  # typing costs a hook's start ~2.5 ms (see gridgit.store.record)
if TYPE_CHECKING:
    from typing import Any

ACTIVE, COMPLETED = "agents.active", "agents.completed"
RESULTS = ("success", "failed", "cancelled")
# Who may register or finish another agent; everyone may register and finish itself.
_SUPERVISORS = frozenset({"mc", "system"})


class AgentResult(Record):
    """What `register` or `done` did: ACTION is registered, updated, unchanged, done or already-done."""

    FIELDS = ("action", "agent", "released")
    __slots__ = FIELDS

    def __init__(self, action: str, agent: dict[str, Any], released: list[str] | None = None) -> None:
        self.action = action
        self.agent = agent
        self.released = released if released is not None else []  # claim patterns released by `done`

    def to_dict(self) -> dict[str, Any]:
        return {"action": self.action, "agent": self.agent, "released": self.released}


def check_agent_id(agent_id: str) -> str:
    """AGENT_ID's type (its prefix) when AGENT_ID is an agent to register: `{type}-{id}`, not gridgit's own `system`."""
    if permissions.agent_type(permissions.check_agent_id(agent_id)) == permissions.SYSTEM_AGENT:
        raise BadInput(f"{agent_id}: `system` is gridgit itself, not an agent to register")
    if "-" not in agent_id:
        raise BadInput(f"{agent_id}: expected {{type}}-{{id}} of an agent to register, e.g. executor-001")
    return agent_id.split("-", 1)[0].lower()


def _check_actor(actor: str, agent_id: str, action: str) -> None:
    if actor != agent_id and permissions.agent_type(permissions.check_agent_id(actor)) not in _SUPERVISORS:
        raise PermissionDenied(
            f"{actor} may not {action} {agent_id}: an agent does that itself, or Master Control (mc)"
        )


def _clean(name: str, value: str | None) -> str | None:
    if value is None:
        return None
    return usertext.clean(check_one_line(name, value.strip()), "note", name)


def _worktree(layout: Layout, worktree: str | Path | None, self_registered: bool) -> str | None:
    """The worktree to record: WORKTREE, else the caller's linked worktree when the agent registers itself.

    The main worktree is never recorded by default: the watcher would attribute everyone's
    edits there to this agent.
    """
    if worktree is None:
        return str(layout.root) if self_registered and layout.root != layout.main_root else None
    path = Path(usertext.check_path(str(worktree), "--worktree")).expanduser().resolve()
    if not path.is_dir():
        raise BadInput(f"--worktree {worktree}: not a directory")
    return str(path)


def register(
    layout: Layout,
    agent_id: str,
    actor: str,
    task: str | None = None,
    block: str | None = None,
    worktree: str | Path | None = None,
) -> AgentResult:
    """Register AGENT_ID in agents.active (again: update what changed); emits `agent_spawned` when new."""
    kind = check_agent_id(agent_id)
    _check_actor(actor, agent_id, "register")
    task, block = _clean("task", task), _clean("block", block)
    where = _worktree(layout, worktree, actor == agent_id)
    outcome: list[AgentResult] = []

    def change(st: dict[str, Any]) -> dict[str, Any]:
        # An agent at work on a block: the mission has started (`status` said `planning` long after).
        started = {"status": "in_progress"} if block and st.get("status") == "planning" else {}
        existing = _find(st, ACTIVE, agent_id)
        if existing is not None:
            wanted = {"task": task, "block": block, "worktree": where}
            fields = {k: v for k, v in wanted.items() if v is not None and existing.get(k) != v}
            outcome.append(AgentResult("updated" if fields else "unchanged", {**existing, **fields}))
            return (
                {**updates_for(st, [ListChange.update(ACTIVE, {"id": agent_id, **fields})]), **started}
                if fields
                else started
            )
        item = {
            "id": agent_id, "type": kind, "task": task, "phase": state.current_phase(st), "block": block,
            "worktree": where, "spawned_at": clock.now_iso(), "last_heartbeat": None,
        }  # fmt: skip
        changes = [ListChange.add(ACTIVE, item)]
        if _find(st, COMPLETED, agent_id) is not None:  # a finished agent back at work
            changes.insert(0, ListChange.remove(COMPLETED, agent_id))
        outcome.append(AgentResult("registered", item))
        updates = updates_for(st, changes)
        spawns = (st.get("budget") or {}).get("spawns_this_session")
        spawns = spawns if isinstance(spawns, int) and not isinstance(spawns, bool) else 0
        return {**updates, "budget": {"spawns_this_session": spawns + 1}, **started}

    layout.require()
    state.update_with(layout, change, actor, f"register {agent_id}", check_permission=False)
    result = outcome[-1]
    if result.action == "registered":
        inbox.start(layout, agent_id)
        from gridgit.work import budget  # only a new registration writes budget.json

        budget.record_spawn(layout, agent_id, result.agent.get("phase"))
        payload = {k: result.agent.get(k) for k in ("task", "phase", "block", "worktree")}
        bus.notify(layout, "agent_spawned", {"agent_id": agent_id, "type": kind, **payload, "agent": actor})
    return result


def done(layout: Layout, agent_id: str, actor: str, summary: str | None = None, result: str = "success") -> AgentResult:
    """Move AGENT_ID to agents.completed with RESULT and SUMMARY, release its claims; emits `agent_complete`.

    Done already: nothing changes (action already-done). Never registered: bad input.
    """
    check_agent_id(agent_id)
    permissions.check_agent_id(actor)
    if result not in RESULTS:
        raise BadInput(f"unknown result {result!r} (one of: {', '.join(RESULTS)})")
    text = usertext.clean(summary.strip(), "note", "summary") if summary and summary.strip() else None
    outcome: list[AgentResult] = []

    def change(st: dict[str, Any]) -> dict[str, Any]:
        existing = _find(st, ACTIVE, agent_id)
        if existing is None:
            finished = _find(st, COMPLETED, agent_id)
            if finished is None:
                raise NotFound(f"agent {agent_id} is not registered (`gridgit agent register {agent_id}`)")
            _check_actor(actor, agent_id, "finish")
            outcome.append(AgentResult("already-done", finished))
            return {}
        _check_actor(actor, agent_id, "finish")  # what does not exist is not found (7), whoever asks (docs/cli.md)
        now = clock.now_iso()
        item = {
            "id": agent_id, "type": existing.get("type") or agent_id.split("-", 1)[0].lower(), "result": result,
            "summary": text, "task": existing.get("task"), "block": existing.get("block"),
            "spawned_at": existing.get("spawned_at"), "completed_at": now,
            "duration_seconds": _seconds_between(existing.get("spawned_at"), now),
        }  # fmt: skip
        changes = [ListChange.remove(ACTIVE, agent_id)]
        if _find(st, COMPLETED, agent_id) is not None:
            changes.append(ListChange.remove(COMPLETED, agent_id))
        outcome.append(AgentResult("done", item))
        return updates_for(st, [*changes, ListChange.add(COMPLETED, item)])

    layout.require()
    state.update_with(layout, change, actor, f"done {agent_id} ({result})", check_permission=False)
    finished = outcome[-1]
    if finished.action == "done":
        finished.released = [c.pattern for c in claims.release(layout, agent_id)]
        payload = {"agent_id": agent_id, "result": result, "duration": finished.agent["duration_seconds"]}
        bus.notify(layout, "agent_complete", {**payload, "summary": text, "agent": actor})
    return finished


def _find(st: dict[str, Any], path: str, agent_id: str) -> dict[str, Any] | None:
    found = next((a for a in current_list(st, path) if item_id(a) == agent_id), None)
    return found if isinstance(found, dict) else ({"id": found} if found is not None else None)


def _seconds_between(start: Any, end: str) -> int | None:
    try:
        return max(0, int((clock.parse(end) - clock.parse(str(start))).total_seconds()))
    except (TypeError, ValueError):
        return None


def active_rows(
    layout: Layout, st: dict[str, Any], config: dict[str, Any], now: datetime | None = None
) -> list[dict[str, Any]]:
    """The registered agents with their health (staleness from their newest sign of life).

    What `gridgit status`, `gridgit agent list` and the web view show. Scouts, planners and
    Master Control send no heartbeats: their level is `n/a` (gridgit.coordination.heartbeat).
    """
    current = state.current_phase(st)
    rows: list[dict[str, Any]] = []
    for agent in (st.get("agents") or {}).get("active") or []:
        if not isinstance(agent, dict):
            continue
        agent_id = str(agent.get("id"))
        row = {k: agent.get(k) for k in ("id", "type", "task", "phase", "block", "worktree", "spawned_at")}
        row["type"] = row["type"] or agent_id.split("-", 1)[0]
        phases = [p for p in (agent.get("phase"), current) if isinstance(p, str) and p]
        try:
            health = heartbeat.registered_staleness(layout, agent, phases, now, config)
        except GridError:  # a broken scratchpad: no heartbeat can be read, which doctor reports itself
            health = {"stale": True, "last_heartbeat": None, "minutes_since": None, "warning_level": "stale"}
        health.pop("agent", None)
        health.pop("agent_id", None)
        rows.append({**row, **health})
    return rows


def list_agents(layout: Layout, now: datetime | None = None) -> dict[str, list[dict[str, Any]]]:
    """{active: rows with health, completed: agents.completed}."""
    st = state.read(layout)
    completed = [a for a in (st.get("agents") or {}).get("completed") or [] if isinstance(a, dict)]
    return {"active": active_rows(layout, st, config_mod.load(layout), now), "completed": completed}
