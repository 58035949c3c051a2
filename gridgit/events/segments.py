"""Segments of the event log: the live `current.jsonl` and the rotated `events/archive/current-NNNNNN.jsonl`.

The live log is segment max(archived) + 1. A Snapshot opens the live log and lists the
archived segments consistently, so a reader is never confused by a rotation in between.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from gridgit.errors import GridError
from gridgit.store.layout import Layout
from gridgit.store.record import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import IO

_SEGMENT_RE = re.compile(r"^current-(\d{6,})\.jsonl$")


def folder(layout: Layout) -> Path:
    return layout.events_dir / "archive"


def path(layout: Layout, number: int) -> Path:
    return folder(layout) / f"current-{number:06d}.jsonl"


def archived(layout: Layout) -> dict[int, Path]:
    """Rotated segments by number; the live log is segment max + 1."""
    try:
        names = os.listdir(folder(layout))
    except FileNotFoundError:
        return {}
    found = {}
    for name in names:
        match = _SEGMENT_RE.match(name)
        if match:
            found[int(match.group(1))] = folder(layout) / name
    return found


def live_number(archived: dict[int, Path]) -> int:
    """The number of the live log: one past the newest ARCHIVED segment."""
    return max(archived, default=0) + 1


class Snapshot(Record):
    """The live log (open) and the archived segments, seen consistently across a rotation."""

    FIELDS = ("current", "current_number", "archived")
    __slots__ = FIELDS

    def __init__(self, current: IO[bytes] | None, current_number: int, archived: dict[int, Path]) -> None:
        self.current = current
        self.current_number = current_number
        self.archived = archived

    def close(self) -> None:
        if self.current is not None:
            self.current.close()


def _inode(path: Path) -> int | None:
    try:
        return os.stat(path).st_ino
    except FileNotFoundError:
        return None


def snapshot(layout: Layout) -> Snapshot:
    # Open first, list second, then check the open file is still the live one: a rotation in
    # between changes the inode and we look again; one after it leaves our numbering right.
    for _ in range(100):
        try:
            handle: IO[bytes] | None = open(layout.events_log, "rb")  # noqa: SIM115
        except FileNotFoundError:
            handle = None
        found = archived(layout)
        opened = os.fstat(handle.fileno()).st_ino if handle is not None else None
        if opened == _inode(layout.events_log):
            return Snapshot(handle, live_number(found), found)
        if handle is not None:
            handle.close()
    raise GridError(f"{layout.events_log}: the log kept rotating while being read")
