"""Who is on the mission: registered agents and the agents seen lately, with what their last heartbeat says.

Registered: STATE `agents.active`. Seen: wrote in the current phase (scratchpad or its
archive) or is named by an event of the last SEEN_MINUTES. Each row carries the agent's
newest heartbeat (thread, progress, current action, files) and its staleness (spec 6.5).
"""

from __future__ import annotations

from datetime import datetime

from gridgit.coordination import agents as agents_mod
from gridgit.coordination import heartbeat
from gridgit.errors import GridError
from gridgit.model import state as state_mod
from gridgit.model.permissions import SYSTEM_AGENT, UNKNOWN_AGENT
from gridgit.store import clock

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from gridgit.scratchpad.entry import Entry
    from gridgit.store.layout import Layout

# An agent named by an event this recent is on the roster even when it is not registered.
SEEN_MINUTES = 60
_REGISTRATION_KEYS = ("task", "phase", "block", "worktree")
_NOT_LISTED = (SYSTEM_AGENT, UNKNOWN_AGENT)


class _Phases:
    """Each phase's writers and newest heartbeats, read once; a broken scratchpad reads as no activity."""

    def __init__(self, layout: Layout) -> None:
        self.layout = layout
        self._read: dict[str, tuple[set[str], dict[str, Entry]]] = {}

    def activity(self, phase_id: str | None) -> tuple[set[str], dict[str, Entry]]:
        if not phase_id:
            return set(), {}
        if phase_id not in self._read:
            try:
                self._read[phase_id] = heartbeat.phase_activity(self.layout, phase_id)
            except GridError:
                self._read[phase_id] = (set(), {})
        return self._read[phase_id]


def event_agent(event: dict[str, Any]) -> str | None:
    """The agent an event is by or about, whichever payload key its type uses."""
    payload = event.get("payload")
    if not isinstance(payload, dict):
        return None
    who = payload.get("agent") or payload.get("agent_id") or payload.get("from_agent")
    return who if isinstance(who, str) and who else None


def _seen_in_events(layout: Layout, now: datetime) -> dict[str, dict[str, Any]]:
    """Agent id -> the newest event of the last SEEN_MINUTES that names it (read backwards from the log's end)."""
    from gridgit.events import scan

    seen: dict[str, dict[str, Any]] = {}
    if not layout.events_log.exists():
        return seen
    for event in scan.read_backwards(layout, since=now.timestamp() - SEEN_MINUTES * 60):
        who = event_agent(event)
        if who and who not in seen:
            seen[who] = event
    return seen


def _said(row: dict[str, Any], last: Entry | None, seen: dict[str, Any] | None) -> dict[str, Any]:
    """ROW with what the agent's newest heartbeat (LAST) says and its newest event (SEEN)."""
    said = heartbeat.read_content(last.content) if last else {}
    row.update({k: said.get(k) for k in ("thread", "progress", "action")})
    row["files"] = said.get("files", [])
    row["last_seen"] = seen["timestamp"] if seen else None
    row["last_event"] = seen["type"] if seen else None
    return row


def _unregistered(
    layout: Layout, agent_id: str, last: Entry | None, now: datetime, config: dict[str, Any]
) -> dict[str, Any]:
    """The row of an agent only seen: its health from its newest heartbeat entry and its latest sign of work."""
    row: dict[str, Any] = {"id": agent_id, "type": agent_id.split("-", 1)[0], "registered": False}
    row.update(dict.fromkeys(_REGISTRATION_KEYS))
    if heartbeat.sends_heartbeats(agent_id):
        report = heartbeat.health(last, agent_id, now, config, heartbeat.working(layout, agent_id, config))
        row.update({k: report[k] for k in ("stale", "last_heartbeat", "minutes_since", "warning_level")})
    else:  # scouts, planners and Master Control send none: not stale, not fine, just not watched
        row.update(stale=None, last_heartbeat=None, minutes_since=None, warning_level="n/a")
    return row


def roster(
    layout: Layout,
    config: dict[str, Any],
    st: dict[str, Any] | None = None,
    now: datetime | None = None,
    everyone: bool = True,
) -> list[dict[str, Any]]:
    """Registered agents in STATE's order, then (EVERYONE) the agents only seen, by id.

    ST is STATE's frontmatter when the caller has read it already. A registered agent's
    heartbeat is looked up in its own phase (its `phase` field), the others' in the current one.
    """
    st = st if st is not None else state_mod.read(layout)
    moment = now or clock.now()
    current = state_mod.current_phase(st)
    agents = st.get("agents") or {}
    phases = _Phases(layout)
    seen = _seen_in_events(layout, moment) if everyone else {}
    rows = []
    # Registered agents are judged as `gridgit status` and `agent list` judge them.
    for row in agents_mod.active_rows(layout, st, config, moment):
        _, latest = phases.activity(row.get("phase") or current)
        rows.append(_said({**row, "registered": True}, latest.get(row["id"]), seen.get(row["id"])))
    if everyone:
        writers, latest = phases.activity(current)
        registered = {row["id"] for row in rows}
        others = (writers | set(seen)) - registered - heartbeat.agent_ids(agents.get("completed"))
        for agent_id in sorted(others - set(_NOT_LISTED)):
            row = _unregistered(layout, agent_id, latest.get(agent_id), moment, config)
            rows.append(_said(row, latest.get(agent_id), seen.get(agent_id)))
    return rows
