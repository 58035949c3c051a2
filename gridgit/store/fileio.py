"""Atomic, locked file I/O: the only place gridgit writes files."""

from __future__ import annotations

import contextlib
import itertools
import os
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


@contextlib.contextmanager
def locked(path: Path, timeout: float | None = None) -> Iterator[None]:
    """Hold the sidecar lock of PATH.

    Lock a sidecar file, never the data file: os.replace swaps the data file's inode, and
    a lock held on the old inode lets a second writer in, which loses updates.
    """
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


def atomic_write(path: Path, text: str, durable: bool = True) -> None:
    """Replace PATH with TEXT: a crash leaves the old file or the new one, never half of one.

    DURABLE=False skips the fsyncs, for machine-local files that are rebuilt anyway
    (latest.json, cursors): os.replace alone still never exposes a half-written file.
    """
    refuse_symlink(path)
    data = text.encode("utf-8")
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
