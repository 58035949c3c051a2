"""The watcher as a process: one per repository, started, stopped and inspected safely.

One instance is enforced by an OS lock (`flock` on `.grid/.daemon/daemon.lock`, held for the
process's lifetime and never deleted: a deleted-and-recreated lock file is how a peer project
ended up with orphan daemons). The pid file holds the pid and the process start time, so a
recycled pid is never taken for the daemon and `stop` never signals a stranger.
"""

from __future__ import annotations

import contextlib
import logging
import logging.handlers
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

from gridgit.errors import GridError
from gridgit.history import autosync
from gridgit.store import clock, fileio, gitcmd
from gridgit.store.layout import Layout
from gridgit.watch.instance import (
    LOCK_FILE,
    PID_FILE,
    InstanceLock,
    is_alive,
    lock_held,
    read_pid,
    read_status,
    start_time,
    write_status,
)

LOG_FILE = "daemon.log"
OUT_FILE = "daemon.out"
LOG_BYTES = 1_000_000
LOG_BACKUPS = 3

log = logging.getLogger("gridgit.watch.watcher")
_children: list[subprocess.Popen[bytes]] = []


@dataclass(frozen=True)
class DaemonStatus:
    """What `daemon status` reports. STATE is running, starting, stopped or stale-pid."""

    state: str
    pid: int | None = None
    started_at: str | None = None
    since: str | None = None
    mode: str | None = None
    observer: str | None = None
    watches: int | None = None
    root: str | None = None
    log: str | None = None
    action: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def describe(self) -> str:
        if self.state == "starting" and self.pid is None:
            return "starting (another watcher holds the lock and is still setting up)"
        if self.state in ("running", "starting"):
            detail = f", {self.watches} watches, {self.observer} observer" if self.watches is not None else ""
            return f"{self.state} (pid {self.pid}, {self.mode or 'background'}) since {self.since}{detail}"
        if self.state == "stale-pid":
            return f"stale-pid: pid {self.pid} from {self.since or 'an unknown time'} is not running (next start cleans it up)"
        return "stopped" + (f" since {self.since}" if self.since else "")


# ---- status, start, stop, logs ----------------------------------------------------------


def status(layout: Layout) -> DaemonStatus:
    """Running (or starting), stopped, or stale-pid (a pid file whose process is gone), and since when."""
    folder = layout.daemon_dir
    info = read_status(folder)
    pid, started = read_pid(folder)
    common: dict[str, Any] = {"root": str(layout.root), "log": str(folder / LOG_FILE)}
    if pid is not None and (is_alive(pid, started) or (started is None and lock_held(folder))):
        mine = info if info.get("pid") == pid else {}
        return DaemonStatus(
            state="running" if mine.get("state", "running") == "running" else "starting",
            pid=pid,
            started_at=mine.get("started_at"),
            since=mine.get("started_at"),
            mode=mine.get("mode"),
            observer=mine.get("observer"),
            watches=mine.get("watches"),
            **common,
        )
    if pid is not None:
        return DaemonStatus(state="stale-pid", pid=pid, since=info.get("started_at"), **common)
    if lock_held(folder):
        return DaemonStatus(state="starting", since=info.get("started_at"), **common)
    return DaemonStatus(state="stopped", since=info.get("stopped_at"), **common)


def _clean_stale(layout: Layout, found: DaemonStatus) -> None:
    """Remove a dead daemon's pid file, and say so in the log."""
    folder = layout.daemon_dir
    with contextlib.suppress(FileNotFoundError):
        (folder / PID_FILE).unlink()
    info = read_status(folder)
    info.update({"state": "stopped", "stopped_at": info.get("stopped_at") or clock.now_iso()})
    write_status(folder, info)
    _append_log(folder, f"removed the stale pid file of pid {found.pid} (that process is gone)")


def _append_log(folder: Path, message: str) -> None:
    line = f"{time.strftime('%Y-%m-%d %H:%M:%S')} INFO [{os.getpid()}] {message}\n"
    with open(folder / LOG_FILE, "a", encoding="utf-8") as handle:
        handle.write(line)


