"""Who changed a work-tree file: an agent, or git itself (checkout, switch, merge, pull, reset, rebase, stash).

git rewrites work-tree files to match a commit, so once it is done they equal HEAD. An agent's
edit leaves its file different from HEAD until it is committed (and a commit reports its paths
through the pre-commit hook). So before a settled batch becomes `file_modified` events the
watcher asks git once per work tree which of its paths differ from HEAD, and drops the rest:
a `git merge` in the main worktree is nobody's edit, and a `git merge main` inside an agent's
worktree is not that agent's edit.

While git is still writing (it holds `index.lock`) the answer would compare new files with the
old HEAD, so a batch is held until the lock is gone (bounded: a lock left by a crashed git must
not silence the watcher). `git status` runs with GIT_OPTIONAL_LOCKS=0: the watcher never takes
the index lock itself, so it can never make the user's own `git commit` fail.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

from gridgit.errors import GridError
from gridgit.store import gitcmd
from gridgit.watch.debounce import Change

log = logging.getLogger("gridgit.watch.watcher")

# Files in the git dir that say a merge, cherry-pick, revert or rebase has not finished yet:
# its staged result is git's work, not an agent's (AUTO_MERGE appears before MERGE_HEAD does).
IN_PROGRESS = ("MERGE_HEAD", "CHERRY_PICK_HEAD", "REVERT_HEAD", "AUTO_MERGE", "rebase-merge", "rebase-apply")
# `git status` must not stall the event loop; past this the batch is reported as it is.
STATUS_TIMEOUT_SECONDS = 3.0
# More paths than this are not passed as pathspecs (a bounded command line): git reports the
# whole work tree and the batch is intersected with it. Still one call.
WHOLE_TREE_OVER = 200
# How long an index.lock may hold batches back before they are judged anyway.
MAX_HOLD_SECONDS = 10.0
MIN_RETRY_SECONDS = 0.05


def differing(root: Path, rels: list[str]) -> dict[str, str]:
    """Porcelain status `XY` of each of RELS (paths in work tree ROOT) that differs from HEAD.

    Untracked files count ("??"); a file deleted in the work tree counts only while HEAD has it.
    One `git status` call; raises GridError when git fails or takes too long.
    """
    args = ["status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames"]
    wanted = set(rels)
    if len(wanted) <= WHOLE_TREE_OVER:
        # literal: a path with `*` or `:` in its name is that file, never a pattern
        args += ["--", *(f":(literal){r}" for r in sorted(wanted))]
    env = {**gitcmd.clean_env(), "GIT_OPTIONAL_LOCKS": "0"}
    out = gitcmd.run(root, *args, env=env, timeout=STATUS_TIMEOUT_SECONDS)
    found: dict[str, str] = {}
    fields = out.split("\0")
    i = 0
    while i < len(fields):
        entry = fields[i]
        i += 1
        if len(entry) < 4:
            continue
        status, path = entry[:2], entry[3:]
        if status[0] in "RC":
            i += 1  # the original path follows a rename or copy
        if path in wanted:
            found[path] = status
    return found


def in_progress(git_dir: Path) -> bool:
    """True while a merge, cherry-pick, revert or rebase in this work tree waits to be finished."""
    return any((git_dir / name).exists() for name in IN_PROGRESS)


class GitOrigin:
    """Drops the changes git made; holds a work tree's batch while git is still writing it."""

    def __init__(self, git_dir_of: Callable[[Path], Path | None], window: float) -> None:
        self.git_dir_of = git_dir_of
        self.retry = max(window, MIN_RETRY_SECONDS)
        self.held: list[Change] = []
        self.next_try: float | None = None
        self.lock_since: dict[Path, float] = {}

    def next_deadline(self) -> float | None:
        """When held changes are to be judged again (monotonic seconds), None when none are held."""
        return self.next_try if self.held else None

    def due(self, now: float) -> list[Change]:
        """The held changes whose time to be judged again has come (removed from the hold)."""
        if not self.held or self.next_try is None or now < self.next_try:
            return []
        due, self.held, self.next_try = self.held, [], None
        return due

    def hold(self, changes: list[Change], until: float) -> None:
        """Hold CHANGES until UNTIL (monotonic seconds): `due` hands them back then."""
        self.held.extend(changes)
        self.next_try = until if self.next_try is None else min(self.next_try, until)

    def agents_changes(self, changes: list[Change], now: float) -> list[Change]:
        """CHANGES minus those git made (held ones come back through `due`)."""
        kept: list[Change] = []
        for root in dict.fromkeys(c.target.root for c in changes):
            kept.extend(self._judge(root, [c for c in changes if c.target.root == root], now))
        return kept

    def _judge(self, root: Path, changes: list[Change], now: float) -> list[Change]:
        git_dir = self.git_dir_of(root)
        if git_dir is not None and self._git_writing(root, git_dir, now):
            log.debug("%s: git holds index.lock; %d change(s) wait for it", root, len(changes))
            self.held.extend(changes)
            self.next_try = now + self.retry if self.next_try is None else self.next_try
            return []
        rels = [c.target.rel for c in changes] + [c.old_path for c in changes if c.old_path]
        try:
            dirty = differing(root, rels)
        except (GridError, OSError) as exc:
            log.warning("cannot tell git's changes from agents' in %s (%s); reporting them all", root, exc)
            return changes
        # Mid-merge (or rebase, cherry-pick, revert) a path staged exactly as it is on disk is
        # the operation's result; an agent's edit differs from the index too, or is a conflict.
        settling = git_dir is not None and in_progress(git_dir)
        kept = []
        for change in changes:
            paths = [change.target.rel] + ([change.old_path] if change.old_path else [])
            if any(p in dirty and not (settling and dirty[p][1] == " ") for p in paths):
                kept.append(change)
            else:
                log.debug("%s %s by git (it equals HEAD): not an agent's edit", change.target.rel, change.operation)
        return kept

    def _git_writing(self, root: Path, git_dir: Path, now: float) -> bool:
        if not (git_dir / "index.lock").exists():
            self.lock_since.pop(root, None)
            return False
        since = self.lock_since.setdefault(root, now)
        if now - since < MAX_HOLD_SECONDS:
            return True
        if since > 0:
            lock = git_dir / "index.lock"
            log.warning("%s held for %.0fs; judging changes against HEAD anyway", lock, now - since)
            self.lock_since[root] = -1.0  # said once per lock
        return False
