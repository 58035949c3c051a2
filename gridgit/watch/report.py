"""Settled work-tree changes as events: git's own changes dropped, then one `file_modified`
(with the write-conflict check) per change, or one `files_modified_bulk` for a storm.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from gridgit.errors import BadInput
from gridgit.events import bus
from gridgit.store.layout import Layout
from gridgit.watch.debounce import Change
from gridgit.watch.origin import GitOrigin
from gridgit.watch.scope import Scope

log = logging.getLogger("gridgit.watch.watcher")

BULK_SAMPLE = 20
HOOK_GRACE_SECONDS = 2.0


@dataclass
class Reporter:
    """Turns the changes agents made into events; GUARD runs each one so a failure is logged, not raised."""

    layout: Layout
    scope: Scope
    origin: GitOrigin
    bulk_threshold: int
    guard: Callable[..., Any]

    graced: list[tuple[Change, float]] = field(default_factory=list)  # changes held for the hooks, until when

    def report(self, changes: list[Change], now: float) -> None:
        """Emit the changes agents made (git's own are dropped): one event each, or one summary."""
        changes = self._after_hooks(self.origin.agents_changes(changes, now), now)
        if len(changes) > self.bulk_threshold:
            self.emit_bulk(changes)
            return
        for change in changes:
            self.guard(self.record, change)

    def _after_hooks(self, changes: list[Change], now: float) -> list[Change]:
        """Where agent tools' hooks run, hold each change HOOK_GRACE_SECONDS: the tool's after-edit
        hook (a process of its own) reports the edit with its agent a moment after the write,
        and `record` then leaves it to the hook."""
        if not changes or not (self.layout.cursors_dir / "sessions").is_dir():
            return changes
        # A held change git later judged its own never comes back: forget it after a minute.
        self.graced = [(c, u) for c, u in self.graced if u > now - 60]
        ready: list[Change] = []
        for change in changes:
            until = next((u for c, u in self.graced if c is change), None)
            if until is None:
                until = now + HOOK_GRACE_SECONDS
                self.graced.append((change, until))
            if now >= until:
                ready.append(change)
                self.graced = [(c, u) for c, u in self.graced if c is not change]
            else:
                self.origin.hold([change], until)
        return ready

    def record(self, change: Change) -> None:
        from gridgit.agents import attributed
        from gridgit.coordination import conflicts

        if attributed.reported_by_hook(self.layout, change.target.rel):
            log.debug("%s: an agent hook reported it already", change.target.rel)
            return
        agent = self.scope.agent_of(change.target.root)
        try:
            result = conflicts.record_modification(
                self.layout, change.target.rel, agent, operation=change.operation, old_path=change.old_path, check=True
            )
        except BadInput as exc:  # a file named with a line break (store.usertext.check_path): not reported
            log.warning("%s", exc)
            return
        if result.conflict is not None and result.conflict.has_conflict:
            log.warning("write conflict on %s (%s)", change.target.rel, agent)

    def emit_bulk(self, changes: list[Change]) -> None:
        operations = Counter(c.operation for c in changes)
        agents = sorted({self.scope.agent_of(c.target.root) for c in changes})
        payload = {
            "count": len(changes),
            "operations": dict(operations),
            "sample": [c.target.rel for c in changes[:BULK_SAMPLE]],
            "agents": agents,
            "worktrees": sorted({str(c.target.root) for c in changes}),
            "source": "watcher",
        }
        bus.emit(self.layout, "files_modified_bulk", payload)
        log.info("%d files changed at once (%s); one files_modified_bulk event", len(changes), dict(operations))
