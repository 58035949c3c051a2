"""Lines of the event log: complete lines forward from an offset or backward from an end, parsed.

A torn last line (a writer killed mid-append) is never returned; a corrupt line is skipped
with a warning, keeping a whole event glued after half of one.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

from gridgit.store.record import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    import logging
    from typing import IO, Any

BLOCK = 64 * 1024


def log() -> logging.Logger:
    # logging costs ~5 ms to import; only readers that meet a damaged log need it.
    import logging

    return logging.getLogger("gridgit.events")


class ReadStats(Record):
    """What a read cost: conflict detection reports it, tests assert it follows the window."""

    FIELDS = ("bytes_read", "lines")
    __slots__ = FIELDS

    def __init__(self, bytes_read: int = 0, lines: int = 0) -> None:
        self.bytes_read = bytes_read
        self.lines = lines


def parse_line(line: bytes, source: Path | str, offset: int) -> dict[str, Any] | None:
    """The event on one line, or None (with a warning) for a corrupt one; blank lines are None."""
    if not line.strip():
        return None
    event = decode(line)
    if event is None:
        # Half a line from a crash followed by a whole one: keep the whole one.
        start = line.rfind(b'{"id"')
        event = decode(line[start:]) if start > 0 else None
        log().warning("%s: skipping a corrupt event line at byte %d", source, offset)
    return event


def decode(line: bytes) -> dict[str, Any] | None:
    try:
        event = json.loads(line)
    except ValueError:
        return None
    if not isinstance(event, dict) or not all(isinstance(event.get(k), str) for k in ("id", "type", "timestamp")):
        return None
    event.setdefault("payload", {})
    return event if isinstance(event["payload"], dict) else None


def forward(handle: IO[bytes], offset: int, stats: ReadStats | None) -> Iterator[tuple[int, int, bytes]]:
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


def backward(handle: IO[bytes], end: int, stats: ReadStats | None) -> Iterator[tuple[int, bytes]]:
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
