"""`gridgit migrate`: move a Blackboard that the code branches track (the first design) onto its own ref.

The current `.grid/` is committed onto the grid ref first, then untracked in one code commit
that also adds `/.grid/` to .gitignore and drops the merge-driver lines of .gitattributes.
The files stay where they are; nothing is lost, and running it again changes nothing.

Another clone pulling that commit would see git delete the tracked `.grid/` files from its
work tree: its post-merge / post-rewrite hook writes them back from the commit before
(`restore_untracked`), and the sync that follows merges them with the team's grid ref.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gridgit.errors import BadInput
from gridgit.history import snapshot
from gridgit.history.boardgit import BoardGit, write_files
from gridgit.store import gitcmd, gitignore
from gridgit.store.layout import Layout

MESSAGE = "gridgit: keep the Blackboard on its own ref, out of the code branches (gridgit migrate)"


@dataclass
class MigrateResult:
    snapshot: str | None = None  # the grid ref after the import
    untracked: int = 0  # .grid/ files the code branch stopped tracking
    commit: str | None = None  # the code commit that untracked them
    changed: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"snapshot": self.snapshot, "untracked": self.untracked, "commit": self.commit, "changed": self.changed}


def prefix(layout: Layout) -> str | None:
    """.grid/'s path in the work tree (`.grid`), None when the Blackboard lives outside it."""
    pattern = gitignore.board_pattern(layout)
    return pattern.strip("/") if pattern else None


def tracked(layout: Layout) -> list[str]:
    """The .grid/ files the code branch's index tracks (the first design), none once migrated."""
    where = prefix(layout)
    return gitcmd.run_z(layout.main_root, "ls-files", "--", where) if where else []


def migrate(layout: Layout, agent: str = "system", ref: str | None = None) -> MigrateResult:
    """Import .grid/ into the grid ref, then untrack it in one code commit (see the module docstring)."""
    from gridgit.git import hooks

    layout.require()
    where = prefix(layout)
    files = tracked(layout)
    root = layout.main_root
    if files:
        others = [p for p in gitcmd.run_z(root, "diff", "--cached", "--name-only") if not p.startswith(f"{where}/")]
        others = [p for p in others if p not in (".gitignore", ".gitattributes")]
        if others:
            raise BadInput(f"the index has staged changes ({others[0]}, ...): commit or unstage them, then migrate")
    result = MigrateResult()
    result.snapshot = snapshot.snapshot(layout, "import the tracked Blackboard (migrate)", agent, ref).commit
    if gitignore.ignore_board(layout):
        result.changed.append("added /.grid/ to .gitignore")
    if hooks.remove_attributes(layout):
        result.changed.append("removed the merge-driver lines of .gitattributes")
    if gitcmd.config_get(root, "merge.gridgit.driver") is not None:
        gitcmd.run(root, "config", "--remove-section", "merge.gridgit", check=False)
        result.changed.append("unregistered the merge driver")
    if not files:
        return result
    env = {**gitcmd.clean_env(), "GRIDGIT_SKIP": "1"}
    gitcmd.run(root, "rm", "-r", "-q", "--cached", "--", str(where), env=env)
    gitcmd.run(root, "add", "-A", "--", ".gitignore", *_if_known(root, ".gitattributes"), env=env)
    gitcmd.run(root, "commit", "-q", "--no-verify", "-m", MESSAGE, env=env)
    result.untracked = len(files)
    result.commit = gitcmd.run(root, "rev-parse", "--short", "HEAD").strip()
    result.changed.append(f"untracked {len(files)} .grid/ file(s) in commit {result.commit}")
    return result


def _if_known(root: Any, path: str) -> list[str]:
    """PATH when git knows it (tracked or on disk): `git add` of an unknown path is an error."""
    return [path] if (root / path).exists() or gitcmd.run_z(root, "ls-files", "--", path) else []


def restore_untracked(layout: Layout, old: str) -> list[str]:
    """Write back the .grid/ files git removed when HEAD moved past an untracking commit from OLD; their paths."""
    where = prefix(layout)
    if not where or tracked(layout):
        return []
    bg = BoardGit.open(layout)
    before = gitcmd.run(layout.root, "rev-parse", "-q", "--verify", f"{old}:{where}", check=False).strip()
    if not before:
        return []
    layout.grid.mkdir(parents=True, exist_ok=True)
    with snapshot.locked(layout):
        files = bg.read(before).files
        missing = {p: data for p, data in files.items() if not (layout.grid / p).exists()}
        return write_files(layout.grid, {}, missing, keep=set())
