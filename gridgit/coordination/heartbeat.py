"""Heartbeats and staleness (scratchpad protocol 6.4 and 6.5).

A heartbeat is an ordinary scratchpad entry (category heartbeat, topic progress, LOW)
written through the one write path; staleness is how long ago an agent's latest sign of life
was: ok up to `heartbeat.warning_minutes` (5), warning up to `heartbeat.stale_minutes`
(10), stale beyond that or when the agent never showed one. A sign of life is a heartbeat
entry, STATE's `last_heartbeat`, or any sign of work gridgit.coordination.activity recorded
(a write, a touch, a take, a commit, a hook of its agent tool, and the tool still running).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import datetime

from gridgit.coordination import activity
from gridgit.coordination.activity import stamp as stamp  # also `heartbeat.stamp` for its callers (the end hook)
from gridgit.errors import BadInput
from gridgit.model import permissions, state
from gridgit.store import clock
from gridgit.store import config as config_mod
from gridgit.store.layout import Layout, check_phase_id

TYPE_CHECKING = False
if TYPE_CHECKING:  # the scratchpad is loaded where a heartbeat is written or read, not for the rules
    from typing import Any

    from gridgit.scratchpad.entry import Entry

# gridgit's own workflows and Master Control (who watches the others) send no heartbeats.
_NOT_WATCHED_TYPES = ("system", "mc")
_FIELD_RE = re.compile(r"^\*\*(Status|Progress|Current Action|Files Touched):\*\*[ ]?(.*)$", re.MULTILINE)


def sends_heartbeats(agent_id: str) -> bool:
    """False for gridgit itself, Master Control and the types that may not write a scratchpad (scouts, planners)."""
    kind = agent_id.split("-", 1)[0].lower()
    return kind in permissions.SCRATCHPAD_WRITERS and kind not in _NOT_WATCHED_TYPES


def heartbeat_content(
    thread_info: str, progress_percent: int, current_action: str, files_touched: Iterable[str], duration: str
) -> str:
    files = ", ".join(f for f in files_touched if f) or "None yet"
    return (
        f"**Status:** Working on {thread_info}\n"
        f"**Progress:** {progress_percent}%\n"
        f"**Current Action:** {current_action}\n"
        f"**Files Touched:** {files}\n"
        f"**Duration:** {duration}"
    )


def read_content(content: str) -> dict[str, Any]:
    """What a heartbeat says (heartbeat_content read back): thread, progress (int or None), action, files."""
    fields = dict(_FIELD_RE.findall(content))
    status = fields.get("Status", "")
    progress = fields.get("Progress", "").rstrip("%").strip()
    files = fields.get("Files Touched", "")
    return {
        "thread": status.removeprefix("Working on ").strip() or None,
        "progress": int(progress) if progress.isdigit() else None,
        "action": fields.get("Current Action", "").strip() or None,
        "files": [] if files.strip() in ("", "None yet") else [f.strip() for f in files.split(",") if f.strip()],
    }


def _duration(previous: Entry | None, now: datetime) -> str:
    if previous is None:
        return "first heartbeat"
    try:
        minutes = int(clock.minutes_since(previous.timestamp, now))
    except ValueError:
        return "first heartbeat"
    return f"{minutes} minute{'s' if minutes != 1 else ''} since last heartbeat"


def write_heartbeat(
    layout: Layout,
    phase_id: str,
    agent_id: str,
    block_id: str,
    thread_info: str,
    progress_percent: int,
    current_action: str,
    files_touched: list[str],
    config: dict[str, Any] | None = None,
) -> Entry:
    """Write a heartbeat entry (spec 6.4); the duration is measured from the previous one."""
    check_phase_id(phase_id)
    if isinstance(progress_percent, bool) or not isinstance(progress_percent, int) or not 0 <= progress_percent <= 100:
        raise BadInput(f"progress must be a whole percent from 0 to 100, not {progress_percent!r}")
    if not (current_action or "").strip():
        raise BadInput("a heartbeat needs the current action")
    from gridgit.scratchpad.entry import check_one_line

    thread = check_one_line("thread", (thread_info or "").strip()) or "current task"
    action = check_one_line("action", current_action.strip())
    from gridgit.coordination.conflicts import normalise_path
    from gridgit.scratchpad import reads, store  # here: the status line reads staleness rules without them

    # The one gate of paths: one line, inside the work tree, never in .git/ (docs/security.md).
    files_touched = [normalise_path(layout, path) for path in files_touched]

    previous = reads.read_entries(layout, phase_id, agent_id=agent_id, category="heartbeat", limit=1)
    content = heartbeat_content(
        thread, progress_percent, action, files_touched, _duration(previous[0] if previous else None, clock.now())
    )
    entry = store.write_entry(
        layout,
        phase_id,
        agent_id,
        "heartbeat",
        "progress",
        content,
        ["heartbeat", "progress", "status"],
        relevance="LOW",
        block_id=block_id,
        title="Heartbeat",
        config=config,
    )
    stamp(layout, agent_id, entry.timestamp, f"heartbeat {progress_percent}%: {action}")
    return entry


def _newest(*timestamps: Any) -> str | None:
    """The newest of TIMESTAMPS that parse (ISO 8601 strings); None when none does."""
    best: tuple[datetime, str] | None = None
    for value in timestamps:
        if not isinstance(value, str) or not value:
            continue
        try:
            moment = clock.parse(value)
        except ValueError:
            continue
        if best is None or moment > best[0]:
            best = (moment, value)
    return best[1] if best else None


def _level(
    last: str | None, agent_id: str, now: datetime, config: dict[str, Any], registered_at: str | None = None
) -> dict[str, Any]:
    """The spec's staleness report for a last heartbeat at LAST (None: never).

    An agent that never beat is stale, unless it registered (REGISTERED_AT) less than the
    stale threshold ago: a new agent gets the same grace as one that just beat. An agent that
    sends no heartbeats (a scout, a planner: see sends_heartbeats) is neither: `stale` is None
    and its level `n/a`, in every view (`stale`, `agent list`, `status`, the watcher's sweep).
    """
    report: dict[str, Any] = {
        "agent_id": agent_id,
        "agent": agent_id,  # the key event payloads use
        "stale": True,
        "last_heartbeat": None,
        "minutes_since": None,
        "warning_level": "stale",
    }
    if not sends_heartbeats(agent_id):
        report.update(stale=None, warning_level="n/a")
        return report
    since = last or registered_at
    if since is None:
        return report
    try:
        minutes = clock.minutes_since(since, now)
    except ValueError:
        return report
    if minutes > config_mod.get(config, "heartbeat.stale_minutes"):
        level = "stale"
    elif minutes > config_mod.get(config, "heartbeat.warning_minutes"):
        level = "warning"
    else:
        level = "ok"
    report.update(stale=level == "stale", last_heartbeat=last, minutes_since=int(minutes), warning_level=level)
    return report


def health(
    last: Entry | None, agent_id: str, now: datetime, config: dict[str, Any], working_at: str | None = None
) -> dict[str, Any]:
    """The staleness report of AGENT_ID whose newest heartbeat entry is LAST (None: it never sent one) and
    whose latest sign of work is WORKING_AT (see `working`)."""
    return _level(_newest(last.timestamp if last else None, working_at), agent_id, now, config)


def _latest_heartbeats(entries: Iterable[Entry]) -> dict[str, Entry]:
    """agent id -> that agent's newest heartbeat among ENTRIES (given oldest first)."""
    latest: dict[str, Entry] = {}
    for entry in entries:
        if entry.category == "heartbeat":
            latest[entry.agent_id] = entry
    return latest


def check_agent_staleness(
    layout: Layout,
    phase_id: str,
    agent_id: str,
    now: datetime | None = None,
    config: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """{agent_id, stale, last_heartbeat, minutes_since, warning_level} of spec 6.5.

    A heartbeat moved to the archive by an auto-archive still counts, and so does any sign of
    work (gridgit.coordination.activity).
    """
    from gridgit.scratchpad import archive, reads

    found = reads.read_entries(layout, phase_id, agent_id=agent_id, category="heartbeat", limit=1)
    last = found[0] if found else _latest_heartbeats(archive.read(layout, phase_id)).get(agent_id)
    config = config or config_mod.load(layout)
    seen = _newest(last.timestamp if last else None, working(layout, agent_id, config))
    return _level(seen, agent_id, now or clock.now(), config)


def registered_staleness(
    layout: Layout,
    agent: dict[str, Any],
    phase_ids: Iterable[str],
    now: datetime | None = None,
    config: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The staleness of a registered AGENT (an agents.active item) from its newest sign of life, wherever it is.

    Its STATE `last_heartbeat` (every heartbeat stamps it), its latest heartbeat entry in
    PHASE_IDS (scratchpad or archive: it may have beaten before registering), its latest sign
    of work (gridgit.coordination.activity) and, before its first heartbeat, its registration:
    a phase change makes nobody stale.
    """
    agent_id = str(agent.get("id"))
    config = config or config_mod.load(layout)
    moment = now or clock.now()
    if not sends_heartbeats(agent_id):
        return _level(None, agent_id, moment, config)  # n/a: no heartbeat to look for
    beats = [
        check_agent_staleness(layout, p, agent_id, moment, config)["last_heartbeat"] for p in dict.fromkeys(phase_ids)
    ]
    last = _newest(agent.get("last_heartbeat"), working(layout, agent_id, config), *beats)
    return _level(last, agent_id, moment, config, agent.get("spawned_at"))


def working(layout: Layout, agent_id: str, config: dict[str, Any]) -> str | None:
    """AGENT_ID's latest sign of work (gridgit.coordination.activity), now while its agent tool still runs."""
    return activity.seen(layout, agent_id, float(config_mod.get(config, "heartbeat.session_minutes")))


def agent_ids(items: Any, phase_id: str | None = None) -> set[str]:
    """Ids in a STATE agents list (dicts with `id`, or plain strings).

    With PHASE_ID, an agent registered for another phase (its `phase` field) is left out.
    """
    ids = set()
    for item in items if isinstance(items, list) else []:
        value = item.get("id") if isinstance(item, dict) else item
        phase = item.get("phase") if isinstance(item, dict) else None
        if isinstance(value, str) and value and (phase_id is None or not phase or str(phase) == phase_id):
            ids.add(value)
    return ids


def phase_activity(layout: Layout, phase_id: str) -> tuple[set[str], dict[str, Entry]]:
    """(every agent that wrote in the phase, scratchpad or archive; agent id -> its newest heartbeat there)."""
    from gridgit.scratchpad import archive, store

    pad = store.load_if_any(layout, phase_id)
    entries = [*archive.read(layout, phase_id), *(pad.entries if pad else [])]
    return {a for e in entries for a in (e.agent_id, *e.contributors)}, _latest_heartbeats(entries)


def staleness_report(layout: Layout, phase_id: str | None = None, now: datetime | None = None) -> list[dict[str, Any]]:
    """The staleness of every watched agent of the phase (default: STATE's current), by agent id.

    Watched: every agent in STATE agents.active (unless registered for another phase) and
    every other agent that wrote in the phase (scratchpad or archive) and is not in
    agents.completed; never gridgit's `system` or Master Control.
    A registered agent's STATE `last_heartbeat` and registration, and any agent's latest sign
    of work (gridgit.coordination.activity), count as signs of life.
    """
    current_state = state.read(layout)
    phase_id = phase_id or state.current_phase(current_state)
    if not phase_id:
        return []
    check_phase_id(phase_id)
    config = config_mod.load(layout)
    agents = current_state.get("agents") or {}
    registered = {str(a.get("id")): a for a in agents.get("active") or [] if isinstance(a, dict)}
    watched, latest = phase_activity(layout, phase_id)
    watched -= agent_ids(agents.get("completed"))
    watched |= agent_ids(agents.get("active"), phase_id)
    moment = now or clock.now()
    reports = []
    for agent in sorted(watched):
        if agent.split("-", 1)[0].lower() in _NOT_WATCHED_TYPES:
            continue
        entry = latest.get(agent)
        me = registered.get(agent, {})
        last = _newest(me.get("last_heartbeat"), entry.timestamp if entry else None, working(layout, agent, config))
        reports.append(_level(last, agent, moment, config, me.get("spawned_at")))
    return reports


def stale_agents(layout: Layout, phase_id: str | None = None, now: datetime | None = None) -> list[dict[str, Any]]:
    """The staleness reports of the agents that are stale (silent too long or never beat)."""
    return [r for r in staleness_report(layout, phase_id, now) if r["stale"]]
