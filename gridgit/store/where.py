"""Where a repository and its Blackboard are, from the file system alone: strings, no pathlib, no git.

Layout.find builds on it, and so does the agent hooks' fast path (gridgit.agents.fastpath),
which must decide "nothing new" in less time than importing pathlib takes. The names of the
files both read are here too, so the two can never disagree on where a file is.
"""

from __future__ import annotations

import os

GRID_DIRNAME = ".grid"
# Inside .grid/: the files the fast path reads (Layout's properties name the same ones).
EVENTS_LOG = os.path.join("events", "current.jsonl")
CURSORS_DIR = os.path.join("events", "cursors")
INBOX_CURSORS = os.path.join(CURSORS_DIR, "inbox")
CLAIMS = "claims.json"
CONFIG = "config.json"
MESSAGES = "messages"  # one box (folder) per addressee: an agent id, @all, @BLOCK


class Found:
    """ROOT (the work tree), MAIN_ROOT (the main worktree's) and COMMON (the common git dir), absolute."""

    __slots__ = ("common", "main_root", "root")

    def __init__(self, root: str, main_root: str, common: str) -> None:
        self.root = root
        self.main_root = main_root
        self.common = common

    def configured(self) -> bool:
        """Whether a git config file has a `[grid]` section (only git can then tell where .grid/ is).

        Not `[gridgit]`, where gridgit keeps this clone's id: that must not cost every command a git call.
        """
        for name in ("config", "config.worktree"):
            try:
                with open(os.path.join(self.common, name), encoding="utf-8", errors="replace") as handle:
                    text = handle.read()
            except FileNotFoundError:
                continue
            if "[grid" in text.lower() and any(_grid_section(line) for line in text.splitlines()):
                return True
        return False


def _grid_section(line: str) -> bool:
    """A `[grid]` or `[grid "..."]` section header (git spells section names in any case)."""
    header = line.strip().lower()
    return header.startswith(("[grid]", '[grid "'))


def git_entry(start: str) -> str | None:
    """The nearest `.git` (directory or worktree file) at or above START (absolute), or None."""
    folder = start
    while True:
        candidate = os.path.join(folder, ".git")
        if os.path.exists(candidate):
            return candidate
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def common_dir(dot_git: str) -> str:
    """The repository's common git dir; for a linked worktree, the main repository's. ValueError: not a gitdir file."""
    if os.path.isdir(dot_git):
        return dot_git
    with open(dot_git, encoding="utf-8") as handle:
        text = handle.read().strip()
    if not text.startswith("gitdir:"):
        raise ValueError(f"{dot_git}: not a gitdir file")
    gitdir = text[len("gitdir:") :].strip()
    if not os.path.isabs(gitdir):
        gitdir = os.path.realpath(os.path.join(os.path.dirname(dot_git), gitdir))
    commondir = os.path.join(gitdir, "commondir")
    if os.path.exists(commondir):
        with open(commondir, encoding="utf-8") as handle:
            common = handle.read().strip()
        return common if os.path.isabs(common) else os.path.realpath(os.path.join(gitdir, common))
    return gitdir


def find(start: str) -> Found | None:
    """The repository around START (made absolute and resolved), or None outside any. ValueError: a bad gitdir file."""
    dot_git = git_entry(os.path.realpath(start))
    if dot_git is None:
        return None
    root = os.path.dirname(dot_git)
    common = common_dir(dot_git)
    # Linked worktrees share the main worktree's Blackboard: shared memory must be shared.
    main_root = os.path.dirname(common) if os.path.basename(common) == ".git" else root
    return Found(root, main_root, common)
