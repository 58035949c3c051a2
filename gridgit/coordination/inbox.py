"""The inbox of one agent: what is new for it since it last looked, each relevant event once.

What the agent integrations show a model at each turn. Relevant to agent A:
- `entry`: an entry on a topic A subscribed to, at its minimum relevance (the `subscribers`
  of `entry_written` / `entry_merged`; subscriptions carry into the next phase);
- `handoff`: a handoff to A (`**Block:** 01-02 -> executor-003`) or to A's registered block;
- `conflict`: a write conflict A is part of;
- `claim`: another agent's claim on a file A touched (`file_modified`) or on what A claimed;
- `resolution`: A's blocker or question resolved (or answered), a conflict on A's files closed;
- `phase`: a phase change;
- `block`, `budget`: a take of A's that lost to another clone's, A's block taken after A went
  quiet, the mission's budget reached (gridgit.work.notices).
A's own doings are never in its inbox.

The cursor is `.grid/events/cursors/inbox/<agent>.json` (machine-local: a position in the
event log and the files A touched lately). A fetch reads the log forward from it, never the
whole history, and moves it under A's own lock, so two fetches never deliver one event twice.
An agent's inbox opens at its registration (`gridgit agent register`) or its first fetch:
what came before is what its context pack shows.
"""

from __future__ import annotations

import contextlib
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from gridgit.coordination import claims
from gridgit.errors import BadInput, GridError
from gridgit.events import scan
from gridgit.model import state
from gridgit.model.permissions import check_agent_id
from gridgit.store import clock, fileio, locks
from gridgit.store.layout import Layout
from gridgit.work import notices

KINDS = ("entry", "handoff", "conflict", "claim", "resolution", "phase", "block", "budget")
TOUCHED_KEPT = 200  # the files an agent touched that its cursor remembers (newest)


@dataclass
class InboxItem:
    """One thing for the agent: its KIND (see KINDS), a one-line SUMMARY fit to show a model, the EVENT.

    ENTRY is the scratchpad entry (as a dict) for `entry` and `handoff` items while it is
    still in its scratchpad under that number, else None.
    """

    type: str
    summary: str
    event: dict[str, Any]
    entry: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def cursor_path(layout: Layout, agent_id: str) -> Path:
    return layout.cursors_dir / "inbox" / f"{check_agent_id(agent_id)}.json"


@dataclass
class _Cursor:
    position: scan.Position
    touched: list[str] = field(default_factory=list)


def _load(path: Path, agent_id: str) -> _Cursor | None:
    if not path.exists():
        return None
    try:
        data = json.loads(fileio.read_text(path))
        touched = [str(p) for p in data.get("touched") or []]
    except (json.JSONDecodeError, AttributeError, TypeError):
        raise BadInput(f"{path}: not an inbox cursor (delete it to reopen {agent_id}'s inbox from now)") from None
    return _Cursor(scan.Position.from_dict(data, str(path)), touched)


def _save(path: Path, cursor: _Cursor) -> None:
    data = {**cursor.position.to_dict(), "touched": cursor.touched[-TOUCHED_KEPT:], "updated_at": clock.now_iso()}
    fileio.atomic_write(path, json.dumps(data) + "\n", durable=False)


def start(layout: Layout, agent_id: str) -> bool:
    """Open AGENT_ID's inbox at the log's end unless it has one; True when it was opened now."""
    path = cursor_path(layout, agent_id)
    path.parent.mkdir(parents=True, exist_ok=True)
    with locks.locked(path):
        if path.exists():
            return False
        _save(path, _Cursor(scan.end_position(layout)))
    return True


class _Reader:
    """Decides, event by event, what is for AGENT_ID; what it needs is read once, when first needed."""

    def __init__(self, layout: Layout, agent_id: str, touched: list[str]) -> None:
        self.layout = layout
        self.me = agent_id
        self.touched = list(touched)
        self._block: str | bool | None = False  # False: STATE not read yet
        self._claims: list[str] | None = None

    def block(self) -> str | None:
        if self._block is False:
            try:
                active = (state.read(self.layout).get("agents") or {}).get("active") or []
            except GridError:
                active = []
            mine = next((a for a in active if isinstance(a, dict) and a.get("id") == self.me), {})
            self._block = str(mine.get("block") or "") or None
        return self._block if isinstance(self._block, str) else None

    def claimed(self) -> list[str]:
        if self._claims is None:
            try:
                self._claims = [c.pattern for c in claims.live_claims(self.layout, self.me)]
            except GridError:
                self._claims = []
        return self._claims

    def note_touch(self, payload: dict[str, Any]) -> None:
        for key in ("path", "old_path"):
            path = payload.get(key)
            if isinstance(path, str) and path:
                if path in self.touched:
                    self.touched.remove(path)
                self.touched.append(path)
        del self.touched[:-TOUCHED_KEPT]

    def item(self, event: dict[str, Any]) -> InboxItem | None:
        """The inbox item EVENT makes for this agent, or None."""
        kind = event.get("type")
        payload = event.get("payload") if isinstance(event.get("payload"), dict) else {}
        assert isinstance(payload, dict)
        actor = payload.get("agent")
        work = notices.inbox_line(event, self.me)
        if work is not None:
            return InboxItem(*work, event)
        if kind == "file_modified" and actor == self.me:
            self.note_touch(payload)
            return None
        if kind == "write_conflict" and self.me in [actor, *(payload.get("conflicting_agents") or [])]:
            # Also when A's own write found it: the model may not have seen the warning its tool printed.
            return InboxItem("conflict", _conflict_line(payload, self.me), event)
        if actor == self.me:
            return None
        if kind in ("entry_written", "entry_merged"):
            return self._entry(event, payload)
        if kind == "claim_added" and self._claim_concerns_me(payload):
            return InboxItem("claim", _claim_line(payload), event)
        if kind == "entry_resolved" and payload.get("entry_agent") == self.me:
            return InboxItem("resolution", _resolution_line(payload), event)
        if kind == "conflict_resolved" and set(payload.get("paths") or []) & set(self.touched):
            paths = ", ".join(str(p) for p in payload.get("paths") or [])
            note = f": {payload['note']}" if payload.get("note") else ""
            return InboxItem("resolution", f"write conflict on {paths} resolved by {actor}{note}", event)
        if kind == "phase_changed":
            return InboxItem(
                "phase", f"phase changed: {payload.get('old_phase') or '-'} -> {payload.get('new_phase')}", event
            )
        return None

    def _entry(self, event: dict[str, Any], payload: dict[str, Any]) -> InboxItem | None:
        where = f"{payload.get('phase_id')}#{payload.get('entry_id')}"
        said = f": {payload['summary']}" if payload.get("summary") else ""
        if payload.get("category") == "handoff":
            to_agent, to_block = payload.get("to_agent"), payload.get("to_block")
            if to_agent == self.me or (to_block and to_block == self.block()):
                target = "you" if to_agent == self.me else f"your block {to_block}"
                line = f"handoff to {target} from {payload.get('agent')} ({where} {payload.get('topic')}){said}"
                return InboxItem("handoff", line, event)
        if self.me in (payload.get("subscribers") or []):
            line = (
                f"{where} {payload.get('category')} | {payload.get('topic')} ({payload.get('relevance')}) "
                f"by {payload.get('agent')}{said}"
            )
            return InboxItem("entry", line, event)
        return None

    def _claim_concerns_me(self, payload: dict[str, Any]) -> bool:
        patterns = [str(p) for p in payload.get("patterns") or []]
        if any(claims.matches(p, path) for p in patterns for path in self.touched):
            return True
        return any(claims.overlaps(p, mine) for p in patterns for mine in self.claimed())


