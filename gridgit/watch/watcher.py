"""The watcher: watchdog observers on .grid/ and the work trees, feeding debounced changes to gridgit.

Threads: watchdog's emitter and dispatcher threads only enqueue raw events (a handler
exception would otherwise kill the observer thread silently); every file read, git call and
write happens on the one thread that runs `Watcher.run`, which blocks on that queue.
"""

from __future__ import annotations

import copy
import logging
import os
import queue
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from watchdog.events import (
    DirCreatedEvent,
    DirDeletedEvent,
    DirMovedEvent,
    FileClosedEvent,
    FileDeletedEvent,
    FileModifiedEvent,
    FileMovedEvent,
    FileSystemEvent,
    FileSystemEventHandler,
)

from gridgit.errors import GridError
from gridgit.history.autosync import Timer
from gridgit.store import config
from gridgit.store.layout import Layout
from gridgit.watch.debounce import Batch, Change, Debouncer
from gridgit.watch.grid import GridKeeper
from gridgit.watch.observer import Observation, WatcherFailed
from gridgit.watch.origin import GitOrigin
from gridgit.watch.refs import RefWatch
from gridgit.watch.report import Reporter
from gridgit.watch.scope import Scope, Target

log = logging.getLogger("gridgit.watch.watcher")

HEALTH_SECONDS = 1.0
DRAIN_MAX = 5000
_STOP = object()
_SYNC = object()  # push_soon's signal: an auto-sync run now


class _Enqueue(FileSystemEventHandler):
    """Runs on watchdog's thread: hand the event over and never raise."""

    def __init__(self, sink: queue.SimpleQueue[Any]) -> None:
        super().__init__()
        self.sink = sink

    def dispatch(self, event: FileSystemEvent) -> None:
        try:
            self.sink.put((time.monotonic(), event))
        except Exception:  # pragma: no cover - SimpleQueue.put does not fail; belt and braces
            log.exception("could not enqueue %r", event)


