"""The hooks around git moving HEAD and talking to remotes: post-merge, post-rewrite,
post-checkout, pre-push.

After a merge, pull, rebase or cherry-pick they run phase completion for the phase commits
that arrived, put back a Blackboard that a pull of the untracking commit (`gridgit migrate`
in another clone) took away, and sync the grid ref with the branch's remote (`sync.on_pull`).
`git push` pushes the grid ref too (`sync.on_push`). A repository that still tracks .grid/
(not migrated yet) gets its changed .grid/ files re-indexed and validated.
"""

from __future__ import annotations

import contextlib
import sys
from typing import Any

from gridgit.errors import GridError
from gridgit.git.commit_hooks import complete_phases
from gridgit.git.hookenv import NULL_SHA, setting, warn
from gridgit.store import gitcmd
from gridgit.store.layout import Layout


def _refresh(layout: Layout, old: str, new: str) -> None:
    """Re-index and validate the .grid/ files that differ between OLD and NEW."""
    from gridgit.scratchpad import store
    from gridgit.validation import rules, sources

    prefix = sources.grid_prefix(layout)
    if not prefix:
        return
    changed = gitcmd.run_z(
        layout.root, "diff", "--name-only", "--no-renames", gitcmd.END_OF_OPTIONS, old, new, "--", prefix
    )
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


def _restore(layout: Layout, old: str) -> None:
    """Write back the .grid/ files git deleted when an untracking commit (`gridgit migrate`) arrived."""
    from gridgit.history import migrate

    migrate.restore_untracked(layout, old)


def _after_pull(layout: Layout, cfg: dict[str, Any]) -> None:
    """Sync the grid ref with the branch's remote (`sync.on_pull`) when the branch has one."""
    from gridgit.history import sync

    upstream = gitcmd.run(layout.root, "rev-parse", "-q", "--abbrev-ref", "@{upstream}", check=False).strip()
    if not upstream or not setting(cfg, "sync.on_pull", True):
        return
    try:
        sync.sync(layout, sync.default_remote(layout), ref=setting(cfg, "sync.ref", None), push_result=False)
    except GridError as exc:
        warn(f"the Blackboard was not synced ({exc}); run `gridgit sync`")


def post_merge(layout: Layout, cfg: dict[str, Any], args: list[str]) -> int:
    if args and args[0] == "1":  # a squash merge moves no HEAD; its commit runs post-commit
        return 0
    if not gitcmd.resolves(layout.root, "ORIG_HEAD"):
        return 0
    _restore(layout, "ORIG_HEAD")
    _refresh(layout, "ORIG_HEAD", "HEAD")
    _arrived(layout, cfg, "ORIG_HEAD")
    _after_pull(layout, cfg)
    return 0


def post_rewrite(layout: Layout, cfg: dict[str, Any], args: list[str]) -> int:
    # git pipes `OLD NEW` lines; run by hand at a terminal there are none (never wait for a tty).
    text = "" if sys.stdin is None or sys.stdin.isatty() else sys.stdin.read()
    pairs = [line.split()[:2] for line in text.splitlines() if len(line.split()) >= 2]
    if pairs:
        from gridgit.git import evidence

        evidence.rewrite(layout, dict(pairs))
    if args and args[0] == "rebase" and gitcmd.resolves(layout.root, "ORIG_HEAD"):
        _restore(layout, "ORIG_HEAD")
        _refresh(layout, "ORIG_HEAD", "HEAD")
        _arrived(layout, cfg, "ORIG_HEAD")
        _after_pull(layout, cfg)
    elif pairs:
        from gridgit.git import evidence

        commits = [c for _, new in pairs for c in evidence.commits_in(layout, new, limit=1)]
        _refresh(layout, pairs[0][0], "HEAD")
        complete_phases(layout, cfg, commits)
    return 0


def _set_up_agent_tools(layout: Layout) -> None:
    """A new work tree (`git worktree add`): gridgit's hooks for the agent tools the repository's other worktrees have."""
    from gridgit.agents import setup

    try:
        for report in setup.follow(layout):
            if report.changed:
                sys.stderr.write(f"gridgit: agent tool hooks set up in {report.path}\n")
    except GridError as exc:
        warn(f"agent tool hooks not set up in this worktree ({exc}); run `gridgit setup TOOL`")


def pre_push(layout: Layout, cfg: dict[str, Any], args: list[str]) -> int:
    """`git push REMOTE`: sync the grid ref with REMOTE too (fetch, merge, push); never refuses the push."""
    if not args or not setting(cfg, "sync.on_push", True):
        return 0
    from gridgit.git import recording
    from gridgit.history import sync

    recording.settle(layout)  # `git commit && git push`: the commit's own snapshot is on the ref the push carries
    try:
        sync.sync(layout, args[0], ref=setting(cfg, "sync.ref", None))
    except GridError as exc:
        warn(f"the Blackboard was not pushed ({exc}); run `gridgit sync {args[0]}`")
    return 0


def post_checkout(layout: Layout, cfg: dict[str, Any], args: list[str]) -> int:
    if len(args) >= 3 and args[0] == NULL_SHA and args[2] == "1":
        _set_up_agent_tools(layout)
    if len(args) < 3 or args[2] != "1" or NULL_SHA in args[:2] or args[0] == args[1]:
        return 0
    _refresh(layout, args[0], args[1])
    return 0
