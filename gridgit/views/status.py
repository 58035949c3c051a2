"""The mission dashboard: STATE, agents and their heartbeats, the phase's blocks, cost, open issues and
debug sessions, conflicts, recent events."""

from __future__ import annotations

import time
from collections.abc import Callable

from gridgit.coordination import agents
from gridgit.errors import GridError
from gridgit.model import state as state_mod
from gridgit.store import clock
from gridgit.views import history, roster

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from gridgit.scratchpad.entry import Entry
    from gridgit.store.layout import Layout

RECENT_EVENTS = 8
RECENT_CONFLICTS = 5
RECENT_DECISIONS = 5  # STATE persistent.decisions: the mission's architectural decisions (L3)
RECENT_DEBUG = 5
# Conflicts older than this are history, not something an agent should act on.
CONFLICT_HORIZON_MINUTES = 60
_OPEN_ORDER = {"blocker": 0, "question": 1, "handoff": 2, "warning": 3}


def open_items(st: dict[str, Any], phase_id: str | None, entries: list[Entry]) -> list[dict[str, Any]]:
    """Every open item: the phase's open ENTRIES (live ones newest first, then those only its archive
    holds), blockers first, and the STATE blockers no entry stands for.

    A blocker entry and the STATE blocker it added (`entry` = its uid) are one item.
    """
    from gridgit.scratchpad.entry import headline

    items: list[dict[str, Any]] = []
    linked: dict[str, Any] = {}
    shown = {e.uid for e in entries if e.is_open}
    for blocker in st.get("blockers", []):
        if state_mod.is_resolved(blocker):
            continue
        if isinstance(blocker, dict) and blocker.get("entry") in shown:
            linked[str(blocker["entry"])] = blocker.get("id")
        elif isinstance(blocker, dict):
            items.append(
                {
                    "source": "STATE",
                    "kind": "blocker",
                    "id": blocker.get("id"),
                    "text": blocker.get("description") or blocker.get("type") or str(blocker),
                    "agent": blocker.get("source"),
                    "timestamp": blocker.get("added_at"),
                }
            )
        else:
            items.append({"source": "STATE", "kind": "blocker", "id": None, "text": str(blocker)})
    found = [e for e in entries if e.is_open]
    found = [*reversed([e for e in found if not e.archived]), *reversed([e for e in found if e.archived])]
    found.sort(key=lambda e: _OPEN_ORDER[e.category])  # stable: newest first within each kind
    for entry in found:
        where = f"{phase_id} archive#{entry.id}" if entry.archived else f"{phase_id}#{entry.id}"
        item = {
            "source": where,
            "kind": entry.category,
            "id": entry.id,
            "uid": entry.uid,
            "text": f"[{entry.topic}] {headline(entry.content) or entry.topic}",
            "agent": entry.agent_id,
            "timestamp": entry.timestamp,
            "relevance": entry.relevance,
            "archived": entry.archived,
        }
        if entry.uid in linked:
            item["state_id"] = linked[entry.uid]
        items.append(item)
    return items


def phase_entries(layout: Layout, phase_id: str | None) -> list[Entry]:
    """The phase's scratchpad entries and the open ones only its archive holds; none for no phase or
    files that do not load."""
    from gridgit.scratchpad import reads, store

    if not phase_id:
        return []
    try:
        live = store.load(layout, phase_id).entries
    except GridError:
        return []
    try:
        return [*live, *reads.archived_open(layout, phase_id, live)]
    except GridError:
        return live


def _recent_events(layout: Layout) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(last events newest first, write conflicts of the last hour), read backwards from the log's end."""
    import itertools

    from gridgit.events import scan

    if not layout.events_log.exists():
        return [], []
    last = scan.tail(layout, RECENT_EVENTS)[::-1]
    since = clock.now_seconds() - CONFLICT_HORIZON_MINUTES * 60
    found = scan.read_backwards(layout, since=since, types=["write_conflict"])
    return last, list(itertools.islice(found, RECENT_CONFLICTS))


def stale_evidence(layout: Layout, phase_id: str | None, entries: list[Entry]) -> list[dict[str, Any]]:
    """The phase's entries and the learnings whose cited lines changed since the cited commit (no git when none cite one)."""
    from gridgit.git import evidence
    from gridgit.model import learnings

    cited = evidence.entry_citations(phase_id, entries) if phase_id else []
    try:
        cited += evidence.learning_citations(learnings.read(layout))
        if not cited:
            return []  # nothing cited: git and the diff machinery are not even imported
        from gridgit.git import staleness

        report = staleness.check(layout.root, cited, attribute=False)
    except GridError:
        return []  # a broken LEARNINGS.md or a git that fails: the dashboard shows the rest
    return [
        {"source": f.source.key, "title": f.source.title, "agent": f.source.agent, "file": f.citation.path,
         "reasons": f.reasons, "summary": f.describe()}
        for f in report.stale
    ]  # fmt: skip


