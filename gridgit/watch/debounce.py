"""Debouncing raw file-system events into net changes per path (pure: time is passed in).

A path is ready once it has been quiet for the debounce window; what is reported is the net
change over the burst, judged from whether the path existed before it and exists now. So an
editor's atomic save (write `x.tmp`, rename it over `x`) nets to one `modified` of `x` and
nothing for `x.tmp`, and a `git checkout` of a thousand files becomes one bulk batch.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from gridgit.watch.scope import Target

# A file still open for writing is not ready; after this long without events it is anyway
# (a writer that keeps its file open must not hide the change for ever).
OPEN_GRACE_SECONDS = 2.0
# More work-tree paths than this pending at once are one burst (a checkout, a rebase, a
# formatter run): held until the whole burst is quiet, so it is flushed as one batch...
GROUP_MIN = 5
# ...and a batch of more changes than this is reported as one summary, not one event each.
BULK_THRESHOLD = 20
# A burst is flushed at least this often, even while it goes on.
STORM_MAX_HOLD_SECONDS = 5.0


@dataclass
class Pending:
    target: Target
    existed_before: bool
    first: float
    last: float
    open_for_write: bool = False
    moved_from: str | None = None
    moved_to: str | None = None


@dataclass(frozen=True)
class Change:
    """The net change of one path over a burst: created, modified, deleted or moved (from OLD_PATH)."""

    target: Target
    operation: str
    old_path: str | None = None


@dataclass
class Batch:
    changes: list[Change] = field(default_factory=list)
    grid: list[Target] = field(default_factory=list)


class Debouncer:
    """Collects touches per path; `ready(now)` hands back what has settled.

    EXISTED answers "did this path exist before the burst?" (the watcher's known-files set);
    EXISTS answers "does it exist now?" (the disk, checked at flush time).
    """

    def __init__(
        self,
        window: float,
        existed: Callable[[Target], bool],
        exists: Callable[[Target], bool],
        bulk_threshold: int = BULK_THRESHOLD,
        group_min: int = GROUP_MIN,
    ) -> None:
        self.window = window
        self.existed = existed
        self.exists = exists
        self.bulk_threshold = bulk_threshold
        self.group_min = group_min
        self.pending: dict[Target, Pending] = {}
        self.work_pending = 0
        self.latest = 0.0
        self.storm_since: float | None = None

    def __len__(self) -> int:
        return len(self.pending)

    def touch(self, target: Target, now: float, open_for_write: bool = False, closed: bool = False) -> Pending:
        item = self.pending.get(target)
        if item is None:
            item = Pending(target, self.existed(target), now, now)
            self.pending[target] = item
            if target.kind == "work":
                self.work_pending += 1
                if self.storm_since is None and self.work_pending > self.group_min:
                    self.storm_since = now
        item.last = now
        self.latest = max(self.latest, now)
        if open_for_write:
            item.open_for_write = True
        if closed:
            item.open_for_write = False
        return item

    def move(self, source: Target | None, dest: Target | None, now: float) -> None:
        """A rename: SOURCE (None when ignored or outside) to DEST (likewise)."""
        if source is not None:
            self.touch(source, now, closed=True).moved_to = dest.rel if dest is not None else None
        if dest is not None:
            item = self.touch(dest, now, closed=True)
            if source is not None and source.kind == dest.kind and source.root == dest.root:
                src = self.pending[source]
                # Only a path that really existed was moved; a temp file renamed over is a save.
                if src.existed_before and src.moved_from is None:
                    item.moved_from = source.rel
                elif src.moved_from is not None:
                    item.moved_from = src.moved_from

    def next_deadline(self) -> float | None:
        """When the next path may become ready (monotonic seconds), None when nothing is pending."""
        if not self.pending:
            return None
        if self.storm_since is not None:
            return min(self.latest + self.window, self.storm_since + STORM_MAX_HOLD_SECONDS)
        return min(p.last + (OPEN_GRACE_SECONDS if p.open_for_write else self.window) for p in self.pending.values())

    def ready(self, now: float) -> Batch:
        """The settled paths as a Batch (removed from pending)."""
        if not self.pending:
            return Batch()
        if self.storm_since is not None:
            if now - self.latest < self.window and now - self.storm_since < STORM_MAX_HOLD_SECONDS:
                return Batch()
            items = list(self.pending.values())
            self.storm_since = None
        else:
            items = [p for p in self.pending.values() if self._settled(p, now)]
        for item in items:
            del self.pending[item.target]
            if item.target.kind == "work":
                self.work_pending -= 1
        return self._net(items)

    def _settled(self, item: Pending, now: float) -> bool:
        quiet = now - item.last
        return quiet >= (OPEN_GRACE_SECONDS if item.open_for_write else self.window)

    def _net(self, items: list[Pending]) -> Batch:
        batch = Batch()
        by_rel = {(p.target.root, p.target.rel): p for p in items}
        for item in items:
            if item.target.kind == "grid":
                batch.grid.append(item.target)
                continue
            exists = self.exists(item.target)
            if item.moved_to is not None and not exists:
                dest = by_rel.get((item.target.root, item.moved_to))
                if dest is not None and dest.moved_from == item.target.rel:
                    continue  # the destination reports the move
            if exists and item.moved_from is not None:
                batch.changes.append(Change(item.target, "moved", item.moved_from))
            elif exists:
                batch.changes.append(Change(item.target, "modified" if item.existed_before else "created"))
            elif item.existed_before:
                batch.changes.append(Change(item.target, "deleted"))
        return batch
