"""Reading the event log: backwards from its end (bounded by time), forward from a position.

A reader's position is (segment, byte offset, inode, last id), so a reader inside a rotated
segment finishes it and continues in the next one, and a replaced file is resumed by id.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import re
from collections.abc import Iterable, Iterator
from pathlib import Path

from gridgit.errors import BadInput
from gridgit.events import lines, segments
from gridgit.events.lines import ReadStats
from gridgit.store import clock
from gridgit.store.layout import Layout
from gridgit.store.record import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import IO, Any

_FAST_TS_RE = re.compile(rb'"timestamp"\s*:\s*"([^"]*)"')
_FAST_TYPE_RE = re.compile(rb'^\{"id"\s*:\s*"[^"]*"\s*,\s*"type"\s*:\s*"([^"]*)"')
# Lines are appended in time order on one machine; merged or hand-edited logs may be a little
# out of order, so a time-bounded backward read stops only this far before its window.
SLACK_SECONDS = 60.0


def _cheap_timestamp(line: bytes) -> str | None:
    match = _FAST_TS_RE.search(line)
    return match.group(1).decode("utf-8", "replace") if match else None


def _before(timestamp: str, cutoff: str) -> bool:
    """TIMESTAMP < CUTOFF; the spec's fixed format compares as text, anything else is parsed."""
    if len(timestamp) == 20 and timestamp.endswith("Z"):
        return timestamp < cutoff
    try:
        return clock.parse(timestamp) < clock.parse(cutoff)
    except ValueError:
        return False


def read_backwards(
    layout: Layout,
    since: float | None = None,
    types: Iterable[str] | None = None,
    stats: ReadStats | None = None,
) -> Iterator[dict[str, Any]]:
    """Events newest first, from the end of the live log back through the archived segments.

    With SINCE it stops soon after the first line older than SINCE, so its cost follows the
    time window, not the length of the log. TYPES keeps only those types (checked before parsing).
    """
    wanted = {t.encode() for t in types} if types is not None else None
    cutoff = clock.iso(since) if since is not None else None
    stop = clock.iso(since - SLACK_SECONDS) if since is not None else None
    snap = segments.snapshot(layout)
    try:
        files: list[tuple[Path, IO[bytes] | None]] = [(layout.events_log, snap.current)]
        files += [(snap.archived[n], None) for n in sorted(snap.archived, reverse=True)]
        for path, handle in files:
            with contextlib.ExitStack() as stack:
                if handle is None:
                    try:
                        handle = stack.enter_context(open(path, "rb"))
                    except FileNotFoundError:  # pruned meanwhile: nothing older is left
                        return
                size = os.fstat(handle.fileno()).st_size
                for start, line in lines.backward(handle, size, stats):
                    timestamp = _cheap_timestamp(line)
                    if stop is not None and timestamp is not None and _before(timestamp, stop):
                        return
                    if wanted is not None:
                        fast = _FAST_TYPE_RE.match(line)
                        if fast is not None and fast.group(1) not in wanted:
                            continue
                    event = lines.parse_line(line, path, start)
                    if event is None or (wanted is not None and event["type"].encode() not in wanted):
                        continue
                    if cutoff is not None and _before(event["timestamp"], cutoff):
                        continue
                    yield event
    finally:
        snap.close()


def tail(layout: Layout, n: int = 20, types: Iterable[str] | None = None) -> list[dict[str, Any]]:
    """The last N events (of TYPES), oldest first."""
    if n <= 0:
        return []
    found = list(itertools.islice(read_backwards(layout, types=types), n))
    return found[::-1]


# ---- forward reading from a position ------------------------------------------------------


class Position(Record):
    """Where a reader is: segment number, byte offset in it, its inode, the last event id read.

    The inode tells a rotated file (same inode, new name) from a replaced one (a git checkout
    of a committed log); after a replacement the reader resumes by id instead of by offset.
    """

    FIELDS = ("segment", "offset", "inode", "last_id")
    __slots__ = FIELDS

    def __init__(self, segment: int, offset: int = 0, inode: int = 0, last_id: str = "") -> None:
        self.segment = segment
        self.offset = offset
        self.inode = inode
        self.last_id = last_id

    def to_dict(self) -> dict[str, Any]:
        return self.fields()

    @classmethod
    def from_dict(cls, data: dict[str, Any], source: str) -> Position:
        try:
            position = cls(int(data["segment"]), int(data["offset"]), int(data.get("inode", 0)), str(data["last_id"]))
        except (KeyError, TypeError, ValueError):
            raise BadInput(f"{source}: not an event cursor (reset it with `gridgit events reset`)") from None
        if position.segment < 1 or position.offset < 0:
            raise BadInput(f"{source}: not an event cursor (reset it with `gridgit events reset`)")
        return position