def work(layout: Layout, phase_id: str | None, config: dict[str, Any]) -> dict[str, Any]:
    """The phase's blocks and which are ready, the mission's cost against its limit, the last debug sessions.

    A broken work file is named in `work_error`; the rest of the dashboard still shows.
    """
    from gridgit.work import blocks, budget, debug, queue

    found: dict[str, Any] = {"blocks": [], "ready": [], "budget": None, "debug": [], "work_error": None}
    try:
        rows = blocks.load_phase(layout, phase_id) if phase_id else []
        keys = ("block_id", "name", "status", "owner", "wave", "depends_on")
        found["blocks"] = [{k: getattr(b, k) for k in keys} for b in rows]
        found["ready"] = [o.block.block_id for o in queue.ready(layout, phase_id)] if rows else []
        report = budget.report(layout, config)
        found["budget"] = {"total_usd": report["total"]["cost_usd"], "messages": report["total"]["messages"],
                           "limit_usd": report["limit_usd"], "percent": report["percent"],
                           "warning": report["warning"]}  # fmt: skip
        found["debug"] = debug.sessions(layout)[:RECENT_DEBUG]
    except GridError as exc:
        found["work_error"] = str(exc)
    return found


def summary(layout: Layout, config: dict[str, Any]) -> dict[str, Any]:
    """Everything the dashboard shows, as data (what `status --json` prints); CONFIG is config.json, loaded."""
    st = state_mod.read(layout)
    pos = st.get("position", {})
    phase_id = pos.get("phase_id")
    last, conflicts = _recent_events(layout)
    entries = phase_entries(layout, phase_id)
    return {
        "mission": st.get("cluster"),
        "mission_id": st.get("mission_id"),
        "status": st.get("status"),
        "mode": st.get("mode"),
        "progress": st.get("progress", {}).get("percent", 0),
        "position": {
            k: pos.get(k)
            for k in ("phase", "phase_id", "phase_name", "block", "block_id", "block_name", "thread", "thread_total")
        },
        "phases_total": st.get("phases", {}).get("total", 0),
        "phases_completed": list(st.get("phases", {}).get("completed", [])),
        "agents": agents.active_rows(layout, st, config),
        "open": open_items(st, phase_id, entries),
        "stale_evidence": stale_evidence(layout, phase_id, [e for e in entries if not e.archived]),
        "warnings": st.get("warnings", []),
        "decisions": list((st.get("persistent") or {}).get("decisions") or [])[-RECENT_DECISIONS:],
        "conflicts": conflicts,
        "events": last,
        "last_commit": st.get("resume", {}).get("last_commit"),
        "updated_at": st.get("updated_at"),
        "history": history.safe_summary(layout),
        **work(layout, phase_id, config),
    }


def age(minutes: Any) -> str:
    if minutes is None:
        return "never"
    minutes = float(minutes)
    if minutes < 1:
        return "just now"
    if minutes < 60:
        return f"{int(minutes)}m ago"
    return f"{int(minutes // 60)}h{int(minutes % 60):02d}m ago"


def _event_line(event: dict[str, Any]) -> str:
    payload = event.get("payload", {}) if isinstance(event.get("payload"), dict) else {}
    who = roster.event_agent(event) or ""
    what = payload.get("path") or payload.get("topic") or payload.get("phase_id") or payload.get("commit") or ""
    stamp = str(event.get("timestamp", ""))[11:19]
    return f"  {stamp}  {event.get('type', '?'):<18} {who:<14} {what}".rstrip()


