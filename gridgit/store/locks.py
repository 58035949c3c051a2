"""Sidecar file locks: `fcntl.flock`, exclusive or shared, with a timeout (POSIX only).

- **A sidecar, never the data file**: `os.replace` swaps the data file's inode, and a lock
  held on the old inode would let a second writer in.
- **In one folder, `.grid/.locks/`**: a lock file never lands beside its data, in a folder
  (a phase's, `events/`) that may be a symlink leading out of `.grid/`, and none is created
  through a symlinked `.locks/` itself.
- **Crash-safe**: the kernel drops a flock when the last descriptor of its holder closes, so
  a killed holder (even SIGKILL) never leaves a lock behind; a lock file on disk is normal.
- **Fair, cheap waiting**: a contended lock is waited for inside the kernel (a blocking
  `flock` on a helper thread), not by polling, so a waiter uses no CPU and wakes the moment
  the holder releases. The timeout only ends a wait on a holder that is stuck (stopped or
  hung), the last resort, not the way a busy lock is shared.
- **Shared holders never starve an exclusive waiter**: every taker passes the lock's gate (a
  second flock, `NAME.gate.lock`) on the way in; an exclusive taker keeps the gate while it
  waits for the holders to leave, so no new shared holder enters meanwhile. A process that
  already holds a lock shared takes it again without the gate (it would wait on a waiter
  that waits on it).
- **Lock order** (so no two gridgit operations deadlock): the clone's sync lock (one exchange
  with a remote at a time, gridgit.history.sync) → the Blackboard-wide lock → STATE → phases →
  a scratchpad → LEARNINGS → the other files (claims, checkpoint, inbox, cursors) → the write
  journal → events, a leaf. Never take an earlier lock while holding a later one.

Why not filelock: it imports asyncio (about 45 ms on every writing command) and waits by
polling, which on a busy two-core machine starves the holder it waits for
(`benchmarks/locks.py` measures both).
"""

from __future__ import annotations

import _thread  # not `threading`: only the primitives, without threading's ~1 ms import
import contextlib
import errno
import fcntl
import os
import time
from collections.abc import Iterator
from pathlib import Path

from gridgit.errors import BadInput, GridError, LockTimeout

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import NoReturn

_DEFAULT_TIMEOUT = 60.0
# Sidecar path -> [fd, holders] of the shared locks this process holds (re-entry without the gate).
_SHARED: dict[str, list[int]] = {}
_SHARED_GUARD = _thread.allocate_lock()
# (sidecar path, thread id) of the exclusive locks held: a nested take in that thread passes.
_EXCLUSIVE: set[tuple[str, int]] = set()


def default_timeout() -> float:
    """Seconds a taker waits before giving up: `GRIDGIT_LOCK_TIMEOUT`, else 60."""
    raw = os.environ.get("GRIDGIT_LOCK_TIMEOUT", "").strip()
    if not raw:
        return _DEFAULT_TIMEOUT
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not 0 <= value < 1e6:  # also refuses nan and inf
        raise BadInput(f"GRIDGIT_LOCK_TIMEOUT: {raw[:40]!r} is not a number of seconds (0 to 999999)")
    return value


# A Blackboard's lock files, all in one folder: none lands beside the data in a folder that may
# be a symlink (a phase folder or `events/` a pull brought), and none is in the user's sight.
LOCKS_DIR = ".locks"
# The Blackboard-wide lock's name in it.
_BOARD = "board"


def board_of(path: Path) -> Path | None:
    """The Blackboard (the folder holding STATE.md, or its locks while STATE.md is being restored) whose file PATH is.

    Its files sit at most three folders below it (`phases/NN/`, `events/cursors/inbox/`).
    """
    folders = []
    folder = path.parent
    for _ in range(4):
        if (folder / "STATE.md").is_file():
            return folder
        folders.append(folder)
        folder = folder.parent
    return next((folder for folder in folders if (folder / LOCKS_DIR).is_dir()), None)


def lock_path(path: Path) -> Path:
    """The lock file of PATH: in its Blackboard's `.locks/`, named after PATH's place there, or beside a file
    of no Blackboard. `.grid/STATE.md` -> `.grid/.locks/state.lock`, `.grid/phases/01-a/scratchpad.md` ->
    `.grid/.locks/phases.01-a.scratchpad.lock`; `x/data.json` -> `x/.data.lock`."""
    return _lock_file(path, board_of(path))


