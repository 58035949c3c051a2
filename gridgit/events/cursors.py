"""Subscribers of the event log: EventStreamReader (spec section 3) and durable per-agent cursors.

A durable cursor is `.grid/events/cursors/<agent>.json`, machine-local and gitignored. A poll
reads from it and moves it forward under the agent's own lock, so two polls by one agent never
deliver the same event twice, and every event reaches each agent once.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from gridgit.errors import BadInput
from gridgit.events import scan, segments
from gridgit.model.permissions import check_agent_id
from gridgit.store import clock, fileio, locks
from gridgit.store.layout import Layout

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    Event = dict[str, Any]  # for the type checker: every annotation is a string at run time


class EventStreamReader:
    """Read new events from a position, filtered by type and by payload topic.

    OFFSET is a byte offset in the live log (0: its start), a Position, or None for the
    oldest kept segment. An event without a topic passes a topic filter, as in the spec.
    """

    def __init__(
        self,
        layout: Layout,
        types: Iterable[str] | None = None,
        topics: Iterable[str] | None = None,
        callback: Callable[[Event], None] | None = None,
        offset: int | scan.Position | None = 0,
    ) -> None:
        self.layout = layout
        self.types = frozenset(types) if types else None
        self.topics = frozenset(topics) if topics else None
        self.callback = callback
        self.position = offset if not isinstance(offset, int) else self._live_offset(offset)

    def _live_offset(self, offset: int) -> scan.Position:
        if offset < 0:
            raise BadInput(f"offset {offset}: must be 0 or more")
        number = segments.live_number(segments.archived(self.layout))
        try:
            inode = self.layout.events_log.stat().st_ino
        except FileNotFoundError:
            inode = 0
        return scan.Position(number, offset, inode)

    @classmethod
    def at_end(cls, layout: Layout, **kwargs: Any) -> EventStreamReader:
        """A reader that sees only the events appended from now on."""
        return cls(layout, offset=scan.end_position(layout), **kwargs)

    def wants(self, event: Event) -> bool:
        if self.types is not None and event["type"] not in self.types:
            return False
        if self.topics is not None:
            topic = event["payload"].get("topic")
            if topic and topic not in self.topics:
                return False
        return True

    def poll(self, limit: int | None = None) -> list[Event]:
        """The new events since the last poll (at most LIMIT); the position moves past them."""
        reader = scan.ForwardScan(self.layout, self.position)
        found: list[Event] = []
        for event in reader:
            if not self.wants(event):
                continue
            found.append(event)
            if self.callback is not None:
                self.callback(event)
            if limit is not None and len(found) >= limit:
                break
        if reader.position is not None:
            self.position = reader.position
        return found


def cursor_path(layout: Layout, agent_id: str) -> Path:
    return layout.cursors_dir / f"{check_agent_id(agent_id)}.json"


def load_cursor(layout: Layout, agent_id: str) -> scan.Position | None:
    """AGENT_ID's saved position, or None when it has never polled."""
    path = cursor_path(layout, agent_id)
    if not path.exists():
        return None
    text = fileio.read_text(path)
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        data = None
    if not isinstance(data, dict):
        raise BadInput(f"{path}: not an event cursor (reset it with `gridgit events reset --agent {agent_id}`)")
    return scan.Position.from_dict(data, str(path))


def _save(path: Path, position: scan.Position) -> None:
    data = {**position.to_dict(), "updated_at": clock.now_iso()}
    fileio.atomic_write(path, json.dumps(data) + "\n", durable=False)


def poll(
    layout: Layout,
    agent_id: str,
    types: Iterable[str] | None = None,
    topics: Iterable[str] | None = None,
    limit: int | None = None,
) -> list[Event]:
    """The events AGENT_ID has not seen yet (of TYPES/TOPICS), once; its cursor moves past them.

    Filtered-out events count as seen: the cursor is one position in the log per agent. A
    first poll starts at the oldest kept segment.
    """
    layout.require()
    if limit is not None and limit < 1:
        raise BadInput(f"--limit {limit}: must be 1 or more")
    path = cursor_path(layout, agent_id)
    fileio.make_folder(layout.cursors_dir)
    with locks.locked(path):
        reader = EventStreamReader(layout, types, topics, offset=load_cursor(layout, agent_id))
        found = reader.poll(limit)
        if isinstance(reader.position, scan.Position):
            _save(path, reader.position)
    return found


def reset(layout: Layout, agent_id: str, to_end: bool = False) -> scan.Position | None:
    """Forget what AGENT_ID has seen (next poll starts at the oldest event) or, TO_END, skip to now."""
    layout.require()
    path = cursor_path(layout, agent_id)
    fileio.make_folder(layout.cursors_dir)
    with locks.locked(path):
        if to_end:
            position = scan.end_position(layout)
            _save(path, position)
            return position
        path.unlink(missing_ok=True)
    return None


def follow(layout: Layout, n: int = 10, types: Iterable[str] | None = None, interval: float = 0.2) -> Iterator[Event]:
    """The last N events, then every new one as it arrives, forever (stop by closing the iterator)."""
    reader = EventStreamReader.at_end(layout, types=types)
    shown = scan.tail(layout, n, types)
    seen = {e["id"] for e in shown}
    yield from shown
    while True:
        fresh = [e for e in reader.poll() if e["id"] not in seen]
        seen.clear()  # only the events of the first tail can be read twice
        yield from fresh
        if not fresh:
            time.sleep(interval)
