"""What the watcher watches: the .grid/ tree, the work trees' tracked directories, and what it ignores.

All git access here is a few `git` subprocesses at start-up (and one batched `check-ignore`
per new path batch).
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass, field
from pathlib import Path

from gridgit.errors import GridError
from gridgit.model.permissions import UNKNOWN_AGENT
from gridgit.store import gitcmd
from gridgit.store.layout import Layout

log = logging.getLogger("gridgit.watch.watcher")

# .grid/ parts gridgit rewrites on every command: watching them would only feed loops.
GRID_SKIPPED_DIRS = frozenset({".daemon", ".cache", "events", "cursors"})
GRID_SKIPPED_SUFFIXES = (".lock", ".tmp")
# Editor scratch files: swap files, backups, vim's write probe. Atomic-save temp files are
# handled by net-change coalescing (created then renamed away = nothing happened).
WORK_SKIPPED_SUFFIXES = (".tmp", ".swp", ".swx", ".swo", "~")
WORK_SKIPPED_NAMES = frozenset({"4913", ".DS_Store"})


@dataclass(frozen=True)
class Target:
    """A changed path the watcher cares about: in .grid/ (kind "grid", rel inside .grid/) or a work tree."""

    kind: str
    rel: str
    root: Path


@dataclass
class Worktree:
    """One work tree of the repository: its tracked files and its git-ignored prefixes."""

    root: Path
    git_dir: Path | None = None
    known: set[str] = field(default_factory=set)
    ignored_dirs: set[str] = field(default_factory=set)
    ignored_files: set[str] = field(default_factory=set)

    def is_ignored(self, rel: str) -> bool:
        if rel in self.ignored_files or rel in self.ignored_dirs:
            return True
        parts = rel.split("/")
        return any("/".join(parts[:i]) in self.ignored_dirs for i in range(1, len(parts)))


def linked_worktrees(root: Path) -> list[Path]:
    """Every non-bare work tree of the repository (`git worktree list --porcelain -z`) that exists."""
    try:
        found = gitcmd.worktrees(root)
    except GridError as exc:
        log.warning("cannot list worktrees: %s", exc)
        return [root]
    roots = [tree.path.resolve() for tree in found if not tree.bare and tree.path.is_dir()]
    return roots or [root]


class Scope:
    """The directories to watch and the classification of every changed path."""

    def __init__(self, layout: Layout) -> None:
        self.layout = layout
        self.grid = layout.grid
        self.worktrees: dict[Path, Worktree] = {}
        self.agents: dict[Path, str] = {}

    # ---- discovery ----------------------------------------------------------------------

    def discover(self) -> list[Path]:
        """Refresh the list of work trees; returns the roots that are new."""
        roots = linked_worktrees(self.layout.root)
        new = [r for r in roots if r not in self.worktrees]
        for gone in [r for r in self.worktrees if r not in roots]:
            log.info("worktree %s is gone; no longer watched", gone)
            del self.worktrees[gone]
        for root in new:
            self.worktrees[root] = self._scan(root)
        return new

    def _scan(self, root: Path) -> Worktree:
        tree = Worktree(root)
        try:
            tree.git_dir = gitcmd.git_dir(root)
            listed = gitcmd.run_z(root, "ls-files", "--cached", "--others", "--exclude-standard")
            tree.known = {p for p in listed if not p.endswith("/")}  # "x/" is a nested repository
            for entry in gitcmd.run_z(root, "ls-files", "--others", "--ignored", "--exclude-standard", "--directory"):
                (tree.ignored_dirs if entry.endswith("/") else tree.ignored_files).add(entry.rstrip("/"))
        except GridError as exc:
            log.warning("cannot list files of %s: %s", root, exc)
        return tree

    def grid_dirs(self) -> list[Path]:
        """.grid/ and its sub-directories, machine-local ones aside."""
        if not self.grid.is_dir():
            return []
        found = [self.grid]
        for folder, subdirs, _ in os.walk(self.grid):
            subdirs[:] = sorted(d for d in subdirs if d not in GRID_SKIPPED_DIRS and not d.startswith(".git"))
            found.extend(Path(folder) / d for d in subdirs)
        return found

    def work_dirs(self, root: Path) -> list[Path]:
        """The directories that hold the work tree's files (and their parents), ignored trees never."""
        tree = self.worktrees[root]
        others = [r for r in self.worktrees if r != root and root in r.parents]
        rels: set[str] = {""}
        for rel in tree.known:
            parts = rel.split("/")[:-1]
            for i in range(1, len(parts) + 1):
                rels.add("/".join(parts[:i]))
        dirs = []
        for rel in sorted(rels):
            path = root / rel if rel else root
            if rel.split("/")[0] == ".git" or any(o == path or o in path.parents for o in others):
                continue
            if self.is_grid(path) or (self.is_linked(root) and rel.split("/")[0] == ".grid"):
                continue
            dirs.append(path)
        return dirs

    def git_dir(self, root: Path) -> Path | None:
        """The git dir of work tree ROOT (`.git/worktrees/NAME` for a linked one), None if unknown."""
        tree = self.worktrees.get(root)
        return tree.git_dir if tree is not None else None

    def is_linked(self, root: Path) -> bool:
        return root != self.layout.main_root

    def is_grid(self, path: Path) -> bool:
        return path == self.grid or self.grid in path.parents

    # ---- agents ---------------------------------------------------------------------------

    def load_agents(self) -> None:
        """Map work trees to the agents STATE registers them to (`agents.active[].worktree`)."""
        from gridgit.model import state

        try:
            self.agents = state.agent_worktrees(self.layout, state.read(self.layout))
        except GridError as exc:
            log.warning("cannot read agents from STATE.md: %s", exc)

    def agent_of(self, root: Path) -> str:
        """The agent a work tree is registered to; else GRID_AGENT_ID for the one we started in; else unknown."""
        if root in self.agents:
            return self.agents[root]
        if root == self.layout.root and os.environ.get("GRID_AGENT_ID"):
            return os.environ["GRID_AGENT_ID"]
        return UNKNOWN_AGENT

    # ---- classification ----------------------------------------------------------------

    def classify(self, path: str) -> Target | None:
        """The target for an absolute PATH, or None when the watcher ignores it."""
        absolute = Path(path)
        if self.is_grid(absolute):
            rel = absolute.relative_to(self.grid).as_posix()
            parts = rel.split("/")
            if rel == "." or any(p in GRID_SKIPPED_DIRS for p in parts) or parts[-1].endswith(GRID_SKIPPED_SUFFIXES):
                return None
            return Target("grid", rel, self.grid)
        root = self.worktree_of(absolute)
        if root is None:
            return None
        rel = absolute.relative_to(root).as_posix()
        parts = rel.split("/")
        if rel == "." or ".git" in parts or (self.is_linked(root) and parts[0] == ".grid"):
            return None
        tree = self.worktrees[root]
        name = parts[-1]
        if name in WORK_SKIPPED_NAMES or name.endswith(WORK_SKIPPED_SUFFIXES) or name.startswith(".#"):
            return None
        if (name.endswith(".lock") and rel not in tree.known) or tree.is_ignored(rel):
            return None
        return Target("work", rel, root)

    def worktree_of(self, path: Path) -> Path | None:
        """The innermost work tree holding PATH."""
        best: Path | None = None
        for root in self.worktrees:
            if (root == path or root in path.parents) and (best is None or len(root.parts) > len(best.parts)):
                best = root
        return best

    def filter_ignored(self, root: Path, rels: list[str]) -> list[str]:
        """RELS minus the git-ignored ones, asking git once for the paths it has not seen yet."""
        tree = self.worktrees.get(root)
        if tree is None:
            return []
        unknown = [r for r in rels if r not in tree.known and not tree.is_ignored(r)]
        if unknown:
            try:
                out = gitcmd.run(
                    root, "check-ignore", "--stdin", "-z", input_text="\0".join(unknown) + "\0", check=False
                )
            except (GridError, OSError) as exc:
                log.warning("git check-ignore failed in %s: %s", root, exc)
                out = ""
            for rel in filter(None, out.split("\0")):
                target = root / rel
                (tree.ignored_dirs if target.is_dir() else tree.ignored_files).add(rel)
        return [r for r in rels if not tree.is_ignored(r)]
