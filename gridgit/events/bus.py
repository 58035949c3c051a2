"""The event log: `.grid/events/current.jsonl`, the live pub/sub and conflict-detection feed.

One JSON object a line, `{"id", "type", "timestamp", "payload"}`, appended under the events
lock. Past `events.rotate_bytes` the log is renamed to `events/archive/current-NNNNNN.jsonl`
(segment NNNNNN) and a new one starts; a reader's position is (segment, byte offset), so a
reader inside a rotated segment finishes it and continues in the next one.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import re
import time
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from gridgit.errors import BadInput, GridError
from gridgit.store import clock, fileio
from gridgit.store import config as config_mod
from gridgit.store.layout import Layout
from gridgit.store.redaction import redact_obj

if TYPE_CHECKING:
    import logging


def _log() -> logging.Logger:
    # logging costs ~5 ms to import; only readers that meet a damaged log need it.
    import logging

    return logging.getLogger("gridgit.events.bus")


# Every event type gridgit knows; `gridgit events emit` refuses any other.
EVENT_TYPES = (
    # L3 state (spec section 3)
    "state_updated", "phase_changed", "blocker_added",
    # L2 scratchpads
    "entry_written", "entry_merged", "handoff_posted", "scratchpad_archived", "scratchpad_reindexed", "heartbeat",
    # agents
    "agent_spawned", "agent_complete", "agent_stale",
    # phases and L4 (scratchpad protocol)
    "phase_started", "phase_completed", "phase_archived", "learning_extracted",
    # work tree, conflicts and claims
    "file_modified", "files_modified_bulk", "write_conflict", "conflict_resolved", "claim_added", "claim_released",
    # git integration, watcher and set-up
    "commit_recorded", "validation_failed", "grid_initialised", "daemon_started", "daemon_stopped",
)  # fmt: skip
OPERATIONS = ("created", "modified", "deleted", "moved")

_TYPE_RE = re.compile(r"^[a-z][a-z0-9_]{0,63}$")
_SEGMENT_RE = re.compile(r"^current-(\d{6,})\.jsonl$")
_FAST_TS_RE = re.compile(rb'"timestamp"\s*:\s*"([^"]*)"')
_FAST_TYPE_RE = re.compile(rb'^\{"id"\s*:\s*"[^"]*"\s*,\s*"type"\s*:\s*"([^"]*)"')
BLOCK = 64 * 1024
# Lines are appended in time order on one machine; merged or hand-edited logs may be a little
# out of order, so a time-bounded backward read stops only this far before its window.
SLACK = timedelta(minutes=1)
_sequence = itertools.count()


def new_id() -> str:
    """A unique id that sorts by time: nanoseconds, then pid and a per-process counter."""
    return f"{time.time_ns():016x}-{os.getpid():07x}-{next(_sequence) & 0xFFFFFF:06x}"


def check_type(event_type: str, known_only: bool = False) -> str:
    """EVENT_TYPE when it is a snake_case name (and, with KNOWN_ONLY, one of EVENT_TYPES)."""
    if not isinstance(event_type, str) or not _TYPE_RE.match(event_type):
        raise BadInput(f"invalid event type {event_type!r}: expected a snake_case name")
    if known_only and event_type not in EVENT_TYPES:
        raise BadInput(f"unknown event type {event_type!r} (known: {', '.join(EVENT_TYPES)})")
    return event_type


def emit(layout: Layout, event_type: str, payload: dict[str, Any]) -> dict[str, Any]:
    """Append one event to the log and publish it as latest.json; returns the event.

    The payload is redacted first. The events lock is a leaf of the lock order: callers emit
    after releasing their data locks.
    """
    check_type(event_type)
    if not isinstance(payload, dict):
        raise BadInput(f"event payload must be a mapping, not {type(payload).__name__}")
    payload = redact_obj(payload)
    rotate_at = int(_setting(layout, "events.rotate_bytes") or 0)
    layout.events_dir.mkdir(parents=True, exist_ok=True)
    with fileio.locked(layout.events_log):
        event = {"id": new_id(), "type": event_type, "timestamp": clock.now_iso(), "payload": payload}
        try:
            line = json.dumps(event, ensure_ascii=False, separators=(",", ":"), allow_nan=False, default=str)
        except ValueError as exc:
            raise BadInput(f"event payload is not valid JSON: {exc}") from None
        data = (line + "\n").encode("utf-8")
        if _unterminated(layout.events_log):
            # A crashed writer or a bad merge left half a line: end it, or it would swallow ours.
            data = b"\n" + data
        end = fileio.append_bytes(layout.events_log, data) + len(data)
        fileio.atomic_write(layout.latest_event, line + "\n", durable=False)
        if rotate_at > 0 and end >= rotate_at:
            _rotate(layout)
    return event


_config_cache: dict[Path, tuple[tuple[int, int, int], dict[str, Any]]] = {}


def _setting(layout: Layout, dotted: str) -> Any:
    """A config value, with config.json parsed again only when it changed (emit is a hot path)."""
    try:
        status = os.stat(layout.config)
        key = (status.st_ino, status.st_mtime_ns, status.st_size)
    except FileNotFoundError:
        key = (0, 0, 0)
    cached = _config_cache.get(layout.config)
    if cached is None or cached[0] != key:
        cached = (key, config_mod.load(layout))
        _config_cache[layout.config] = cached
    try:
        return config_mod.get(cached[1], dotted)
    except (KeyError, TypeError):
        return None


def _unterminated(path: Path) -> bool:
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        return False
    try:
        size = os.fstat(fd).st_size
        if size == 0:
            return False
        os.lseek(fd, size - 1, os.SEEK_SET)
        return os.read(fd, 1) != b"\n"
    finally:
        os.close(fd)


# ---- segments and rotation --------------------------------------------------------------


def archive_dir(layout: Layout) -> Path:
    return layout.events_dir / "archive"


def segment_path(layout: Layout, number: int) -> Path:
    return archive_dir(layout) / f"current-{number:06d}.jsonl"


def archived_segments(layout: Layout) -> dict[int, Path]:
    """Rotated segments by number; the live log is segment max + 1."""
    try:
        names = os.listdir(archive_dir(layout))
    except FileNotFoundError:
        return {}
    found = {}
    for name in names:
        match = _SEGMENT_RE.match(name)
        if match:
            found[int(match.group(1))] = archive_dir(layout) / name
    return found


def live_segment(archived: dict[int, Path]) -> int:
    """The number of the live log: one past the newest ARCHIVED segment."""
    return max(archived, default=0) + 1


def _rotate(layout: Layout) -> None:
    """Under the events lock: the live log becomes the next archived segment."""
    archived = archived_segments(layout)
    number = live_segment(archived)
    target = segment_path(layout, number)
    target.parent.mkdir(parents=True, exist_ok=True)
    fileio.refuse_symlink(layout.events_log)
    # A rename keeps the inode, so a reader holding the file keeps reading the same bytes.
    os.replace(layout.events_log, target)
    fileio.append_bytes(layout.events_log, b"")
    keep = int(_setting(layout, "events.keep_segments") or 0)
    if keep > 0:
        archived[number] = target
        for old in sorted(archived)[:-keep]:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(archived[old])


@dataclass
class _Snapshot:
    """The live log (open) and the archived segments, seen consistently across a rotation."""

    current: IO[bytes] | None
    current_number: int
    archived: dict[int, Path]

    def close(self) -> None:
        if self.current is not None:
            self.current.close()


def _inode(path: Path) -> int | None:
    try:
        return os.stat(path).st_ino
    except FileNotFoundError:
        return None


def _snapshot(layout: Layout) -> _Snapshot:
    # Open first, list second, then check the open file is still the live one: a rotation in
    # between changes the inode and we look again; one after it leaves our numbering right.
    for _ in range(100):
        try:
            handle: IO[bytes] | None = open(layout.events_log, "rb")  # noqa: SIM115
        except FileNotFoundError:
            handle = None
        archived = archived_segments(layout)
        opened = os.fstat(handle.fileno()).st_ino if handle is not None else None
        if opened == _inode(layout.events_log):
            return _Snapshot(handle, live_segment(archived), archived)
        if handle is not None:
            handle.close()
    raise GridError(f"{layout.events_log}: the log kept rotating while being read")


# ---- lines ------------------------------------------------------------------------------


@dataclass
class ReadStats:
    """What a read cost: conflict detection reports it, tests assert it follows the window."""

    bytes_read: int = 0
    lines: int = 0


def parse_line(line: bytes, source: Path | str, offset: int) -> dict[str, Any] | None:
    """The event on one line, or None (with a warning) for a corrupt one; blank lines are None."""
    if not line.strip():
        return None
    event = _decode(line)
    if event is None:
        # Half a line from a crash followed by a whole one: keep the whole one.
        start = line.rfind(b'{"id"')
        event = _decode(line[start:]) if start > 0 else None
        _log().warning("%s: skipping a corrupt event line at byte %d", source, offset)
    return event


def _decode(line: bytes) -> dict[str, Any] | None:
    try:
        event = json.loads(line)
    except ValueError:
        return None
    if not isinstance(event, dict) or not all(isinstance(event.get(k), str) for k in ("id", "type", "timestamp")):
        return None
    event.setdefault("payload", {})
    return event if isinstance(event["payload"], dict) else None


def _lines_forward(handle: IO[bytes], offset: int, stats: ReadStats | None) -> Iterator[tuple[int, int, bytes]]:
    """(start, end, line) for each complete line from OFFSET; a torn tail is never returned."""
    handle.seek(offset)
    pending = b""
    start = offset
    while True:
        chunk = handle.read(1 << 20)
        if not chunk:
            return
        if stats is not None:
            stats.bytes_read += len(chunk)
        buf = pending + chunk if pending else chunk
        low = 0
        while True:
            newline = buf.find(b"\n", low)
            if newline < 0:
                break
            end = start + newline + 1 - low
            yield start, end, buf[low:newline]
            start, low = end, newline + 1
        pending = buf[low:]


def _lines_backward(handle: IO[bytes], end: int, stats: ReadStats | None) -> Iterator[tuple[int, bytes]]:
    """(start, line) for each complete line before END, newest first, read in blocks from the end."""
    pos, buf, found_end = end, b"", False
    while pos > 0 and not found_end:
        size = min(BLOCK, pos)
        pos -= size
        handle.seek(pos)
        buf = handle.read(size) + buf
        if stats is not None:
            stats.bytes_read += size
        last = buf.rfind(b"\n")
        if last >= 0:  # bytes after the last newline are a torn tail: never consumed
            buf, found_end = buf[: last + 1], True
    if not found_end:
        return
    while True:
        hi = len(buf) - 1  # buf[hi] is the newline that ends the line being cut out
        while hi >= 0:
            newline = buf.rfind(b"\n", 0, hi)
            if newline < 0:
                break
            if stats is not None:
                stats.lines += 1
            yield pos + newline + 1, buf[newline + 1 : hi]
            hi = newline
        if pos == 0:
            if hi > 0:
                yield 0, buf[:hi]
            return
        size = min(BLOCK, pos)
        pos -= size
        handle.seek(pos)
        buf = handle.read(size) + buf[: hi + 1]
        if stats is not None:
            stats.bytes_read += size


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
    since: datetime | None = None,
    types: Iterable[str] | None = None,
    stats: ReadStats | None = None,
) -> Iterator[dict[str, Any]]:
    """Events newest first, from the end of the live log back through the archived segments.

    With SINCE it stops soon after the first line older than SINCE, so its cost follows the
    time window, not the length of the log. TYPES keeps only those types (checked before parsing).
    """
    wanted = {t.encode() for t in types} if types is not None else None
    cutoff = clock.format_iso(since) if since is not None else None
    stop = clock.format_iso(since - SLACK) if since is not None else None
    snap = _snapshot(layout)
    try:
        segments: list[tuple[Path, IO[bytes] | None]] = [(layout.events_log, snap.current)]
        segments += [(snap.archived[n], None) for n in sorted(snap.archived, reverse=True)]
        for path, handle in segments:
            with contextlib.ExitStack() as stack:
                if handle is None:
                    try:
                        handle = stack.enter_context(open(path, "rb"))
                    except FileNotFoundError:  # pruned meanwhile: nothing older is left
                        return
                size = os.fstat(handle.fileno()).st_size
                for start, line in _lines_backward(handle, size, stats):
                    timestamp = _cheap_timestamp(line)
                    if stop is not None and timestamp is not None and _before(timestamp, stop):
                        return
                    if wanted is not None:
                        fast = _FAST_TYPE_RE.match(line)
                        if fast is not None and fast.group(1) not in wanted:
                            continue
                    event = parse_line(line, path, start)
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


@dataclass
class Position:
    """Where a reader is: segment number, byte offset in it, its inode, the last event id read.

    The inode tells a rotated file (same inode, new name) from a replaced one (a git checkout
    of a committed log); after a replacement the reader resumes by id instead of by offset.
    """

    segment: int
    offset: int = 0
    inode: int = 0
    last_id: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

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
        snap = _snapshot(self.layout)
        try:
            yield from self._scan(snap)
        finally:
            snap.close()

    def _scan(self, snap: _Snapshot) -> Iterator[dict[str, Any]]:
        live = snap.current_number
        oldest = min(snap.archived, default=live)
        start = self.position
        last_id = start.last_id if start else ""
        skip_to = ""  # after a reset or replacement: deliver only ids after the last one read
        if start is None:
            number, offset, inode = oldest, 0, 0
        elif start.segment > live:
            _log().info("%s: the event log was reset; resuming after %s", self.layout.events_log, last_id)
            number, offset, inode, skip_to = oldest, 0, 0, last_id
        elif start.segment < oldest:
            _log().warning(
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
                    path = snap.archived.get(number, segment_path(self.layout, number))
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
                    _log().info("%s: replaced since the last read; resuming after %s", path, last_id)
                    offset, skip_to = 0, last_id
                self.position = Position(number, offset, status.st_ino, last_id)
                for begin, end, line in _lines_forward(handle, offset, self.stats):
                    event = parse_line(line, path, begin)
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
                        _log().warning("%s: skipping %d bytes of a torn last line", path, tail_bytes)
                    self.position = Position(number + 1, 0, 0, last_id)
            number, offset, inode = number + 1, 0, 0


def read_forward(layout: Layout, start: Position | None = None) -> Iterator[dict[str, Any]]:
    """Every event from START (default: the oldest kept segment), oldest first."""
    return iter(ForwardScan(layout, start))


def end_position(layout: Layout) -> Position:
    """The position after the last complete line of the live log: a reader from here sees only new events."""
    snap = _snapshot(layout)
    try:
        if snap.current is None:
            return Position(snap.current_number)
        status = os.fstat(snap.current.fileno())
        last = next(_lines_backward(snap.current, status.st_size, None), None)
        offset = 0
        last_id = ""
        if last is not None:
            start, line = last
            offset = snap.current.seek(start) + len(line) + 1
            event = _decode(line)
            last_id = event["id"] if event else ""
        return Position(snap.current_number, offset, status.st_ino, last_id)
    finally:
        snap.close()