class Watcher:
    """Watch one repository (all its work trees) and its Blackboard until stopped."""

    def __init__(self, layout: Layout, polling: bool = False, health: Callable[[], None] | None = None) -> None:
        self.layout = layout
        try:
            settings = config.load(layout)
        except GridError as exc:
            log.warning("config.json unreadable, using defaults: %s", exc)
            settings = copy.deepcopy(config.defaults())
        self.window = max(0.0, float(config.get(settings, "watcher.debounce_ms")) / 1000)
        self.sweep_every = max(1.0, float(config.get(settings, "watcher.sweep_seconds")))
        # 0: no timer (snapshots still follow commits, phase completions and syncs).
        self.snapshot_every = max(0.0, float(config.get(settings, "sync.snapshot_seconds")))
        self.health_hook = health
        self.sink: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self.handler = _Enqueue(self.sink)
        self.scope = Scope(layout)
        self.keeper = GridKeeper(layout, on_state_change=self._state_changed)
        self.debouncer = Debouncer(self.window, self._existed, self._exists)
        self.origin = GitOrigin(self.scope.git_dir, self.window)
        self.observation = Observation(self.handler, self._all_dirs, polling)
        self.reporter = Reporter(layout, self.scope, self.origin, self.debouncer.bulk_threshold, self._guard)
        foresight = config.get(settings, "foresight")
        self.refs = RefWatch(layout, max(0.0, float(foresight["debounce_seconds"])), bool(foresight["watch"]))
        self.autosync = Timer(layout)
        self.grid_missing = False
        self.started_at = 0.0

    # ---- life cycle ---------------------------------------------------------------------

    def start(self) -> None:
        """Discover what to watch, start the observer, and run the start-up validation pass."""
        self.started_at = time.monotonic()
        self.scope.discover()
        self.scope.load_agents()
        self.observation.start()
        self.refs.touch(self.started_at)  # commits made while no watcher ran are predicted too
        checked = self.keeper.full_pass()
        log.info(
            "watching %d directories with the %s observer (%d work tree(s)); %d .grid/ file(s) validated in %.2fs",
            len(self.watches),
            self.kind,
            len(self.scope.worktrees),
            checked,
            time.monotonic() - self.started_at,
        )

    def stop(self) -> None:
        """Stop the observer and join its threads (no thread is left behind)."""
        self.observation.stop()

    @property
    def kind(self) -> str:
        """native (inotify) or polling."""
        return self.observation.kind

    @property
    def watches(self) -> dict[str, tuple[Any, int]]:
        return self.observation.watches

    def wake(self) -> None:
        """Make `run` return soon; safe to call from a signal handler."""
        self.sink.put(_STOP)

    def sync_soon(self) -> None:
        """Run auto-sync now (`sync.auto`, gridgit.history.autosync.push_soon); safe to call from a signal handler."""
        self.sink.put(_SYNC)

    def run(self, stop: threading.Event) -> None:
        """The event loop: block on the queue until an event, a debounce deadline or a periodic job."""
        now = time.monotonic()
        next_health, next_sweep = now + HEALTH_SECONDS, now
        next_snapshot = now + self.snapshot_every if self.snapshot_every else None
        while not stop.is_set():
            deadlines = (
                self.debouncer.next_deadline(),
                self.origin.next_deadline(),
                self.refs.next_deadline(),
                self.autosync.next_deadline(),
                next_snapshot,
            )
            pending = [d for d in deadlines if d is not None]
            deadline = min(*pending, next_health, next_sweep)
            try:
                item = self.sink.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                item = None
            # Drain what is queued, but at most DRAIN_MAX at a time: a writer that never pauses
            # must not starve the flushes and the health checks.
            for _ in range(DRAIN_MAX):
                if item is None:
                    break
                if item is _STOP:
                    return
                self._take(item)
                try:
                    item = self.sink.get_nowait()
                except queue.Empty:
                    item = None
            else:
                if item is _STOP:
                    return
                if item is not None:
                    self._take(item)
            now = time.monotonic()
            batch = self.debouncer.ready(now)
            if batch.changes or batch.grid:
                self._guard(self._flush, batch, now)
            held = self.origin.due(now)
            if held:
                self._guard(self.reporter.report, held, now)
            if self.refs.due(now):
                self._guard(self.refs.run)
            if now >= next_health:
                try:
                    self._health()
                except WatcherFailed:
                    raise
                except Exception:
                    log.exception("health check failed (the watcher keeps going)")
                next_health = now + HEALTH_SECONDS
            if now >= next_sweep:
                self._guard(self.keeper.sweep)
                self._guard(self._state_changed)  # worktrees added or removed without a STATE change
                self._guard(self._missed_commits)
                next_sweep = now + self.sweep_every
            if next_snapshot is not None and now >= next_snapshot:
                self._guard(self._snapshot)
                next_snapshot = now + self.snapshot_every
            self._guard(self.autosync.run, now)

    def _take(self, item: Any) -> None:
        """One queued item: a raw file-system event, or push_soon's signal."""
        if item is _SYNC:
            self.autosync.request(time.monotonic())
        else:
            self._guard(self._on_event, item[1], item[0])

    def _missed_commits(self) -> None:
        """Commits made without git's hooks (gridgit.git.missed): recorded in a process of their own."""
        from gridgit.git import missed

        if missed.moved(str(self.layout.git_common)):
            from gridgit.git import recording

            recording.record_soon(self.layout)

    def _snapshot(self) -> None:
        """The daemon's timer (`sync.snapshot_seconds`): .grid/ onto the grid ref, as after a commit."""
        from gridgit.history import snapshot

        # Damage kept out of the history is announced (logged) by the snapshot itself, once.
        snapshot.snapshot(self.layout, "daemon timer", "system", config.value(self.layout, "sync.ref"))

    def _guard(self, func: Callable[..., Any], *args: Any) -> None:
        try:
            func(*args)
        except PermissionError as exc:
            log.warning("permission denied: %s", exc)
        except Exception:
            log.exception("error in %s (the watcher keeps going)", getattr(func, "__name__", func))

    # ---- observers and watches ----------------------------------------------------------

    def _all_dirs(self) -> list[Path]:
        dirs = self.scope.grid_dirs()
        for root in self.scope.worktrees:
            dirs.extend(self.scope.work_dirs(root))
        return dirs + self.refs.watch_dirs([self.scope.git_dir(root) for root in self.scope.worktrees])

    def _health(self) -> None:
        if self.health_hook is not None:
            self.health_hook()  # may raise to stop the watcher (e.g. the daemon lost its lock)
        if not (self.layout.main_root / ".git").exists():
            raise WatcherFailed(f"repository {self.layout.main_root} was moved or deleted; the watcher stops")
        self.observation.ensure_alive()
        grid_there = self.layout.grid.is_dir()
        if not grid_there and not self.grid_missing:
            log.warning("%s was removed; watching the work trees only until it comes back", self.layout.grid)
            self.keeper.handled.clear()
        elif grid_there and self.grid_missing:
            log.info("%s is back; watching and validating it again", self.layout.grid)
            for folder in self.scope.grid_dirs():
                self.observation.watch(folder)
            self._guard(self.keeper.full_pass)
        self.grid_missing = not grid_there

    # ---- raw events ---------------------------------------------------------------------

    def _on_event(self, event: FileSystemEvent, now: float) -> None:
        src = os.fsdecode(event.src_path)
        if self.refs.matches(src) or (
            isinstance(event, FileMovedEvent) and self.refs.matches(os.fsdecode(event.dest_path))
        ):
            self.refs.touch(now)  # a commit in some work tree: its branch moved
            return
        if event.is_directory:
            if isinstance(event, DirMovedEvent):
                self._dir_gone(src, now)
                self._dir_new(os.fsdecode(event.dest_path), now)
            elif isinstance(event, DirCreatedEvent):
                self._dir_new(src, now)
            elif isinstance(event, DirDeletedEvent):
                self._dir_gone(src, now)
            return
        if isinstance(event, FileMovedEvent):
            self.debouncer.move(self.scope.classify(src), self.scope.classify(os.fsdecode(event.dest_path)), now)
            return
        target = self.scope.classify(src)
        if target is None:
            return
        if isinstance(event, FileModifiedEvent):
            # inotify says when the writer closes the file; polling never does.
            self.debouncer.touch(target, now, open_for_write=self.kind == "native")
        else:
            self.debouncer.touch(target, now, closed=isinstance(event, (FileClosedEvent, FileDeletedEvent)))

    def _dir_new(self, path: str, now: float) -> None:
        """A new directory: watch it (unless ignored) and scan it, so files written before the watch count."""
        folder = Path(path)
        if not folder.is_dir() or folder.is_symlink() or self.scope.classify(path + "/x") is None:
            return
        root = self.scope.worktree_of(folder)
        grid = self.scope.is_grid(folder)
        if not grid and (root is None or not self.scope.filter_ignored(root, [folder.relative_to(root).as_posix()])):
            return
        if self.observation.watched(folder):
            return  # already watched (the scan of its parent got here first): nothing was missed
        self.observation.unwatch_tree(path)  # a directory recreated under an old watch needs a fresh one
        # Breadth first, asking git about each level's new sub-directories in one call, so a new
        # ignored tree (a fresh node_modules/) is never walked, let alone watched.
        level, files = [folder], []
        while level:
            subdirs: list[Path] = []
            for current in level:
                if not self.observation.watch(current):
                    return
                try:
                    entries = list(os.scandir(current))
                except OSError as exc:
                    log.warning("cannot scan %s: %s", current, exc)
                    continue
                for entry in entries:
                    if self.scope.classify(entry.path) is None:
                        continue
                    if entry.is_dir(follow_symlinks=False):
                        subdirs.append(Path(entry.path))
                    else:
                        files.append(Path(entry.path))
            if subdirs and not grid and root is not None:
                allowed = set(self.scope.filter_ignored(root, [d.relative_to(root).as_posix() for d in subdirs]))
                subdirs = [d for d in subdirs if d.relative_to(root).as_posix() in allowed]
            level = subdirs
        targets = [t for t in (self.scope.classify(str(p)) for p in files) if t is not None]
        if not grid and root is not None and targets:
            allowed = set(self.scope.filter_ignored(root, [t.rel for t in targets]))
            targets = [t for t in targets if t.rel in allowed]
        for target in targets:
            self.debouncer.touch(target, now, closed=True)

    def _dir_gone(self, path: str, now: float) -> None:
        self.observation.unwatch_tree(path)
        folder = Path(path)
        root = self.scope.worktree_of(folder)
        if root is None or self.scope.is_grid(folder):
            return
        prefix = folder.relative_to(root).as_posix() + "/"
        for rel in [r for r in self.scope.worktrees[root].known if r.startswith(prefix)]:
            self.debouncer.touch(Target("work", rel, root), now, closed=True)

    def _existed(self, target: Target) -> bool:
        tree = self.scope.worktrees.get(target.root)
        return tree is not None and target.rel in tree.known

    def _exists(self, target: Target) -> bool:
        return os.path.lexists(target.root / target.rel)

    # ---- settled changes ----------------------------------------------------------------

    def _flush(self, batch: Batch, now: float) -> None:
        for target in batch.grid:
            self._guard(self.keeper.process, target.rel)
        self.autosync.changed([target.rel for target in batch.grid], now)
        changes = self._not_ignored(batch.changes)
        for change in changes:
            tree = self.scope.worktrees.get(change.target.root)
            if tree is None:
                continue
            if change.operation == "deleted":
                tree.known.discard(change.target.rel)
            else:
                tree.known.add(change.target.rel)
            if change.old_path:
                tree.known.discard(change.old_path)
        self.reporter.report(changes, now)

    def _not_ignored(self, changes: list[Change]) -> list[Change]:
        kept: list[Change] = []
        for root in {c.target.root for c in changes}:
            mine = [c for c in changes if c.target.root == root]
            allowed = set(self.scope.filter_ignored(root, [c.target.rel for c in mine]))
            kept.extend(c for c in mine if c.target.rel in allowed)
        return kept

    # ---- agents and work trees ----------------------------------------------------------

    def _state_changed(self) -> None:
        """STATE.md changed: agents may have registered work trees (maybe new ones)."""
        self.scope.load_agents()
        for root in self.scope.discover():
            log.info("new worktree %s: watching it", root)
            for folder in self.scope.work_dirs(root) + self.refs.watch_dirs([self.scope.git_dir(root)]):
                if not self.observation.watch(folder):
                    return