def start(layout: Layout, polling: bool = False, timeout: float = 30.0) -> DaemonStatus:
    """Start the background watcher unless one runs; returns once it watches (or says why not)."""
    layout.require()
    found = status(layout)
    if found.state in ("running", "starting"):
        return replace(found, action="already-running")
    folder = layout.daemon_dir
    folder.mkdir(parents=True, exist_ok=True)
    if found.state == "stale-pid":
        _clean_stale(layout, found)
    command = [sys.executable, "-m", "gridgit", "watch", "--daemon-child", *(["--polling"] if polling else [])]
    out_path = folder / OUT_FILE
    if out_path.exists() and out_path.stat().st_size > LOG_BYTES:
        out_path.unlink()
    with open(out_path, "ab") as out:
        # A new session: no terminal, no signals from the shell that started it.
        child = subprocess.Popen(
            command,
            cwd=layout.root,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            env=gitcmd.clean_env(),
        )
    _children.append(child)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = status(layout)
        if found.state == "running":
            return replace(found, action="started" if found.pid == child.pid else "already-running")
        if child.poll() is not None and found.state == "stopped":
            raise GridError(f"the daemon exited at start-up: {_last_line(folder / OUT_FILE)}")
        time.sleep(0.05)
    return replace(status(layout), action="starting")


def _last_line(path: Path) -> str:
    try:
        lines = [line for line in path.read_text(encoding="utf-8", errors="replace").splitlines() if line.strip()]
    except OSError:
        lines = []
    return lines[-1] if lines else f"no output (see {path})"


def stop(layout: Layout, timeout: float = 10.0) -> DaemonStatus:
    """SIGTERM the daemon (only the process the pid file names, verified by its start time) and wait."""
    found = status(layout)
    if found.state == "stale-pid":
        _clean_stale(layout, found)
        return replace(status(layout), action="cleaned")
    if found.state not in ("running", "starting"):
        return replace(found, action="not-running")
    if found.pid is None:
        raise GridError(f"a watcher holds {layout.daemon_dir / LOCK_FILE} but wrote no pid file; try again in a second")
    _, started = read_pid(layout.daemon_dir)
    if started is None:
        raise GridError(
            f"{layout.daemon_dir / PID_FILE} has no start time, so pid {found.pid} cannot be verified; not signalling it"
        )
    with contextlib.suppress(ProcessLookupError):
        os.kill(found.pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for child in list(_children):
            if child.poll() is not None:
                _children.remove(child)
        if not is_alive(found.pid, started):
            after = status(layout)
            if after.state == "stale-pid":  # it died without cleaning up after itself
                _clean_stale(layout, after)
            return replace(status(layout), action="stopped", pid=found.pid)
        time.sleep(0.05)
    raise GridError(f"daemon pid {found.pid} did not stop within {timeout:g}s; it is still running")


def logs(layout: Layout, lines: int = 50) -> list[str]:
    """The last LINES lines of the daemon log (its start-up output when the log is empty)."""
    folder = layout.daemon_dir
    for name in (LOG_FILE, OUT_FILE):
        try:
            text = (folder / name).read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        if text.strip():
            return text.splitlines()[-lines:] if lines > 0 else []
    return []


def follow(layout: Layout, interval: float = 0.5) -> Iterator[str]:
    """Yield lines appended to the daemon log, until interrupted (rotation is followed)."""
    path = layout.daemon_dir / LOG_FILE
    position = path.stat().st_size if path.exists() else 0
    while True:
        size = path.stat().st_size if path.exists() else 0
        if size < position:
            position = 0
        if size > position:
            with open(path, encoding="utf-8", errors="replace") as handle:
                handle.seek(position)
                chunk = handle.read()
                position = handle.tell()
            yield from chunk.splitlines()
        time.sleep(interval)


# ---- the watcher process ----------------------------------------------------------------


def _setup_logging(folder: Path, background: bool) -> logging.Handler:
    handler: logging.Handler
    if background:
        handler = logging.handlers.RotatingFileHandler(
            folder / LOG_FILE, maxBytes=LOG_BYTES, backupCount=LOG_BACKUPS, encoding="utf-8"
        )
    else:
        handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter(f"%(asctime)s %(levelname)s [{os.getpid()}] %(message)s"))
    for name, level in (("gridgit", logging.INFO), ("watchdog", logging.WARNING)):
        logger = logging.getLogger(name)
        logger.addHandler(handler)
        logger.setLevel(level)
    return handler


