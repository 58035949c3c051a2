"""Atomic file I/O: the only place gridgit writes files (their locks: `store.locks`)."""

from __future__ import annotations

import contextlib
import itertools
import os
import time
from pathlib import Path

from gridgit.errors import BadInput, GridError
from gridgit.store import leftovers

_TEMP_SEQ = itertools.count()


def refuse_symlink(path: Path) -> None:
    """A symlink where a .grid file should be could redirect writes anywhere: refuse it."""
    if path.is_symlink():
        raise BadInput(f"{path}: is a symlink; gridgit does not follow symlinks in .grid/")
    # Every folder between the file and .grid/ too: a symlinked phase folder or `events/`
    # (which a `git pull` can bring) would redirect writes anywhere, outside the repository.
    # (Only below a folder named .grid: other files gridgit writes, hooks in .git/, may lie
    # under symlinks the user chose.)
    folders = path.parents
    depth = next((i for i, folder in enumerate(folders) if folder.name == ".grid"), -1)
    for folder in folders[: depth + 1]:
        if folder.is_symlink():
            raise BadInput(f"{folder}: is a symlink; gridgit does not follow symlinks in .grid/")


def make_folder(folder: Path) -> None:
    """FOLDER and the folders above it, made where missing; never through a symlink in .grid/ (refuse_symlink)."""
    refuse_symlink(folder)
    folder.mkdir(parents=True, exist_ok=True)


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


def atomic_write(path: Path, text: str | bytes, durable: bool = True, finish: bool = True) -> None:
    """Replace PATH with TEXT (str as UTF-8, bytes as they are): a crash leaves the old file or the new one.

    DURABLE=False skips the fsyncs, for machine-local files that are rebuilt anyway
    (latest.json, cursors): os.replace alone still never exposes a half-written file.
    FINISH=False leaves finish_write(PATH) to the caller, to run once it has released the
    file's lock and before it reports the write done: writers queue for a scratchpad's lock,
    and the directory's fsync is a good part of the time each would hold it.
    """
    refuse_symlink(path)
    data = text.encode("utf-8") if isinstance(text, str) else text
    # A unique name without tempfile (whose imports cost ~5 ms on every command): O_EXCL
    # makes a clash an error, never a shared file.
    tmp = str(path.parent / f".{path.name}.{os.getpid()}.{time.monotonic_ns()}.{next(_TEMP_SEQ)}.tmp")
    try:
        mode = os.stat(path).st_mode & 0o777  # the file keeps its permissions
    except FileNotFoundError:
        mode = 0o644
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        try:
            os.fchmod(fd, mode)
            view = memoryview(data)
            while view:  # os.write may write less than asked (a signal, a pipe): loop until done
                view = view[os.write(fd, view) :]
            if durable:
                os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    if finish:
        finish_write(path, durable)


def finish_write(path: Path, durable: bool = True) -> None:
    """The last step of atomic_write: the directory's fsync that makes the rename durable (the
    new file's data already is), then the temp files of crashed writers removed."""
    if durable:
        _fsync_dir(path.parent)
    _remove_orphans(path)


def _remove_orphans(path: Path) -> None:
    """Delete temp files of PATH that a killed writer left behind (its pid is in the name).

    Only a dead process's files go: a live writer's temp file (even of another user) is
    its work in progress. A recycled pid only delays the clean-up to a later write.
    """
    prefix = f".{path.name}."
    for name in os.listdir(path.parent):
        if not (name.startswith(prefix) and name.endswith(".tmp")):
            continue
        pid = name[len(prefix) :].split(".", 1)[0]
        if not pid.isdigit() or int(pid) == os.getpid() or leftovers.running(int(pid)):
            continue
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path.parent / name)


def append_bytes(path: Path, data: bytes, own_line: bool = False) -> int:
    """Append DATA with one O_APPEND write; returns the file's size after it.

    OWN_LINE: DATA starts a line of its own, so a last line left unterminated (a crashed
    writer, a bad merge) gets its newline first, or it would swallow DATA's first line; the
    caller holds the file's lock. No fsync: a killed process loses nothing the kernel has
    accepted, and the event log is a live bus whose emit must stay well under a millisecond.
    """
    refuse_symlink(path)
    fd = os.open(path, (os.O_RDWR if own_line else os.O_WRONLY) | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        offset = os.lseek(fd, 0, os.SEEK_END)
        if own_line and offset and os.pread(fd, 1, offset - 1) != b"\n":
            data = b"\n" + data
        written = os.write(fd, data)
        if written != len(data):  # a regular file only falls short when the disk is full
            raise GridError(f"{path}: short write ({written} of {len(data)} bytes)")
        return offset + written
    finally:
        os.close(fd)


def _fsync_dir(folder: Path) -> None:
    """Make a rename durable: fsync the directory that holds it."""
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
