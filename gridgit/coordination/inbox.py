"""The inbox of one agent: what is new for it since it last looked, each relevant event once.

What the agent integrations show a model at each turn. Relevant to agent A:
- `entry`: an entry on a topic A subscribed to, at its minimum relevance (the `subscribers`
  of `entry_written` / `entry_merged`, or A's machine-local subscription when A is a read-only
  agent; see gridgit.scratchpad.subscriptions);
- `handoff`: a handoff to A (`**Block:** 01-02 -> executor-003`) or to A's registered block;
- `conflict`: a write conflict A is part of;
- `claim`: another agent's claim on a file A touched (`file_modified`) or on what A claimed (from
  another clone too, when a sync brings it), A's exclusive claim that waits behind another clone's
  made first (`claim_lost`), and
  A's own claims Master Control released;
- `resolution`: A's blocker or question resolved (or answered), a conflict on A's files closed;
- `phase`: a phase change;
- `message`: a message to A, to A's block or to @all that A has not acknowledged: it stays
  in the inbox, fetch after fetch, until A acks it (gridgit.coordination.messages).
- `block`, `budget`: a take of A's that lost to another clone's, A's block taken after A went
  quiet, the mission's budget reached (gridgit.work.notices).
A's own doings are never in its inbox.

`fetch(urgent=True)` is what an agent tool's after-tool hook tells the model mid-turn: the
messages not told yet, others' write conflicts on A's files, claims on them, answers to A's
questions. Each is told once; the other items it read wait in the cursor (`held`) for the
next plain fetch, so every event still reaches A exactly once.

A fetch for a channel that reaches a model (an agent tool's hook: CHANNEL given) follows the
ledger of what A was told (gridgit.coordination.ledger, kept in the cursor): a message is
news once, in whichever session and channel first told it; an event the ledger knows (a
write conflict the agent's own edit found and its hook told at once) is not told again. A
plain fetch (`gridgit inbox`) shows the open messages every time.

The cursor is `.grid/events/cursors/inbox/<agent>.json` (machine-local: a position in the
event log and the files A touched lately). A fetch reads the log forward from it, never the
whole history, and moves it under A's own lock, so two fetches never deliver one event twice.
An agent's inbox opens at its registration (`gridgit agent register`), its subscription
(`gridgit subscribe`) or its first fetch: what came before is what its context pack shows.
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

from gridgit.coordination import claims, globs, messages
from gridgit.coordination.ledger import MESSAGE, Ledger
from gridgit.errors import BadInput, GridError
from gridgit.events import scan
from gridgit.events.own import own_doing
from gridgit.model import state
from gridgit.model.permissions import check_agent_id
from gridgit.store import clock, fileio, locks
from gridgit.store.layout import Layout
from gridgit.store.record import Record
from gridgit.store.where import INBOX_CURSORS
from gridgit.work import notices

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

KINDS = ("message", "entry", "handoff", "conflict", "claim", "resolution", "phase", "block", "budget")
TOUCHED_KEPT = 200  # the files an agent touched that its cursor remembers (newest)
HELD_KEPT = 200  # items an urgent fetch read past and keeps for the next fetch (oldest dropped)


class InboxItem(Record):
    """One thing for the agent: its KIND (see KINDS), a one-line SUMMARY fit to show a model, the EVENT.

    ENTRY is the scratchpad entry (as a dict) for `entry` and `handoff` items, found by its
    stable id in its phase's scratchpad or archive (None when it is in neither).
    """

    FIELDS = __slots__ = ("type", "summary", "event", "entry")

    def __init__(self, type: str, summary: str, event: dict[str, Any], entry: dict[str, Any] | None = None) -> None:
        self.type, self.summary, self.event, self.entry = type, summary, event, entry

    def to_dict(self) -> dict[str, Any]:
        return self.fields()


def cursor_path(layout: Layout, agent_id: str) -> Path:
    return layout.grid / INBOX_CURSORS / f"{check_agent_id(agent_id)}.json"


class _Cursor(Record):
    """Where the agent's inbox stands: its POSITION in the log, the files it TOUCHED lately, items an
    urgent fetch read and HELD (not told yet), and the LEDGER of what was told (gridgit.coordination.ledger)."""

    FIELDS = __slots__ = ("position", "touched", "held", "ledger")

    def __init__(
        self,
        position: scan.Position,
        touched: list[str] | None = None,
        held: list[InboxItem] | None = None,
        ledger: Ledger | None = None,
    ) -> None:
        self.position, self.touched, self.held = position, touched or [], held or []
        self.ledger = ledger if ledger is not None else Ledger()


def _load(path: Path, agent_id: str) -> _Cursor | None:
    if not path.exists():
        return None
    try:
        data = json.loads(fileio.read_text(path))
        touched = [str(p) for p in data.get("touched") or []]
        held = [InboxItem(**item) for item in data.get("held") or []]
        ledger = Ledger.from_data(data.get("told") or {})
    except (json.JSONDecodeError, AttributeError, TypeError):
        raise BadInput(f"{path}: not an inbox cursor (delete it to reopen {agent_id}'s inbox from now)") from None
    return _Cursor(scan.Position.from_dict(data, str(path)), touched, held, ledger)


def _save(path: Path, cursor: _Cursor) -> None:
    data = {**cursor.position.to_dict(), "touched": cursor.touched[-TOUCHED_KEPT:], "updated_at": clock.now_iso()}
    if cursor.held or cursor.ledger:
        data.update(held=[i.to_dict() for i in cursor.held[-HELD_KEPT:]], told=cursor.ledger.to_data())
    fileio.atomic_write(path, json.dumps(data) + "\n", durable=False)


def _opened(layout: Layout, path: Path, agent_id: str) -> tuple[_Cursor, bool]:
    """AGENT_ID's cursor (held under its lock by the caller), and whether it is new (opened at the log's end)."""
    cursor = _load(path, agent_id)
    return (_Cursor(scan.end_position(layout)), True) if cursor is None else (cursor, False)


def note_told(
    layout: Layout, agent_id: str, ids: list[str], session: str | None, channel: str, kind: str = "event"
) -> list[str]:
    """Record in AGENT_ID's ledger that IDS (messages, with KIND `message`, or events) were told to its model
    through CHANNEL in SESSION; the ids it did not know yet."""
    if not ids:
        return []
    path = cursor_path(layout, agent_id)
    fileio.make_folder(path.parent)
    with locks.locked(path):
        cursor, _ = _opened(layout, path, agent_id)
        new = cursor.ledger.note(ids, session, channel, kind)
        if new:
            _save(path, cursor)
    return new


def ledger(layout: Layout, agent_id: str) -> Ledger:
    """What AGENT_ID's model was told (read only: its inbox is not opened by asking)."""
    cursor = _load(cursor_path(layout, agent_id), agent_id)
    return cursor.ledger if cursor is not None else Ledger()


