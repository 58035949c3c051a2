"""watchdog observers for the watcher: one non-recursive watch per directory, the polling fallback.

inotify watches one directory per watch, so recursive watches would also watch ignored trees
(node_modules/, build/): the watcher schedules exactly the directories it wants instead.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from watchdog.events import (
    DirCreatedEvent,
    DirDeletedEvent,
    DirMovedEvent,
    FileClosedEvent,
    FileCreatedEvent,
    FileDeletedEvent,
    FileModifiedEvent,
    FileMovedEvent,
    FileSystemEvent,
    FileSystemEventHandler,
)

from gridgit.errors import GridError

log = logging.getLogger("gridgit.watch.watcher")

# Only what changes content reaches the handler: no opened / closed-without-write / attribute
# events, and no directory-modified noise (the kernel is not even asked for them).
EVENT_FILTER: list[type[FileSystemEvent]] = [
    FileCreatedEvent,
    FileModifiedEvent,
    FileDeletedEvent,
    FileMovedEvent,
    FileClosedEvent,
    DirCreatedEvent,
    DirDeletedEvent,
    DirMovedEvent,
]
POLL_SECONDS = 1.0
MAX_POLL_SECONDS = 10.0
DIRS_PER_POLL_SECOND = 250
MAX_RESTARTS = 5
RESTART_WINDOW_SECONDS = 600


class WatcherFailed(GridError):
    """The watcher cannot go on (repository gone, observer dying over and over)."""


class Observation:
    """A watchdog observer and its watches; DIRS says what to watch when (re)starting."""

    def __init__(self, handler: FileSystemEventHandler, dirs: Callable[[], list[Path]], polling: bool = False) -> None:
        self.handler = handler
        self.dirs = dirs
        self.kind = "polling" if polling else "native"
        self.observer: Any = None
        self.watches: dict[str, tuple[Any, int]] = {}
        self.restarts: list[float] = []

    def _new_observer(self, dir_count: int) -> Any:
        if self.kind == "native":
            try:
                from watchdog.observers import Observer

                return Observer()
            except OSError as exc:
                log.warning("native observer unavailable (%s); falling back to polling", exc)
                self.kind = "polling"
        from watchdog.observers.polling import PollingObserver

        # Every poll stats every file: on a big tree poll less often, or polling eats a core.
        interval = min(MAX_POLL_SECONDS, max(POLL_SECONDS, dir_count / DIRS_PER_POLL_SECOND))
        log.info("polling %d directories every %.1fs", dir_count, interval)
        return PollingObserver(timeout=interval)

    def start(self) -> None:
        """Start an observer and watch every directory DIRS names."""
        folders = self.dirs()
        self.observer = self._new_observer(len(folders))
        self.observer.start()
        self.watches.clear()
        for folder in folders:
            if not self.watch(folder):
                return  # fell back to polling, which scheduled everything again

    def stop(self) -> None:
        """Stop the observer and join its threads (no thread is left behind)."""
        observer, self.observer = self.observer, None
        if observer is not None:
            observer.stop()
            observer.join(timeout=10)
        self.watches.clear()

    def ensure_alive(self) -> None:
        """Restart a dead observer thread; give up after MAX_RESTARTS deaths in 10 minutes."""
        if self.observer is not None and self.observer.is_alive():
            return
        now = time.monotonic()
        self.restarts = [t for t in self.restarts if now - t < RESTART_WINDOW_SECONDS] + [now]
        if len(self.restarts) > MAX_RESTARTS:
            raise WatcherFailed(f"the {self.kind} observer died {len(self.restarts)} times in 10 minutes")
        log.error("the %s observer thread died; restarting it", self.kind)
        self.stop()
        self.start()

    def watch(self, folder: Path) -> bool:
        """Schedule one non-recursive watch; False when that made us fall back to polling."""
        key = str(folder)
        if self.observer is None or self.watched(folder):
            return True
        if key in self.watches:
            self.unwatch_tree(key)  # the directory was replaced: its old watch sees nothing
        try:
            inode = folder.stat().st_ino
            watch = self.observer.schedule(self.handler, key, recursive=False, event_filter=EVENT_FILTER)
            self.watches[key] = (watch, inode)
        except OSError as exc:
            if exc.errno in (errno.ENOSPC, errno.EMFILE) and self.kind == "native":
                log.error("inotify limit reached (%s) at %d watches; falling back to polling", exc, len(self.watches))
                self.stop()
                self.kind = "polling"
                self.start()
                return False
            if exc.errno not in (errno.ENOENT, errno.ENOTDIR):
                log.warning("cannot watch %s: %s", folder, exc)
        return True

    def watched(self, folder: Path) -> bool:
        """True when FOLDER has a live watch on this very directory (not on one it replaced)."""
        known = self.watches.get(str(folder))
        try:
            return known is not None and known[1] == folder.stat().st_ino
        except OSError:
            return False

    def unwatch_tree(self, folder: str) -> None:
        prefix = folder.rstrip("/") + "/"
        for key in [k for k in self.watches if k == folder or k.startswith(prefix)]:
            watch, _ = self.watches.pop(key)
            with contextlib.suppress(KeyError, RuntimeError, OSError):
                self.observer.unschedule(watch)