def render(data: dict[str, Any]) -> str:
    """The dashboard as text, one screen."""
    pos = data["position"]
    percent = float(data["progress"] or 0)
    lines = [
        f"Mission: {data['mission']}  [{data['status']}, {data['mode']}]",
        f"Progress: [{state_mod.progress_bar(percent)}] {percent:g}%",
        f"Phase {pos['phase']}/{data['phases_total']}: {pos['phase_id'] or '-'} {pos['phase_name'] or ''}".rstrip()
        + (f"  (completed: {', '.join(data['phases_completed'])})" if data["phases_completed"] else ""),
        f"Block {pos['block_id'] or pos['block'] or '-'}: {pos['block_name'] or '-'}"
        f"   Thread {pos['thread'] or '-'}/{pos['thread_total'] or '-'}",
        "",
        f"Agents ({len(data['agents'])} active):",
    ]
    for agent in data["agents"]:
        mark = {"stale": "STALE", "warning": "slow", "ok": "ok", "n/a": "-"}.get(str(agent.get("warning_level")), "?")
        lines.append(
            f"  {agent['id']:<16} {mark:<6} heartbeat {age(agent.get('minutes_since')):<10} "
            f"{agent.get('task') or ''}".rstrip()
        )
    if not data["agents"]:
        lines.append("  none")
    lines += _work_lines(data, pos.get("phase_id"))
    lines += ["", f"Open work: blockers, questions, handoffs, warnings ({len(data['open'])}):"]
    lines += [_open_line(i) for i in data["open"][:10]] or ["  none"]
    if data["decisions"]:
        lines += ["", "Mission decisions (newest last):"]
        lines += [f"  {_decision_line(d)}" for d in data["decisions"]]
    lines += ["", f"Recent write conflicts ({len(data['conflicts'])}):"]
    for event in data["conflicts"]:
        payload = event.get("payload", {})
        others = ", ".join(str(a) for a in payload.get("conflicting_agents") or []) or "?"
        lines.append(
            f"  {str(event.get('timestamp', ''))[11:19]}  {payload.get('path')}: {payload.get('agent')} vs {others}"
        )
    if not data["conflicts"]:
        lines.append("  none")
    if data["stale_evidence"]:
        lines += ["", f"Stale evidence ({len(data['stale_evidence'])}, see `gridgit evidence check`):"]
        lines += [f"  {s['source']:<18} {s['summary']}" for s in data["stale_evidence"][:10]]
    lines += history.render(data["history"])
    lines += ["", "Last events:"]
    lines += [_event_line(e) for e in data["events"]] or ["  none"]
    lines += ["", f"Last commit: {data['last_commit'] or '-'}   Updated: {data['updated_at']}"]
    return "\n".join(lines)


def _decision_line(decision: Any) -> str:
    if not isinstance(decision, dict):
        return str(decision)
    where = f" ({decision['phase_decided']})" if decision.get("phase_decided") else ""
    return f"{decision.get('decision') or decision.get('id')}{where}"


def _open_line(item: dict[str, Any]) -> str:
    # An archived entry is numbered in its archive: its stable id is what `gridgit resolve` takes.
    resolve_by = f"  (id {item['uid']})" if item.get("archived") else ""
    return f"  {item['kind']:<8} {item['source']:<18} {item['text']}{resolve_by}"


def _work_lines(data: dict[str, Any], phase_id: str | None) -> list[str]:
    """The dashboard's blocks, cost and debug sessions."""
    lines: list[str] = []
    if data.get("work_error"):
        lines += ["", f"Blocks, cost, debug sessions: {data['work_error']}"]
    rows = data.get("blocks") or []
    if rows:
        done = sum(1 for b in rows if b["status"] == "complete")
        ready = f"; ready: {', '.join(data['ready'])}" if data.get("ready") else ""
        lines += ["", f"Blocks of {phase_id} ({done} of {len(rows)} complete{ready}):"]
        lines += [f"  {b['block_id']:<6} {b['status']:<12} {b['owner'] or '-':<16} {b['name'] or ''}".rstrip()
                  for b in rows]  # fmt: skip
    cost = data.get("budget")
    if cost is not None:
        limit = f" of ${cost['limit_usd']:,.2f} ({cost['percent']:g}%)" if cost["limit_usd"] else ""
        lines += ["", f"Cost: ${cost['total_usd']:,.4f}{limit}, {cost['messages']:,} messages (`gridgit budget`)"]
        if cost["warning"]:
            lines.append(f"WARNING: {cost['warning']}")
    if data.get("debug"):
        still = sum(1 for d in data["debug"] if d.get("status") == "open")
        lines += ["", f"Debug sessions ({still} open of the last {len(data['debug'])}, `gridgit debug list`):"]
        lines += [f"  {d['session_id']:<40} {d.get('status'):<7} {d.get('agent') or '-':<16} {d.get('title')}"
                  for d in data["debug"]]  # fmt: skip
    return lines


def watch(
    refresh: Callable[[], dict[str, Any]],
    show: Callable[[dict[str, Any]], None],
    interval: float = 2.0,
    count: int | None = None,
) -> int:
    """Call SHOW with REFRESH() (a fresh summary) every INTERVAL seconds, COUNT times or until Ctrl-C.

    Returns the number of refreshes; Ctrl-C raises KeyboardInterrupt, which the CLI, like
    every command that follows something, answers with exit 130.
    """
    shown = 0
    while count is None or shown < count:
        show(refresh())
        shown += 1
        if count is not None and shown >= count:
            break
        time.sleep(interval)
    return shown
