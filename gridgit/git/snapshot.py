"""Snapshots of the Blackboard onto its own ref, and merging another version of it into `.grid/`.

Everything here runs under the Blackboard's lock held exclusive (callers take it with
`locked`): no writer is half-way through a file while `.grid/` is staged or rewritten.

A snapshot stages `.grid/` (valid files only: an invalid one keeps its last committed
version and is reported), commits the tree on top of the commit this clone's files came
from (`refs/gridgit/board`), and moves the grid ref with a compare-and-swap. When the ref
moved meanwhile (a peer pushed into this repository, or `sync` fetched), the two versions
are merged three-way with `merge_grid`, never overwritten.

Rewriting `.grid/` after a merge is journalled: the merge commit exists before any file is
written, and the journal names it, so a sync killed half-way is finished by the next
snapshot or sync (the files written so far merged with the rest), never left half-done.
"""

from __future__ import annotations

import contextlib
import socket
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gridgit.errors import GridError
from gridgit.git.boardgit import BOARD_REF, BoardGit, Tree, write_files
from gridgit.store import locks
from gridgit.store.layout import Layout

_JOURNAL = "sync-journal"


@dataclass
class Outcome:
    """What a snapshot or merge did: the commit the ref points at, and what it reports."""

    commit: str | None = None
    created: bool = False  # a new snapshot commit
    merged: str | None = None  # the commit merged in, when there was one
    written: list[str] = field(default_factory=list)  # .grid/ files a merge rewrote
    invalid: list[str] = field(default_factory=list)  # problems of files left out of the snapshot
    conflicts: list[str] = field(default_factory=list)  # paths merged by a deterministic choice
    left_out: list[str] = field(default_factory=list)  # the paths of those invalid files

    def to_dict(self) -> dict[str, Any]:
        return {
            "commit": self.commit,
            "created": self.created,
            "merged": self.merged,
            "written": self.written,
            "invalid": self.invalid,
            "conflicts": self.conflicts,
        }


@contextlib.contextmanager
def locked(layout: Layout) -> Iterator[None]:
    """The Blackboard's lock, exclusive: no writer runs while .grid/ is staged or rewritten."""
    with locks.board_locked(layout.grid, exclusive=True):
        yield


def clone_name(layout: Layout) -> str:
    """Which clone a commit came from, for `gridgit log`: host and path."""
    return f"{socket.gethostname()}:{layout.main_root}"


def message(layout: Layout, subject: str, agent: str) -> str:
    return f"gridgit: {subject}\n\nGrid-Agent: {agent}\nGrid-Clone: {clone_name(layout)}\n"


# ---- staging ---------------------------------------------------------------------------------


def stage(bg: BoardGit, parent_tree: str | None) -> tuple[str, dict[str, list[str]]]:
    """The tree of .grid/ as it is (machine-local files left out), and {path: problems} of files left out.

    A file that does not validate keeps PARENT_TREE's version (or stays out when new).
    """
    from gridgit.validation import rules

    bg.git("add", "-A", "--", ".")
    # A file .grid/.gitignore came to ignore (events.commit switched off) leaves the snapshot too.
    ignored = [p for p in bg.git("ls-files", "-z", "-c", "-i", "--exclude-standard").split("\0") if p]
    if ignored:
        bg.git("rm", "-q", "--cached", "--", *ignored)
    base = parent_tree or bg.git("mktree", input_text="").strip()
    out = bg.git("diff-index", "--cached", "-z", "--no-renames", base)
    fields = out.split("\0")
    problems: dict[str, list[str]] = {}
    restore: list[str] = []
    for i in range(0, len(fields) - 1, 2):
        info, path = fields[i], fields[i + 1]
        if not info.startswith(":"):
            break
        old_mode, new_mode, old_sha, _new_sha, status = info[1:].split()
        if status.startswith("D"):
            continue
        full = bg.layout.grid / path
        if new_mode == "120000":
            found = [f".grid/{path}: is a symlink; gridgit does not follow symlinks in .grid/"]
        else:
            try:
                found = [str(p) for p in rules.validate_bytes(path, full.read_bytes())]
            except OSError:
                found = []
        if not found:
            continue
        problems[path] = found
        restore.append(f"{old_mode} {old_sha}\t{path}\0" if old_mode != "000000" else f"0 {old_sha}\t{path}\0")
    if restore:
        bg.git("update-index", "-z", "--index-info", input_text="".join(restore))
    return bg.git("write-tree").strip(), problems


# ---- the ref ---------------------------------------------------------------------------------


def commit_locked(bg: BoardGit, subject: str, agent: str) -> Outcome:
    """Snapshot .grid/ onto the grid ref (merging what moved it meanwhile); the lock is held."""
    recover(bg)
    ref_value = bg.resolve(bg.ref)
    board = bg.resolve(BOARD_REF)
    tree, problems = stage(bg, bg.tree_of(board or ref_value))
    if board is None and ref_value and tree == bg.tree_of(ref_value):
        board = ref_value  # files written from the ref by a fresh clone's init, or by hand
    outcome = Outcome(invalid=[p for found in problems.values() for p in found], left_out=sorted(problems))
    commit = board
    if board is None or tree != bg.tree_of(board):
        # No record of where these files came from: a commit of their own, merged with the ref below.
        commit = bg.commit_tree(tree, [board] if board else [], message(bg.layout, subject, agent))
        outcome.created = True
    assert commit is not None
    if ref_value is None or ref_value == board:
        _move(bg, commit, ref_value, subject)
        outcome.commit = commit
        return outcome
    # The ref moved since this clone's files were written (a peer pushed into this repository).
    merged = integrate(bg, commit, ref_value, ref_value, "merge the grid ref", agent, keep=set(problems))
    merged.created = merged.created or outcome.created
    merged.invalid, merged.left_out = outcome.invalid, outcome.left_out
    return merged