def subscribe(
    layout: Layout, phase_id: str, agent_id: str, topics: list[str], relevance_min: str = "LOW"
) -> dict[str, Any]:
    """Subscribe AGENT_ID (see gridgit.scratchpad.subscriptions) and open its inbox now, unless it is open."""
    from gridgit.scratchpad import subscriptions

    subscription = subscriptions.subscribe(layout, phase_id, agent_id, topics, relevance_min)
    start(layout, agent_id)
    return subscription


def start(layout: Layout, agent_id: str) -> bool:
    """Open AGENT_ID's inbox at the log's end unless it has one; True when it was opened now."""
    path = cursor_path(layout, agent_id)
    fileio.make_folder(path.parent)
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
        self._subscription: dict[str, Any] | bool | None = False  # False: not looked for yet

    def block(self) -> str | None:
        if self._block is False:
            try:
                mine = state.registered_agent(state.read(self.layout), self.me)
            except GridError:
                mine = {}
            self._block = str(mine.get("block") or "") or None
        return self._block if isinstance(self._block, str) else None

    def claimed(self) -> list[str]:
        if self._claims is None:
            try:
                self._claims = [c.pattern for c in claims.live_claims(self.layout, self.me)]
            except GridError:
                self._claims = []
        return self._claims

    def subscribed(self, payload: dict[str, Any]) -> bool:
        """Whether the entry of PAYLOAD is for this agent by its subscription."""
        if self.me in (payload.get("subscribers") or []):
            return True
        if self._subscription is False:
            from gridgit.scratchpad import subscriptions

            # Only a read-only agent has a machine-local subscription: a writer's is in the event.
            self._subscription = (
                subscriptions.local(self.layout, self.me) if subscriptions.stored_locally(self.me) else None
            )
        if not isinstance(self._subscription, dict):
            return False
        from gridgit.scratchpad.store import subscription_matches

        return subscription_matches(self._subscription, str(payload.get("topic")), str(payload.get("relevance")))

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
        if own_doing(event, self.me):
            return None
        if kind in ("entry_written", "entry_merged"):
            return self._entry(event, payload)
        if kind == "claim_added" and self._claim_concerns_me(payload):
            return InboxItem("claim", _claim_line(payload), event)
        if kind == "claim_lost" and payload.get("holder") == self.me:  # another clone's claim was first
            return InboxItem("claim", f"your exclusive claim on {payload.get('pattern')} waits behind "
                             f"{payload.get('winner')}'s on {payload.get('winner_pattern')}, made first in another clone: "
                             "they hold those files; coordinate before editing them", event)  # fmt: skip
        if kind == "claim_released" and payload.get("holder") == self.me:  # Master Control released it
            patterns = ", ".join(str(p) for p in payload.get("patterns") or [])
            return InboxItem("claim", f"{actor} released your claim on {patterns}: it no longer holds", event)
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
        if self.subscribed(payload):
            line = (
                f"{where} {payload.get('category')} | {payload.get('topic')} ({payload.get('relevance')}) "
                f"by {payload.get('agent')}{said}"
            )
            return InboxItem("entry", line, event)
        return None

    def _claim_concerns_me(self, payload: dict[str, Any]) -> bool:
        patterns = [str(p) for p in payload.get("patterns") or []]
        if any(globs.matches(p, path) for p in patterns for path in self.touched):
            return True
        return any(globs.overlaps(p, mine) for p in patterns for mine in self.claimed())