def _lock_file(path: Path, grid: Path | None) -> Path:
    """PATH's lock file, PATH being a file of Blackboard GRID (None: of none)."""
    if grid is None:
        return path.parent / f".{path.stem.lower()}.lock"
    # String slicing, not Path.relative_to: this runs for every lock a write takes.
    folder, _, name = str(path)[len(str(grid)) + 1 :].rpartition("/")
    stem = name[: name.rfind(".")] if name.rfind(".") > 0 else name
    return grid / LOCKS_DIR / f"{folder.replace('/', '.')}{'.' if folder else ''}{stem.lower()}.lock"


def gate_path(sidecar: Path) -> Path:
    """The gate of a lock file: `state.lock` -> `state.gate.lock`."""
    return sidecar.with_name(sidecar.name[: -len(".lock")] + ".gate.lock")


@contextlib.contextmanager
def board_locked(grid: Path, exclusive: bool = False, timeout: float | None = None) -> Iterator[None]:
    """Hold the Blackboard-wide lock of GRID: shared by every writer (`locked` takes it), EXCLUSIVE for a
    snapshot or sync, which then read and rewrite a Blackboard no writer is half-way through."""
    with _locked(grid / LOCKS_DIR / f"{_BOARD}.lock", grid, timeout, shared=not exclusive):
        yield


@contextlib.contextmanager
def locked(path: Path, timeout: float | None = None, shared: bool = False) -> Iterator[None]:
    """Hold PATH's lock, exclusive or SHARED, inside its Blackboard's lock held shared."""
    grid = board_of(path)
    if grid is None:
        with _locked(_lock_file(path, None), path, timeout, shared):
            yield
        return
    board, own = grid / LOCKS_DIR / f"{_BOARD}.lock", _lock_file(path, grid)
    with _locked(board, grid, timeout, shared=True), _locked(own, path, timeout, shared):
        yield


@contextlib.contextmanager
def _locked(sidecar: Path, path: Path, timeout: float | None = None, shared: bool = False) -> Iterator[None]:
    """Hold lock file SIDECAR (PATH's), exclusive or SHARED; LockTimeout after TIMEOUT seconds.

    Taken again inside itself it is not taken twice: within a thread that holds it exclusive
    (a snapshot's own writes) any nested take passes; within a process that holds it shared,
    a nested shared take passes. Asking for it exclusive while this process holds it shared
    is an error (the two would wait for each other).
    """
    key = str(sidecar)
    if (key, _thread.get_ident()) in _EXCLUSIVE:
        yield
        return
    if shared and _reenter(key):
        try:
            yield
        finally:
            _leave(key)
        return
    if not shared and key in _SHARED:
        raise GridError(f"{path}: lock {sidecar} asked for exclusive while this process holds it shared")
    wait = default_timeout() if timeout is None else timeout
    try:
        fd = _acquire(sidecar, fcntl.LOCK_SH if shared else fcntl.LOCK_EX, time.monotonic() + wait)
    except _ReadOnly:
        # This user may not write the Blackboard (a read-only checkout): what it runs only reads, and a
        # write fails at its first file anyway (permission denied, 4); so no lock, said once.
        _say_read_only(sidecar)
        yield
        return
    if fd is None:
        raise LockTimeout(
            f"{path}: lock {sidecar} still held after {wait:g}s (set GRIDGIT_LOCK_TIMEOUT to wait longer)"
        )
    if shared:
        with _SHARED_GUARD:
            held = _SHARED.setdefault(key, [fd, 0])
            held[1] += 1
        if held[0] != fd:  # another thread of this process took it meanwhile: share its hold
            os.close(fd)
        try:
            yield
        finally:
            _leave(key)
        return
    mine = (key, _thread.get_ident())
    _EXCLUSIVE.add(mine)
    try:
        yield
    finally:
        _EXCLUSIVE.discard(mine)
        os.close(fd)  # closing drops the flock


def _reenter(key: str) -> bool:
    with _SHARED_GUARD:
        held = _SHARED.get(key)
        if held is None:
            return False
        held[1] += 1
        return True


def _leave(key: str) -> None:
    with _SHARED_GUARD:
        held = _SHARED[key]
        held[1] -= 1
        if held[1]:
            return
        del _SHARED[key]
    os.close(held[0])


