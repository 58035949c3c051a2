"""Commits landing on agent branches, as the watcher sees them: the cue to predict merge conflicts again.

git appends to a work tree's HEAD reflog (`<git dir>/logs/HEAD`) for every commit, amend,
reset, rebase or merge made in it. The watcher watches each work tree's `logs/` folder (one
inotify watch per work tree; nothing polls git), waits until the updates have been quiet for
`foresight.debounce_seconds` (a rebase writes dozens), then asks git for the branch tips of
the registered agents and the base. Only when one moved does it run the prediction
(gridgit.git.predict) and announce what is new (gridgit.git.announce): `git merge-tree`
subprocesses on the watcher's thread.
"""

from __future__ import annotations

import logging
from pathlib import Path

from gridgit.errors import GridError
from gridgit.git import announce, branches, mergetree, predict
from gridgit.store import gitcmd
from gridgit.store.layout import Layout

log = logging.getLogger("gridgit.watch.watcher")

# A burst that never pauses (a long rebase) is still predicted this many debounce windows after it began.
MAX_HOLD_WINDOWS = 5


class RefWatch:
    """Debounced reactions to reflog updates of the repository's work trees."""

    def __init__(self, layout: Layout, delay: float, enabled: bool = True) -> None:
        self.layout = layout
        self.delay = delay
        self.enabled = enabled and self._git_can()
        self.folders: set[Path] = set()
        self.due_at: float | None = None
        self.first: float | None = None
        self.tips: dict[str, str] | None = None

    @staticmethod
    def _git_can() -> bool:
        try:
            gitcmd.require_version(mergetree.MINIMUM_GIT, mergetree.FEATURE)
        except GridError as exc:
            log.warning("merge conflicts are not predicted: %s", exc)
            return False
        return True

    def watch_dirs(self, git_dirs: list[Path | None]) -> list[Path]:
        """The `logs/` folders of these work trees' git dirs (remembered, so their events are recognised)."""
        if not self.enabled:
            return []
        found = [g / "logs" for g in git_dirs if g is not None and (g / "logs").is_dir()]
        self.folders.update(found)
        return found

    def matches(self, path: str) -> bool:
        """True for a work tree's HEAD reflog."""
        candidate = Path(path)
        return candidate.name == "HEAD" and candidate.parent in self.folders

    def touch(self, now: float) -> None:
        """A reflog changed: predict once the updates have been quiet for the delay."""
        if not self.enabled:
            return
        self.first = now if self.first is None else self.first
        self.due_at = min(now + self.delay, self.first + self.delay * MAX_HOLD_WINDOWS)

    def next_deadline(self) -> float | None:
        return self.due_at

    def due(self, now: float) -> bool:
        if self.due_at is None or now < self.due_at:
            return False
        self.due_at = self.first = None
        return True

    def run(self) -> None:
        """Predict again when an agent branch or the base moved since the last prediction."""
        base, sides = branches.sides(self.layout)
        tips = {side.name: side.commit for side in [base, *sides]}
        if not sides or tips == self.tips:
            self.tips = tips
            return
        prediction = predict.compare(self.layout, base, sides)
        new = announce.announce(self.layout, prediction)
        self.tips = tips
        log.info(
            "predicted %d merge(s): %d conflict, %d overlap, %d new",
            len(prediction.pairs),
            len(prediction.conflicts),
            len(prediction.overlaps),
            new,
        )
