"""The hooks that run after git moved HEAD: post-merge, post-rewrite, post-checkout.

They re-index and validate the .grid/ files that changed and run phase completion for phase
commits that arrived (by merge, pull, rebase or cherry-pick).
"""

from __future__ import annotations

import contextlib
import sys
from typing import Any

from gridgit.git.commit_hooks import complete_phases
from gridgit.git.hookenv import NULL_SHA, warn
from gridgit.store import gitcmd
from gridgit.store.layout import Layout


def _refresh(layout: Layout, old: str, new: str) -> None:
    """Re-index and validate the .grid/ files that differ between OLD and NEW."""
    from gridgit.scratchpad import store
    from gridgit.validation import rules, sources

    prefix = sources.grid_prefix(layout)
    if not prefix:
        return
    changed = gitcmd.run_z(layout.root, "diff", "--name-only", "--no-renames", old, new, "--", prefix)
    for path in changed:
        rel = path[len(prefix) + 1 :]
        full = layout.grid / rel
        parts = rel.split("/")
        if not full.is_file() or full.is_symlink():
            continue
        if len(parts) == 3 and parts[0] == "phases" and parts[2] == "scratchpad.md":
            # A body that does not parse is reported below, never "repaired".
            with contextlib.suppress(Exception):
                store.reindex(layout, parts[1])
        for problem in rules.validate_bytes(rel, full.read_bytes(), path):
            warn(str(problem))


def _arrived(layout: Layout, cfg: dict[str, Any], old: str) -> None:
    from gridgit.git import evidence

    complete_phases(layout, cfg, evidence.commits_in(layout, "HEAD", f"^{old}"))


def post_merge(layout: Layout, cfg: dict[str, Any], args: list[str]) -> int:
    if args and args[0] == "1":  # a squash merge moves no HEAD; its commit runs post-commit
        return 0
    if not gitcmd.resolves(layout.root, "ORIG_HEAD"):
        return 0
    _refresh(layout, "ORIG_HEAD", "HEAD")
    _arrived(layout, cfg, "ORIG_HEAD")
    return 0


def post_rewrite(layout: Layout, cfg: dict[str, Any], args: list[str]) -> int:
    # git pipes `OLD NEW` lines; run by hand at a terminal there are none (never wait for a tty).
    text = "" if sys.stdin is None or sys.stdin.isatty() else sys.stdin.read()
    pairs = [line.split()[:2] for line in text.splitlines() if len(line.split()) >= 2]
    if args and args[0] == "rebase" and gitcmd.resolves(layout.root, "ORIG_HEAD"):
        _refresh(layout, "ORIG_HEAD", "HEAD")
        _arrived(layout, cfg, "ORIG_HEAD")
    elif pairs:
        from gridgit.git import evidence

        commits = [c for _, new in pairs for c in evidence.commits_in(layout, new, limit=1)]
        _refresh(layout, pairs[0][0], "HEAD")
        complete_phases(layout, cfg, commits)
    return 0


def post_checkout(layout: Layout, cfg: dict[str, Any], args: list[str]) -> int:
    if len(args) < 3 or args[2] != "1" or NULL_SHA in args[:2] or args[0] == args[1]:
        return 0
    _refresh(layout, args[0], args[1])
    return 0