def _acquire(sidecar: Path, op: int, deadline: float) -> int | None:
    """The fd holding SIDECAR's flock OP, taken through its gate; None at DEADLINE."""
    gate = _open(gate_path(sidecar))
    if not _take(gate, fcntl.LOCK_EX if op == fcntl.LOCK_EX else fcntl.LOCK_SH, deadline, gate_path(sidecar)):
        return None
    try:
        fd = _open(sidecar)
        if not _take(fd, op, deadline, sidecar):
            return None
        return fd
    finally:
        os.close(gate)  # the gate is only held on the way in


def _open(path: Path) -> int:
    flags = os.O_RDWR | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        # Without O_CREAT first: an open that may create takes the folder's lock exclusively
        # (Linux), and every writer of the Blackboard opens the same few lock files in .grid/.
        return os.open(path, flags)
    except FileNotFoundError:
        pass
    except OSError as exc:
        _refuse(path, exc)
    if path.parent.is_symlink():  # never create a lock file through a link, wherever it leads
        raise BadInput(f"{path.parent}: is a symlink; gridgit does not follow symlinks in .grid/")
    try:
        return os.open(path, flags | os.O_CREAT, 0o644)
    except FileNotFoundError:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            _refuse(path.parent, exc)
        return _open(path)
    except OSError as exc:
        _refuse(path, exc)


class _ReadOnly(GridError):
    """The lock file cannot be made or opened for writing: the file system refuses this user."""


_READ_ONLY_SAID: set[Path] = set()


def _say_read_only(sidecar: Path) -> None:
    grid = sidecar.parent.parent
    if grid not in _READ_ONLY_SAID:
        _READ_ONLY_SAID.add(grid)
        import logging

        logging.getLogger("gridgit.store").warning(
            "gridgit: warning: %s is read-only for this user: its locks are not taken (reads work, writes are refused)",
            grid,
        )


def _refuse(path: Path, exc: OSError) -> NoReturn:
    if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS) and not path.is_symlink():
        raise _ReadOnly(f"{path}: {exc.strerror}") from None
    if path.is_symlink():
        raise BadInput(f"{path}: is a symlink; gridgit does not follow symlinks in .grid/") from None
    raise GridError(f"{path}: cannot open the lock file ({exc.strerror})") from None


def _take(fd: int, op: int, deadline: float, path: Path) -> bool:
    """Take flock OP on FD by DEADLINE. On False the fd is no longer the caller's (closed or handed on)."""
    try:
        fcntl.flock(fd, op | fcntl.LOCK_NB)
        return True
    except BlockingIOError:
        pass
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        os.close(fd)
        return False
    return _Waiter(fd, op, path).wait(remaining)


class _Waiter:
    """A blocking flock on a helper thread, so the caller can stop waiting at its deadline.

    The thread owns the fd once the caller gives up: when its flock finally succeeds it
    closes the fd, which drops the lock that came too late.
    """

    def __init__(self, fd: int, op: int, path: Path) -> None:
        self.fd, self.op, self.path = fd, op, path
        self.abandoned = False
        self.error: OSError | None = None
        self.guard = _thread.allocate_lock()
        self.done = _thread.allocate_lock()
        self.done.acquire()
        _thread.start_new_thread(self._run, ())

    def _run(self) -> None:
        try:
            fcntl.flock(self.fd, self.op)
        except OSError as exc:
            self.error = exc
        with self.guard:
            if self.abandoned:
                os.close(self.fd)
                return
            self.done.release()

    def wait(self, seconds: float) -> bool:
        try:
            got = self.done.acquire(timeout=seconds)
        except BaseException:  # Ctrl-C while waiting: leave the fd to the thread, or drop a lock just taken
            if not self._abandon():
                os.close(self.fd)
            raise
        if not got and not self._abandon():
            got = True  # the lock came between the timeout and the abandonment
        if got and self.error is not None:
            os.close(self.fd)
            raise GridError(f"{self.path}: cannot take the lock ({self.error.strerror})")
        return got

    def _abandon(self) -> bool:
        """Hand the fd to the thread; False when the thread already took the lock."""
        with self.guard:
            if self.done.acquire(blocking=False):
                return False
            self.abandoned = True
            return True