def _conflict_line(payload: dict[str, Any], me: str) -> str:
    others = sorted({str(payload.get("agent")), *map(str, payload.get("conflicting_agents") or [])} - {me})
    return f"write conflict on {payload.get('path')} with {', '.join(others)}: coordinate first (.grid/CHECKPOINT.md)"


def _claim_line(payload: dict[str, Any]) -> str:
    kind = "exclusively " if payload.get("exclusive") else ""
    reason = f" ({payload['reason']})" if payload.get("reason") else ""
    patterns = ", ".join(str(p) for p in payload.get("patterns") or [])
    return f"{payload.get('agent')} claimed {patterns} {kind}until {payload.get('expires_at')}{reason}"


def _resolution_line(payload: dict[str, Any]) -> str:
    archived = " archive" if payload.get("source") == "archive" else ""
    where = (
        f"{payload.get('phase_id')}{archived}#{payload.get('entry_id')}"
        if payload.get("phase_id")
        else payload.get("entry_id")
    )
    about = f" [{payload['topic']}]" if payload.get("topic") else ""
    if payload.get("answer"):
        return f"your question {where}{about} was answered by {payload.get('agent')}: {payload['answer']}"
    note = f": {payload['note']}" if payload.get("note") else ""
    done = "taken" if payload.get("category") == "handoff" else "resolved"
    return f"your {payload.get('category')} {where}{about} was {done} by {payload.get('agent')}{note}"


