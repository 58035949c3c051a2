"""The write journal: every acknowledged write of a shared `.grid/` file, kept outside `.grid/` too.

A write is acknowledged when its command returns; its file reaches the grid ref with the next
snapshot (after the next commit, sync, `gridgit snapshot`). Until then `.grid/` is its only copy,
and an `rm -rf .grid/phases` (an agent "cleaning up", a crash of a tool) would take it along: the
snapshot keeps the last good version of a damaged file, which lacks it (issue 39: 143 of 200
acknowledged writes lost that way). So each write path replaces its file with `write` instead of
fileio.atomic_write: the same atomic write, then the file's new bytes appended to the journal,
`<git common dir>/gridgit/journal` (machine-local, shared by the clone's worktrees, never pushed).

- **Cheap**: one O_APPEND write of a header line and the bytes, no fsync (the journal guards
  against the loss of `.grid/`, not of the machine: the file itself was fsynced), under a shared
  flock of the journal itself (a leaf of the lock order) that only a compaction takes exclusive.
- **Pruned once a snapshot holds it**: the snapshot reads it under the Blackboard's lock held
  exclusive (no writer half-way), takes a damaged file's newest journaled version and the entries
  and learnings any journaled version held (gridgit.history.staging), then `clear`s it. `gridgit
  restore` snapshots first, so it replays what no snapshot held yet.
- **Bounded**: past MAX_BYTES (no snapshot for a long while) it is compacted to each file's newest
  version, so an older version's entry that a later damage lost can go; documented in docs/sync.md.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import time
from collections.abc import Iterator
from pathlib import Path

from gridgit.errors import GridError
from gridgit.store import fileio
from gridgit.store.layout import Layout

MAX_BYTES = 64 * 1024 * 1024
NAME = "journal"


def path(layout: Layout) -> Path:
    """The journal of LAYOUT's Blackboard (one per Blackboard: GRID_DIR may put another one elsewhere)."""
    folder = layout.git_common / "gridgit"
    if layout.grid == layout.main_root / ".grid":
        return folder / NAME
    import hashlib  # here: hashlib loads OpenSSL, a few ms on every write's start-up

    return folder / f"{NAME}-{hashlib.sha1(str(layout.grid).encode()).hexdigest()[:12]}"


def write(layout: Layout, target: Path, text: str | bytes, durable: bool = True, finish: bool = True) -> None:
    """fileio.atomic_write of TARGET (a shared file of LAYOUT's .grid/), then its new bytes journaled."""
    data = text.encode("utf-8") if isinstance(text, str) else text
    fileio.atomic_write(target, data, durable, finish)
    record(layout, target, data)


def record(layout: Layout, target: Path, data: bytes) -> None:
    """Append TARGET's bytes DATA to the journal (a header line `SIZE TIME PATH`, the bytes, a line break)."""
    try:
        where = path(layout)
    except GridError:  # a Blackboard outside any git repository has no history to guard
        return
    rel = str(target)[len(str(layout.grid)) + 1 :]  # string slicing: this runs on every write
    entry = f"{len(data)} {time.time():.6f} {rel}\n".encode() + data + b"\n"
    try:
        size = _append(where, entry)
    except FileNotFoundError:  # no <git common dir>/gridgit/ yet
        where.parent.mkdir(parents=True, exist_ok=True)
        size = _append(where, entry)
    if size > MAX_BYTES:
        compact(layout)


def _append(where: Path, entry: bytes) -> int:
    """One O_APPEND write of ENTRY under a shared flock of the journal itself; the journal's size after it.

    A compaction holds the flock exclusive and replaces the file: a writer that got its flock on the
    file it replaced opens the new one and tries again.
    """
    while True:
        fd = os.open(where, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_SH)
            if os.fstat(fd).st_ino != os.stat(where).st_ino:
                continue  # compacted meanwhile: this is the old file
            if os.write(fd, entry) != len(entry):  # a regular file only falls short when the disk is full
                raise GridError(f"{where}: short write")
            return os.fstat(fd).st_size
        finally:
            os.close(fd)


def read(layout: Layout) -> list[tuple[float, str, bytes]]:
    """Every record, oldest first: (time, path inside .grid/, bytes); a record a crash cut short is skipped."""
    try:
        raw = path(layout).read_bytes()
    except OSError:
        return []
    return _records(raw)


def _records(raw: bytes) -> list[tuple[float, str, bytes]]:
    found = []
    at = 0
    while at < len(raw):
        end = raw.find(b"\n", at)
        if end < 0:
            break
        head = raw[at:end].decode("utf-8", "replace").split(" ", 2)
        size = int(head[0]) if len(head) == 3 and head[0].isdigit() else -1
        stop = end + 1 + size
        if size < 0 or stop >= len(raw) or raw[stop] != 0x0A:
            break  # torn: nothing after it can be trusted to line up
        try:
            moment = float(head[1])
        except ValueError:
            break
        found.append((moment, head[2], raw[end + 1 : stop]))
        at = stop + 1
    return found


@contextlib.contextmanager
def _exclusive(where: Path) -> Iterator[int | None]:
    """The journal's fd with its flock held exclusive (no writer appends meanwhile); None when there is no journal."""
    try:
        fd = os.open(where, os.O_RDWR | os.O_NOFOLLOW | os.O_CLOEXEC)
    except FileNotFoundError:
        yield None
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield fd
    finally:
        os.close(fd)


def clear(layout: Layout) -> None:
    """Empty the journal: a snapshot holds all of it (the caller holds the Blackboard's lock exclusive)."""
    with _exclusive(path(layout)) as fd:
        if fd is not None:
            os.ftruncate(fd, 0)


def compact(layout: Layout) -> None:
    """Keep each file's newest version only (the journal grew past MAX_BYTES with no snapshot)."""
    where = path(layout)
    with _exclusive(where) as fd:
        if fd is None:
            return
        chunks = []
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
        newest = {rel: (moment, data) for moment, rel, data in _records(b"".join(chunks))}
        text = b"".join(
            f"{len(data)} {moment:.6f} {rel}\n".encode() + data + b"\n" for rel, (moment, data) in newest.items()
        )
        fileio.atomic_write(where, text, durable=False)