class ForwardScan:
    """Iterate events from a position (None: the oldest kept) across segments, in order.

    After each event yielded, `position` is just past it; once exhausted, it is the end of the
    complete lines of the live log.
    """

    def __init__(self, layout: Layout, start: Position | None, stats: ReadStats | None = None) -> None:
        self.layout = layout
        self.position = start
        self.stats = stats

    def __iter__(self) -> Iterator[dict[str, Any]]:
        snap = segments.snapshot(self.layout)
        try:
            yield from self._scan(snap)
        finally:
            snap.close()

    def _scan(self, snap: segments.Snapshot) -> Iterator[dict[str, Any]]:
        live = snap.current_number
        oldest = min(snap.archived, default=live)
        start = self.position
        last_id = start.last_id if start else ""
        skip_to = ""  # after a reset or replacement: deliver only ids after the last one read
        if start is None:
            number, offset, inode = oldest, 0, 0
        elif start.segment > live:
            lines.log().info("%s: the event log was reset; resuming after %s", self.layout.events_log, last_id)
            number, offset, inode, skip_to = oldest, 0, 0, last_id
        elif start.segment < oldest:
            lines.log().warning(
                "%s: segments up to %d were pruned; resuming at %d", self.layout.events_log, oldest - 1, oldest
            )
            number, offset, inode = oldest, 0, 0
        else:
            number, offset, inode = start.segment, start.offset, start.inode
        while number <= live:
            with contextlib.ExitStack() as stack:
                if number == live:
                    handle, path = snap.current, self.layout.events_log
                else:
                    path = snap.archived.get(number, segments.path(self.layout, number))
                    try:
                        handle = stack.enter_context(open(path, "rb"))
                    except FileNotFoundError:
                        handle = None
                if handle is None:
                    self.position = Position(number + 1 if number < live else number, 0, 0, last_id)
                    number, offset, inode = number + 1, 0, 0
                    continue
                status = os.fstat(handle.fileno())
                if (inode and status.st_ino != inode) or status.st_size < offset:
                    lines.log().info("%s: replaced since the last read; resuming after %s", path, last_id)
                    offset, skip_to = 0, last_id
                self.position = Position(number, offset, status.st_ino, last_id)
                for begin, end, line in lines.forward(handle, offset, self.stats):
                    event = lines.parse_line(line, path, begin)
                    if self.stats is not None:
                        self.stats.lines += 1
                    if event is not None:
                        last_id = event["id"]
                    self.position = Position(number, end, status.st_ino, last_id)
                    if event is None or (skip_to and event["id"] <= skip_to):
                        continue
                    yield event
                if number < live:
                    tail_bytes = status.st_size - self.position.offset
                    if tail_bytes > 0:
                        lines.log().warning("%s: skipping %d bytes of a torn last line", path, tail_bytes)
                    self.position = Position(number + 1, 0, 0, last_id)
            number, offset, inode = number + 1, 0, 0


def read_forward(layout: Layout, start: Position | None = None) -> Iterator[dict[str, Any]]:
    """Every event from START (default: the oldest kept segment), oldest first."""
    return iter(ForwardScan(layout, start))


def end_position(layout: Layout) -> Position:
    """The position after the last complete line of the live log: a reader from here sees only new events."""
    snap = segments.snapshot(layout)
    try:
        if snap.current is None:
            return Position(snap.current_number)
        status = os.fstat(snap.current.fileno())
        last = next(lines.backward(snap.current, status.st_size, None), None)
        offset = 0
        last_id = ""
        if last is not None:
            start, line = last
            offset = snap.current.seek(start) + len(line) + 1
            event = lines.decode(line)
            last_id = event["id"] if event else ""
        return Position(snap.current_number, offset, status.st_ino, last_id)
    finally:
        snap.close()
