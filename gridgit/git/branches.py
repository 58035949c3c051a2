"""Agent branches: the branches checked out in registered agents' work trees, and the base they merge into.

An agent is registered with its work tree in STATE (`agents.active[].worktree`); `git worktree
list` says which branch (and commit) each work tree has checked out. A detached work tree
is its commit. The base is `--base`, else config `foresight.base`, else the main work tree's branch.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from gridgit.errors import BadInput
from gridgit.model import state
from gridgit.store import config, gitcmd
from gridgit.store.layout import Layout


@dataclass(frozen=True)
class Side:
    """One side of a merge: a branch (or revision) NAME, its COMMIT and the AGENT working on it (if any)."""

    name: str
    commit: str
    agent: str | None = None

    def label(self) -> str:
        return f"{self.agent} ({self.name})" if self.agent else self.name


def _resolve(root: Path, names: list[str]) -> list[str]:
    """The commit of each of NAMES; BadInput naming the first that is not one."""
    commits = gitcmd.resolve(root, [f"{n}^{{commit}}" for n in names])
    for name, commit in zip(names, commits, strict=True):
        if commit is None:
            raise BadInput(f"{name!r} is not a branch or commit of this repository")
    return [c for c in commits if c]


def sides(layout: Layout, branches: list[str] | None = None, base: str | None = None) -> tuple[Side, list[Side]]:
    """(base, agent sides): BRANCHES when given (with the agents registered on them), else the agents' branches."""
    trees = gitcmd.worktrees(layout.root)
    registered = state.agent_worktrees(layout, state.read(layout))
    owner = {t.branch: registered[t.path.resolve()] for t in trees if t.branch and t.path.resolve() in registered}
    base = base or str(config.value(layout, "foresight.base") or "") or (trees[0].branch if trees else None)
    if not base:
        raise BadInput("the main work tree has no branch checked out: pass --base BRANCH")
    if branches:
        names = list(dict.fromkeys(branches))
        *commits, base_commit = _resolve(layout.root, [*names, base])
        found = [Side(n, c, owner.get(n)) for n, c in zip(names, commits, strict=True)]
    else:
        (base_commit,) = _resolve(layout.root, [base])
        found = []
        for tree in trees:
            agent = registered.get(tree.path.resolve())
            if agent and tree.head:
                found.append(Side(tree.branch or tree.head[:12], tree.head, agent))
    return Side(base, base_commit, owner.get(base)), [s for s in found if s.name != base]