def _conflict_line(payload: dict[str, Any], me: str) -> str:
    others = sorted({str(payload.get("agent")), *map(str, payload.get("conflicting_agents") or [])} - {me})
    return f"write conflict on {payload.get('path')} with {', '.join(others)}: coordinate first (.grid/CHECKPOINT.md)"


def _claim_line(payload: dict[str, Any]) -> str:
    kind = "exclusively " if payload.get("exclusive") else ""
    reason = f" ({payload['reason']})" if payload.get("reason") else ""
    patterns = ", ".join(str(p) for p in payload.get("patterns") or [])
    return f"{payload.get('agent')} claimed {patterns} {kind}until {payload.get('expires_at')}{reason}"


def _resolution_line(payload: dict[str, Any]) -> str:
    where = (
        f"{payload.get('phase_id')}#{payload.get('entry_id')}" if payload.get("phase_id") else payload.get("entry_id")
    )
    about = f" [{payload['topic']}]" if payload.get("topic") else ""
    if payload.get("answer"):
        return f"your question {where}{about} was answered by {payload.get('agent')}: {payload['answer']}"
    note = f": {payload['note']}" if payload.get("note") else ""
    return f"your {payload.get('category')} {where}{about} was resolved by {payload.get('agent')}{note}"


def fetch(layout: Layout, agent_id: str, peek: bool = False, limit: int | None = None) -> list[InboxItem]:
    """What is new for AGENT_ID since its last fetch (at most LIMIT items; the rest wait), oldest first.

    The cursor moves past what was delivered (PEEK: it stays). A first fetch opens the
    inbox at the log's end and returns nothing.
    """
    layout.require()
    if limit is not None and limit < 1:
        raise BadInput(f"--limit {limit}: must be 1 or more")
    path = cursor_path(layout, agent_id)
    path.parent.mkdir(parents=True, exist_ok=True)
    items: list[InboxItem] = []
    with locks.locked(path):
        cursor = _load(path, agent_id)
        if cursor is None:
            if not peek:
                _save(path, _Cursor(scan.end_position(layout)))
            return []
        reader = _Reader(layout, agent_id, cursor.touched)
        forward = scan.ForwardScan(layout, cursor.position)
        with contextlib.closing(iter(forward)) as events:  # type: ignore[type-var]
            for event in events:
                item = reader.item(event)
                if item is not None:
                    items.append(item)
                    if limit is not None and len(items) >= limit:
                        break
        moved = forward.position is not None and forward.position != cursor.position
        if not peek and (moved or reader.touched != cursor.touched) and forward.position is not None:
            _save(path, _Cursor(forward.position, reader.touched))
    _attach_entries(layout, items)
    return items


def _attach_entries(layout: Layout, items: list[InboxItem]) -> None:
    """Give entry and handoff items their entry, one scratchpad read per phase."""
    if not any(item.type in ("entry", "handoff") for item in items):
        return  # the scratchpad modules are not even imported (the status line peeks after every message)
    from gridgit.scratchpad import store

    pads: dict[str, Any] = {}
    for item in items:
        payload = item.event["payload"]
        phase_id = payload.get("phase_id")
        if item.type not in ("entry", "handoff") or not isinstance(phase_id, str):
            continue
        if phase_id not in pads:
            try:
                pads[phase_id] = store.load_if_any(layout, phase_id)
            except GridError:
                pads[phase_id] = None
        pad = pads[phase_id]
        for entry in pad.entries if pad else []:
            if entry.id == payload.get("entry_id") and (entry.category, entry.topic) == (
                payload.get("category"),
                payload.get("topic"),
            ):
                item.entry = entry.to_dict()