def run(layout: Layout, polling: bool = False, background: bool = False) -> None:
    """Be the watcher of LAYOUT until SIGTERM / SIGINT / SIGHUP (blocks). One per repository."""
    from gridgit.watch.observer import WatcherFailed
    from gridgit.watch.watcher import Watcher

    layout.require()
    folder = layout.daemon_dir
    folder.mkdir(parents=True, exist_ok=True)
    lock = InstanceLock(folder)
    if not lock.acquire(wait=0.5):
        raise GridError(f"a watcher already runs for this repository ({status(layout).describe()})")
    handler = _setup_logging(folder, background)
    me = {
        "pid": os.getpid(),
        "start_time": start_time(os.getpid()),
        "started_at": clock.now_iso(),
        "mode": "background" if background else "foreground",
        "root": str(layout.root),
        "state": "starting",
        "autosync": True,  # it takes gridgit.history.autosync.push_soon's signal
    }
    stop_event = threading.Event()
    watcher: Watcher | None = None

    def publish() -> None:
        fileio.atomic_write(folder / PID_FILE, f"{me['pid']}\n{me['start_time']}\n", durable=False)
        write_status(folder, me)

    def health() -> None:
        if not lock.still_ours():
            if not layout.grid.is_dir():
                return  # .grid/ is gone; the watcher logs it and waits for it to come back
            folder.mkdir(parents=True, exist_ok=True)
            if not lock.acquire():
                raise WatcherFailed("another watcher took over the recreated .grid/.daemon/ lock; this one stops")
            log.info("re-acquired the instance lock in the recreated %s", folder)
            publish()
        if watcher is not None and (me.get("watches"), me.get("observer")) != (len(watcher.watches), watcher.kind):
            me.update(watches=len(watcher.watches), observer=watcher.kind)
            write_status(folder, me)

    def on_signal(signum: int, frame: Any) -> None:
        log.info("received %s; stopping", signal.Signals(signum).name)
        stop_event.set()
        if watcher is not None:
            watcher.wake()

    def on_sync_signal(signum: int, frame: Any) -> None:
        if watcher is not None:
            watcher.sync_soon()

    for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(signum, on_signal)
    signal.signal(autosync.WAKE, on_sync_signal)
    try:
        publish()
        log.info("watcher starting in %s (pid %d, %s)", layout.root, me["pid"], me["mode"])
        watcher = Watcher(layout, polling=polling, health=health)
        try:
            watcher.start()
            me.update(state="running", watches=len(watcher.watches), observer=watcher.kind)
            # The repository may have been moved or deleted while the watcher started: the
            # status then has nowhere to go, and the first health check says why it stops.
            with contextlib.suppress(OSError):
                write_status(folder, me)
            watcher.run(stop_event)
        except WatcherFailed as exc:
            log.error("%s", exc)
            raise
        finally:
            watcher.stop()
    finally:
        pid_now, _ = read_pid(folder)
        if pid_now == me["pid"] and lock.still_ours():  # remove only our own pid file
            with contextlib.suppress(FileNotFoundError):
                (folder / PID_FILE).unlink()
            with contextlib.suppress(OSError):
                write_status(folder, {**me, "state": "stopped", "stopped_at": clock.now_iso()})
        log.info("watcher stopped (pid %d)", me["pid"])
        lock.release()
        for name in ("gridgit", "watchdog"):
            logging.getLogger(name).removeHandler(handler)
        handler.close()
