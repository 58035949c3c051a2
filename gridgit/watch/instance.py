"""The watcher's instance files in .grid/.daemon/: the flock that makes it one per repository,
the pid file (pid + process start time) and the status file.

The lock file is never deleted: a deleted-and-recreated lock file lets a second process lock
a new inode while the first still holds the old one (how a peer project got orphan daemons).
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

from gridgit.store import fileio

PID_FILE = "daemon.pid"
LOCK_FILE = "daemon.lock"
STATUS_FILE = "daemon.json"


# ---- process identity -------------------------------------------------------------------


def start_time(pid: int, proc: Path = Path("/proc")) -> int | None:
    """When process PID started, as an integer that changes when the pid is recycled; None when gone.

    Linux: clock ticks after boot (/proc/PID/stat field 22). Without /proc (macOS, the BSDs):
    seconds since the epoch from `ps -o lstart=`. One machine always uses one of the two, so
    the pid file's value compares with the live one.
    """
    try:
        stat = (proc / str(pid) / "stat").read_text()
    except (FileNotFoundError, ProcessLookupError, PermissionError, OSError):
        if proc.is_dir():  # /proc is there and PID is not in it: gone
            return None
        return _ps_start_time(pid)
    fields = stat[stat.rfind(")") + 2 :].split()
    if not fields or fields[0] in ("Z", "X"):  # a zombie has exited; only its parent's wait is missing
        return None
    return int(fields[19])


def _ps_start_time(pid: int) -> int | None:
    """PID's start time from POSIX `ps` (state and start, C locale); None when gone or unknowable."""
    import subprocess

    try:
        out = subprocess.run(
            ["ps", "-o", "stat=", "-o", "lstart=", "-p", str(pid)],
            capture_output=True,
            text=True,
            env={**os.environ, "LC_ALL": "C"},
            timeout=10,
        ).stdout.split(None, 1)
    except (OSError, subprocess.SubprocessError):
        return None
    if len(out) != 2 or out[0].startswith("Z"):
        return None
    try:  # `Thu Dec  3 08:26:21 2026`, local time
        return int(time.mktime(time.strptime(" ".join(out[1].split()), "%a %b %d %H:%M:%S %Y")))
    except ValueError:
        return None


def is_alive(pid: int, started: int | None) -> bool:
    """True when PID runs and is the very process that started at STARTED (not a recycled pid)."""
    current = start_time(pid)
    return current is not None and started is not None and current == started


def read_pid(folder: Path) -> tuple[int | None, int | None]:
    try:
        lines = (folder / PID_FILE).read_text(encoding="utf-8").split()
        return int(lines[0]), (int(lines[1]) if len(lines) > 1 else None)
    except (FileNotFoundError, ValueError, IndexError, OSError):
        return None, None


def read_status(folder: Path) -> dict[str, Any]:
    try:
        data = json.loads((folder / STATUS_FILE).read_text(encoding="utf-8"))
        return data if isinstance(data, dict) else {}
    except (FileNotFoundError, ValueError, OSError):
        return {}


def write_status(folder: Path, data: dict[str, Any]) -> None:
    fileio.atomic_write(folder / STATUS_FILE, json.dumps(data, indent=2) + "\n", durable=False)


# ---- the instance lock ------------------------------------------------------------------


class InstanceLock:
    """An exclusive flock on daemon.lock (or NAME) held for the process's lifetime."""

    def __init__(self, folder: Path, name: str = LOCK_FILE) -> None:
        self.path = folder / name
        self.fd: int | None = None

    def acquire(self, wait: float = 0.0) -> bool:
        import fcntl

        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        deadline = time.monotonic() + wait
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                self.release()
                self.fd = fd
                return True
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    os.close(fd)
                    return False
                time.sleep(0.05)

    def still_ours(self) -> bool:
        """False when daemon.lock was deleted or replaced under us (then another process could lock it)."""
        if self.fd is None:
            return False
        try:
            return os.stat(self.path).st_ino == os.fstat(self.fd).st_ino
        except OSError:
            return False

    def release(self) -> None:
        if self.fd is not None:
            os.close(self.fd)  # closing drops the flock; the file stays, so its inode stays the lock
            self.fd = None


def flock_held(path: Path) -> bool:
    """Whether a process holds PATH's flock right now (probed without waiting; closing the fd drops the probe)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        return False
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        os.close(fd)
    return False


def lock_held(folder: Path) -> bool:
    """Whether a watcher holds the instance lock of FOLDER."""
    return flock_held(folder / LOCK_FILE)
