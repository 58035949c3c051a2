"""Atomic, locked file I/O: the only place gridgit writes files."""

from __future__ import annotations

import contextlib
import itertools
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from gridgit.errors import BadInput, GridError, LockTimeout

_TEMP_SEQ = itertools.count()
# Seconds a writer waits for a lock before giving up with a clear error (exit code 5).
DEFAULT_TIMEOUT = float(os.environ.get("GRIDGIT_LOCK_TIMEOUT", "5"))


def lock_path(path: Path) -> Path:
    """The sidecar lock of PATH: `.grid/STATE.md` -> `.grid/.state.lock`."""
    return path.parent / f".{path.stem.lower()}.lock"


def refuse_symlink(path: Path) -> None:
    """A symlink where a .grid file should be could redirect writes anywhere: refuse it."""
    if path.is_symlink():
        raise BadInput(f"{path}: is a symlink; gridgit does not follow symlinks in .grid/")


BOARD_LOCK = ".board.lock"
# The board locks this thread holds: Blackboard folder -> depth. Taken again inside itself
# (a writer's nested locks, a snapshot's own writes) it is not taken twice: a second flock
# on a new descriptor would wait for the first one, forever.
_held = threading.local()


def board_of(path: Path) -> Path | None:
    """The Blackboard folder (the one holding STATE.md) that PATH's lock belongs to, if any.

    Sidecar locks sit at most two folders below it (`phases/NN/`, `events/cursors/`).
    """
    for folder in (path.parent, path.parent.parent, path.parent.parent.parent):
        if (folder / "STATE.md").is_file():
            return folder
    return None


@contextlib.contextmanager
def board_locked(grid: Path, exclusive: bool = False, timeout: float | None = None) -> Iterator[None]:
    """Hold the Blackboard-wide lock of GRID: shared for a writer, EXCLUSIVE for a snapshot or sync.

    First in the lock order (board -> STATE -> scratchpad -> LEARNINGS -> events): every
    write of a .grid file holds it shared (`locked` takes it), so a snapshot or a sync, which
    holds it exclusive, reads and writes a Blackboard no writer is half-way through.
    """
    depths: dict[Path, int] = _held.__dict__.setdefault("depths", {})
    if depths.get(grid):
        depths[grid] += 1
        try:
            yield
        finally:
            depths[grid] -= 1
        return
    import fcntl

    sidecar = grid / BOARD_LOCK
    refuse_symlink(sidecar)
    limit = DEFAULT_TIMEOUT if timeout is None else timeout
    fd = os.open(sidecar, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        deadline = time.monotonic() + limit
        mode = fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH
        while True:
            try:
                fcntl.flock(fd, mode | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    what = "a snapshot or sync" if not exclusive else "a writer"
                    raise LockTimeout(f"{grid}: lock {BOARD_LOCK} still held by {what} after {limit:g}s") from None
                time.sleep(0.002)
        depths[grid] = 1
        try:
            yield
        finally:
            depths.pop(grid, None)
    finally:
        os.close(fd)  # closing the descriptor releases the flock


@contextlib.contextmanager
def locked(path: Path, timeout: float | None = None) -> Iterator[None]:
    """Hold the sidecar lock of PATH (and its Blackboard's lock, shared).

    Lock a sidecar file, never the data file: os.replace swaps the data file's inode, and
    a lock held on the old inode lets a second writer in, which loses updates.
    """
    grid = board_of(path)
    if grid is None:
        with _sidecar_locked(path, timeout):
            yield
        return
    with board_locked(grid, timeout=timeout), _sidecar_locked(path, timeout):
        yield


@contextlib.contextmanager
def _sidecar_locked(path: Path, timeout: float | None) -> Iterator[None]:
    # Imported here, not at the top: filelock pulls in asyncio (~20 ms), and read-only
    # commands and hook checks that never lock should not pay for it.
    from filelock import FileLock, Timeout

    sidecar = lock_path(path)
    refuse_symlink(sidecar)
    # Poll every 2 ms, not filelock's 50 ms: writers hold these locks for a few ms, and a long
    # poll makes a contended emit or entry write wait ten times longer than the work itself.
    lock = FileLock(str(sidecar), timeout=DEFAULT_TIMEOUT if timeout is None else timeout)
    try:
        lock.acquire(poll_interval=0.002)
    except Timeout:
        raise LockTimeout(f"{path}: lock {sidecar.name} still held after {lock.timeout:g}s") from None
    try:
        yield
    finally:
        lock.release()


def read_text(path: Path) -> str:
    """The text of PATH; symlinks refused, a missing file is a one-line error."""
    refuse_symlink(path)
    try:
        # newline="" keeps \r\n as written: what gridgit reads back must equal what it wrote.
        with open(path, encoding="utf-8", newline="") as handle:
            return handle.read()
    except FileNotFoundError:
        raise GridError(f"{path}: no such file") from None
    except UnicodeDecodeError as exc:
        raise BadInput(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None


def atomic_write(path: Path, text: str | bytes, durable: bool = True) -> None:
    """Replace PATH with TEXT (str as UTF-8, or bytes as they are): a crash leaves the old file or the new one.

    DURABLE=False skips the fsyncs, for machine-local files that are rebuilt anyway
    (latest.json, cursors): os.replace alone still never exposes a half-written file.
    """
    refuse_symlink(path)
    data = text.encode("utf-8") if isinstance(text, str) else text
    # A unique name without tempfile (whose imports cost ~5 ms on every command): O_EXCL
    # makes a clash an error, never a shared file.
    tmp = str(path.parent / f".{path.name}.{os.getpid()}.{time.monotonic_ns()}.{next(_TEMP_SEQ)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            if durable:
                os.fsync(handle.fileno())
        if path.exists():
            os.chmod(tmp, path.stat().st_mode & 0o777)
        else:
            os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    if durable:
        _fsync_dir(path.parent)


def append_bytes(path: Path, data: bytes) -> int:
    """Append DATA with one O_APPEND write; returns the offset it landed at.

    No fsync: a killed process loses nothing the kernel has accepted, and the event log
    is a live bus whose emit must stay well under a millisecond.
    """
    refuse_symlink(path)
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        offset = os.lseek(fd, 0, os.SEEK_END)
        written = os.write(fd, data)
        if written != len(data):  # a regular file only falls short when the disk is full
            raise GridError(f"{path}: short write ({written} of {len(data)} bytes)")
        return offset
    finally:
        os.close(fd)


def _fsync_dir(folder: Path) -> None:
    """Make a rename durable: fsync the directory that holds it."""
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