def fetch(
    layout: Layout,
    agent_id: str,
    peek: bool = False,
    limit: int | None = None,
    urgent: bool = False,
    channel: str | None = None,
    session: str | None = None,
) -> list[InboxItem]:
    """What is new for AGENT_ID since its last fetch (at most LIMIT items; the rest wait), oldest first.

    Its unacknowledged messages come first: on every plain fetch, and once per agent for a
    CHANNEL that reaches its model (an agent tool's hook, in SESSION: the ledger records what
    it told). The cursor moves past what was delivered (PEEK: it stays). A first fetch opens
    the inbox at the log's end. URGENT: only what an after-tool hook tells mid-turn, each once;
    what else it read is held for the next fetch.
    """
    layout.require()
    if limit is not None and limit < 1:
        raise BadInput(f"--limit {limit}: must be 1 or more")
    path = cursor_path(layout, agent_id)
    if not peek:  # a peek writes nothing, not even the cursors' folder (a read-only checkout may not)
        fileio.make_folder(path.parent)
    with locks.locked(path):
        cursor, opened = _opened(layout, path, agent_id)
        reader = _Reader(layout, agent_id, cursor.touched)
        unacked = [
            InboxItem("message", m.summary(), m.as_event())
            for m in messages.unacked_for(layout, agent_id, reader.block)
        ]
        ledger = Ledger(cursor.ledger.told)
        told = channel is not None or urgent  # a hook's fetch: a message is news once
        mail = [m for m in unacked if not ledger.knows(m.event["id"])] if told else unacked
        mail = mail[:limit]
        room = None if limit is None else limit - len(mail)
        found, held, position = _events(layout, cursor, reader, room, ledger)
        if urgent:
            held = [i for i in found if not _urgent(i, agent_id)] + held
            found = [i for i in found if _urgent(i, agent_id)]
        items = mail + found
        if not peek:
            ledger.keep_messages({m.event["id"] for m in unacked})
            if told:
                ledger.note([m.event["id"] for m in mail], session, channel or "mid-turn", MESSAGE)
            after = _Cursor(position, reader.touched, held, ledger)
            if opened or after != cursor:
                _save(path, after)
    _attach_entries(layout, items)
    return items


def _events(
    layout: Layout, cursor: _Cursor, reader: _Reader, room: int | None, ledger: Ledger
) -> tuple[list[InboxItem], list[InboxItem], scan.Position]:
    """Up to ROOM event items, oldest first (the held ones, then the log's from the cursor on), but those
    LEDGER knows as told (forgotten there as they are passed): (them, the held ones left, the position the
    log was read to)."""
    if room is not None and room <= len(cursor.held):
        return cursor.held[: max(room, 0)], cursor.held[max(room, 0) :], cursor.position
    items = list(cursor.held)
    forward = scan.ForwardScan(layout, cursor.position)
    with contextlib.closing(iter(forward)) as events:  # type: ignore[type-var]
        for event in events:
            item = reader.item(event)
            if item is not None and ledger.knows(str(event.get("id"))):
                ledger.forget(str(event.get("id")))  # told the moment it happened (the agent's own conflict)
            elif item is not None:
                items.append(item)
                if room is not None and len(items) >= room:
                    break
    return items, [], forward.position or cursor.position


def _urgent(item: InboxItem, me: str) -> bool:
    """Told mid-turn: a message, a claim on A's files, another's write conflict with A, an answer to A's question."""
    payload = item.event.get("payload") or {}
    if item.type == "conflict":
        return payload.get("agent") != me
    if item.type == "resolution":
        return bool(payload.get("answer"))
    return item.type in ("message", "claim")


def _attach_entries(layout: Layout, items: list[InboxItem]) -> None:
    """Give entry and handoff items their entry, by its stable id (numbers change when a scratchpad
    is archived): one read of a phase's scratchpad, and of its archive for what is not there."""
    if not any(item.type in ("entry", "handoff") for item in items):
        return  # the scratchpad modules are not even imported (the status line peeks after every message)
    from gridgit.scratchpad import archive, store

    found: dict[str, dict[str, Any]] = {}
    read: set[tuple[str, bool]] = set()
    for item in items:
        payload = item.event["payload"]
        phase_id, uid = payload.get("phase_id"), payload.get("entry_uid")
        if item.type not in ("entry", "handoff") or not isinstance(phase_id, str) or not isinstance(uid, str):
            continue
        for archived in (False, True):
            if uid in found or (phase_id, archived) in read:
                continue
            read.add((phase_id, archived))
            try:
                pad = None if archived else store.load_if_any(layout, phase_id)
                entries = archive.read(layout, phase_id) if archived else (pad.entries if pad else [])
            except GridError:
                entries = []
            found.update((e.uid, e.to_dict()) for e in entries)
        item.entry = found.get(uid)