def _move(bg: BoardGit, commit: str, old: str | None, reason: str) -> None:
    if commit != old and not bg.update_ref(bg.ref, commit, old, f"gridgit: {reason}"):
        raise GridError(f"{bg.ref} moved while gridgit updated it; run `gridgit sync` again")
    bg.git("update-ref", BOARD_REF, commit)


def integrate(
    bg: BoardGit, ours: str, theirs: str, ref_old: str | None, subject: str, agent: str, keep: set[str]
) -> Outcome:
    """Bring THEIRS into .grid/ and the ref (files currently at OURS): fast-forward or a merge commit.

    Files in KEEP (invalid here, so not in OURS) are left as they are on disk.
    """
    if ours == theirs or bg.is_ancestor(theirs, ours):
        _move(bg, ours, ref_old, subject)
        return Outcome(commit=ours)
    old = bg.read(bg.tree_of(ours))
    if bg.is_ancestor(ours, theirs):
        target, new, conflicts = theirs, bg.read(bg.tree_of(theirs)), []
    else:
        from gridgit.git.grid_merge import merge_grid

        base_commit = bg.merge_base(ours, theirs)
        base = bg.read(bg.tree_of(base_commit)) if base_commit else Tree(None)
        other = bg.read(bg.tree_of(theirs))
        result = merge_grid(base.files, old.files, other.files)
        tree = bg.make_tree(result.files, [old, other])
        target = bg.commit_tree(tree, [ours, theirs], message(bg.layout, subject, agent))
        new, conflicts = Tree(tree, result.files), result.conflicts
    _journal(bg).write_text(f"{ref_old or ''} {ours} {target}\n", encoding="utf-8")
    written = write_files(bg.layout.grid, old.files, new.files, keep)
    from gridgit.work import contest

    contest.after_merge(bg.layout, old.files, new.files)  # a block two clones took: both agents hear of it
    _move(bg, target, ref_old, subject)
    _journal(bg).unlink()
    return Outcome(commit=target, merged=theirs, written=written, conflicts=conflicts)


# ---- a sync killed half-way ------------------------------------------------------------------


def _journal(bg: BoardGit) -> Path:
    return bg.state_dir / _JOURNAL


def recover(bg: BoardGit) -> bool:
    """Finish a merge whose writing of .grid/ was cut short; True when there was one.

    The files are partly OURS, partly the merge, and perhaps changed by writers since: they
    are merged three-way (base OURS, the files, the merge), so nothing written since is lost.
    """
    journal = _journal(bg)
    if not journal.exists():
        return False
    words = journal.read_text(encoding="utf-8").split()
    if len(words) == 2:
        words.insert(0, "")
    ref_old, ours, target = words if len(words) == 3 else ("", "", "")
    if not target or bg.resolve(target) is None:
        journal.unlink()
        return False
    from gridgit.git.grid_merge import merge_grid

    base = bg.read(bg.tree_of(ours))
    tree, _ = stage(bg, base.id)
    current = bg.read(tree)
    merged = bg.read(bg.tree_of(target))
    result = merge_grid(base.files, current.files, merged.files)
    write_files(bg.layout.grid, current.files, result.files, keep=set())
    now = bg.resolve(bg.ref)
    if now == (ref_old or None):
        _move(bg, target, now, "finish an interrupted sync")
    else:
        bg.git("update-ref", BOARD_REF, target)
    journal.unlink()
    return True


def snapshot(layout: Layout, subject: str, agent: str, ref: str | None = None) -> Outcome:
    """Commit .grid/ onto the grid ref now, under the exclusive lock."""
    bg = BoardGit.open(layout, ref)
    with locked(layout):
        return commit_locked(bg, subject, agent)


def adopt(layout: Layout, remote: str = "origin", ref: str | None = None) -> str | None:
    """Write .grid/ from the grid ref (or REMOTE's copy a clone fetched) where there is no Blackboard yet.

    The commit the files came from, or None when neither ref exists: a fresh clone of a team's
    repository starts from the team's Blackboard, not from an empty one.
    """
    bg = BoardGit.open(layout, ref)
    short = bg.ref.removeprefix("refs/heads/")
    source = bg.resolve(bg.ref) or bg.resolve(f"refs/remotes/{remote}/{short}")
    if source is None:
        return None
    layout.grid.mkdir(parents=True, exist_ok=True)
    with locked(layout):
        write_files(layout.grid, {}, bg.read(bg.tree_of(source)).files, keep=set())
        if bg.resolve(bg.ref) is None:
            bg.update_ref(bg.ref, source, None, "gridgit: the Blackboard of " + remote)
        bg.git("update-ref", BOARD_REF, source)
    return source
