"""Snapshots of the Blackboard onto its own ref, and merging another version of it into `.grid/`.

Everything here runs under the Blackboard's lock held exclusive (callers take it with
`locked`): no writer is half-way through a file while `.grid/` is staged or rewritten.

A snapshot stages `.grid/` (gridgit.history.staging: each file read once, damage kept out of
the history and reported), commits the tree on top of the commit this clone's files came
from (`refs/gridgit/board`), and moves the grid ref with a compare-and-swap. When the ref
moved meanwhile (a peer pushed into this repository, or `sync` fetched), the two versions
are merged three-way with `merge_grid`, never overwritten; what the other version brings
passes the gate of gridgit.history.peers first.

Rewriting `.grid/` after a merge is journalled: the merge commit exists before any file is
written, and the journal names it, so a sync killed half-way is finished by the next
snapshot or sync (the files written so far merged with the rest), never left half-done.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gridgit.errors import GridError
from gridgit.history import staging
from gridgit.history.boardgit import BOARD_REF, BoardGit, Tree, write_files
from gridgit.history.peers import Rejected
from gridgit.store import locks
from gridgit.store.layout import Layout

_JOURNAL = "sync-journal"
# Damage whose file on disk a merge must not overwrite: it is not the version the history holds.
_KEEP_ON_DISK = (staging.INVALID, staging.NOT_A_FILE, staging.SECRET)


@dataclass
class Outcome:
    """What a snapshot or merge did: the commit the ref points at, and what it reports."""

    commit: str | None = None
    created: bool = False  # a new snapshot commit
    merged: str | None = None  # the commit merged in, when there was one
    written: list[str] = field(default_factory=list)  # .grid/ files a merge rewrote
    invalid: list[str] = field(default_factory=list)  # the damage kept out of the snapshot, as lines
    conflicts: list[str] = field(default_factory=list)  # paths merged by a deterministic choice
    left_out: list[str] = field(default_factory=list)  # paths whose file on disk is not in the snapshot
    damage: list[staging.Damage] = field(default_factory=list)
    redacted: list[str] = field(default_factory=list)  # paths whose snapshot has a secret redacted
    rejected: list[Rejected] = field(default_factory=list)  # a peer's files left out of a merge
    settled: list[str] = field(default_factory=list)  # completed phases whose late entries were carried

    def to_dict(self) -> dict[str, Any]:
        return {
            "commit": self.commit,
            "created": self.created,
            "merged": self.merged,
            "written": self.written,
            "invalid": self.invalid,
            "conflicts": self.conflicts,
            "damage": [d.to_dict() for d in self.damage],
            "redacted": self.redacted,
            "rejected": [str(r) for r in self.rejected],
            "settled": self.settled,
        }


@contextlib.contextmanager
def locked(layout: Layout) -> Iterator[None]:
    """The Blackboard's lock, exclusive: no writer runs while .grid/ is staged or rewritten."""
    with locks.board_locked(layout.grid, exclusive=True):
        yield


def message(layout: Layout, subject: str, agent: str) -> str:
    """A grid commit's message: what happened, who did it, from which clone; redacted, like every way into history
    (a `snapshot -m` text, a remote's URL with its password, a clone's name)."""
    from gridgit.history import clone
    from gridgit.store import redaction, usertext

    subject = usertext.strip_controls(subject, one_line=True)  # one line: no forged trailer below it
    return redaction.redact(f"gridgit: {subject}\n\nGrid-Agent: {agent}\nGrid-Clone: {clone.label(layout)}\n")


# ---- the ref ---------------------------------------------------------------------------------


def commit_locked(bg: BoardGit, subject: str, agent: str) -> Outcome:
    """Snapshot .grid/ onto the grid ref (merging what moved it meanwhile); the lock is held."""
    bg.clear_leftovers()
    recover(bg)
    (ref_value, ref_tree), (board, board_tree) = bg.resolve_many([bg.ref, BOARD_REF])
    if ref_value is None and (problem := bg.ref_problem(bg.ref)):
        raise GridError(
            f"{bg.ref} {problem}; the files in .grid/ are intact: start the ref again from them with "
            f"`git update-ref -d {bg.ref}` then `gridgit snapshot` (or `gridgit sync` to take the team's)"
        )
    from gridgit.store import gitignore

    gitignore.own(bg.layout, gitignore.commits_events(bg.layout))  # a foreign line moves out of it
    _export_presence(bg.layout)
    staged = staging.stage(bg, board_tree or ref_tree)
    tree = staged.tree
    if board is None and ref_value and tree == ref_tree:
        board, board_tree = ref_value, ref_tree  # files written from the ref by a fresh clone's init, or by hand
    outcome = Outcome(damage=staged.damage, redacted=staged.redacted)
    outcome.invalid = [str(d) for d in staged.damage]
    outcome.left_out = [d.path for d in staged.damage if d.kind in _KEEP_ON_DISK]
    _report_staged(bg.layout, outcome)
    commit = board
    if board is None or tree != board_tree:
        # No record of where these files came from: a commit of their own, merged with the ref below.
        commit = bg.commit_tree(tree, [board] if board else [], message(bg.layout, subject, agent))
        outcome.created = True
    assert commit is not None
    if ref_value is None or ref_value == board:
        _move(bg, commit, ref_value, subject)
        outcome.commit = commit
    else:  # the ref moved since this clone's files were written (a peer pushed into this repository)
        merged = integrate(bg, commit, ref_value, ref_value, "merge the grid ref", agent, keep=set(outcome.left_out))
        merged.created = merged.created or outcome.created
        merged.invalid, merged.left_out = outcome.invalid, outcome.left_out
        merged.damage, merged.redacted = outcome.damage, outcome.redacted
        outcome = merged
    from gridgit.store import journal

    journal.clear(bg.layout)  # the grid ref holds every write it journaled (staging took what .grid/ lost)
    return outcome


def _export_presence(layout: Layout) -> None:
    """This clone's file for the others (its agents' recent edits and signs of work), into this snapshot."""
    from gridgit.coordination import presence

    try:
        presence.export(layout)
    except (GridError, OSError) as exc:  # the snapshot goes on; the others hear of these edits with the next one
        from gridgit.store import notices

        notices.warn("gridgit.history", f"gridgit: warning: this clone's file for the others not written ({exc})")


def _report_staged(layout: Layout, outcome: Outcome) -> None:
    """Record the snapshot's damage for status and doctor; announce what is new once (a line, an event)."""
    from gridgit.events import bus
    from gridgit.history import health
    from gridgit.store import notices

    findings = [d.to_dict() for d in outcome.damage]
    findings += [{"path": p, "kind": "redacted", "message": "a secret typed by hand, redacted in the snapshot"}
                 for p in outcome.redacted]  # fmt: skip
    for found in health.note(layout, "snapshot", findings):
        secret = found["kind"] == "redacted"
        line = f".grid/{found['path']}: {found['message']}" + ("" if secret else " (`gridgit restore` brings it back)")
        notices.warn("gridgit.history", f"gridgit: warning: {line}")
        bus.notify(layout, "secret_redacted" if secret else "damage_kept", {**found, "agent": "system"})


def _move(bg: BoardGit, commit: str, old: str | None, reason: str) -> None:
    if commit != old and not bg.update_ref(bg.ref, commit, old, f"gridgit: {reason}"):
        raise GridError(f"{bg.ref} moved while gridgit updated it; run `gridgit sync` again")
    bg.point(BOARD_REF, commit)


@dataclass
class Prepared:
    """THEIRS merged into OURS with git objects only (no file of .grid/ read or written, so no lock held):
    the commit the ref moves to, and the files before and after."""

    ours: str
    theirs: str
    target: str  # OURS when OURS holds THEIRS already
    old: Tree = field(default_factory=Tree)  # OURS's files
    new: Tree = field(default_factory=Tree)  # the merged files
    conflicts: list[str] = field(default_factory=list)
    rejected: list[Rejected] = field(default_factory=list)


def prepare(
    bg: BoardGit, ours: str, theirs: str, subject: str, agent: str, published: bool = False, peer: bool = True
) -> Prepared:
    """The merge of THEIRS into OURS: a fast-forward, or a merge commit with both as parents.

    What THEIRS changed passes the gate of gridgit.history.peers first: a file that fails it
    is left out (this clone's version stays), each named with the peer's commit and clone.
    PUBLISHED: THEIRS is the remote's grid ref, the arbiter of who took a block first
    (gridgit.work.contest.published_first). PEER=False: THEIRS is this clone's own merge (made again
    on what was written meanwhile), whose peer files passed the gate already.
    """
    if ours == theirs or bg.is_ancestor(theirs, ours):
        return Prepared(ours, theirs, ours)
    from gridgit.history import peers
    from gridgit.history.grid_merge import merge_grid

    old = bg.read(bg.tree_of(ours))
    base_commit = ours if bg.is_ancestor(ours, theirs) else bg.merge_base(ours, theirs)
    base = bg.read(bg.tree_of(base_commit)) if base_commit else Tree(None)
    other, rejected = peers.gate(bg, base, bg.tree_of(theirs), old) if peer else (bg.read(bg.tree_of(theirs)), [])
    result = merge_grid(base.files, old.files, other.files)
    if published:
        from gridgit.history.merge import claims_published_first
        from gridgit.work import contest

        contest.published_first(base.files, old.files, other.files, result.files)
        claims_published_first(base.files, other.files, result.files)
    tree = bg.make_tree(result.files, [old, other])
    if base_commit == ours and tree == bg.tree_of(theirs):
        target = theirs  # a fast-forward: THEIRS holds everything, and nothing of it was refused
    else:
        target = bg.commit_tree(tree, [ours, theirs], message(bg.layout, subject, agent))
    named = [Rejected(r.path, r.reason, *peers.origin(bg, theirs, ours, r.path)) for r in rejected]
    return Prepared(ours, theirs, target, old, Tree(tree, result.files), result.conflicts, named)


def apply(bg: BoardGit, prepared: Prepared, ref_old: str | None, subject: str, agent: str, keep: set[str]) -> Outcome:
    """Write a prepared merge into .grid/ (whose files are OURS's) and move the ref from REF_OLD; the lock is held.

    Files in KEEP (damaged here, so not as in OURS) are left as they are on disk.
    """
    if prepared.target == prepared.ours:
        _move(bg, prepared.ours, ref_old, subject)
        return Outcome(commit=prepared.ours)
    _journal(bg).write_text(f"{ref_old or ''} {prepared.ours} {prepared.target}\n", encoding="utf-8")
    written = write_files(bg.layout.grid, prepared.old.files, prepared.new.files, keep)
    from gridgit.coordination import crossing
    from gridgit.work import contest

    # A block two clones took, claims and edits of other clones: told here; a lost take's claims released.
    changed = contest.after_merge(bg.layout, prepared.old.files, prepared.new.files)
    changed = crossing.after_merge(bg.layout, prepared.old.files, prepared.new.files) or changed
    _move(bg, prepared.target, ref_old, subject)
    _journal(bg).unlink()
    outcome = Outcome(commit=prepared.target, merged=prepared.theirs, written=written, conflicts=prepared.conflicts)
    outcome.rejected = _report_rejected(bg, prepared.rejected)
    return _settle(bg, outcome, agent, changed)


def integrate(
    bg: BoardGit, ours: str, theirs: str, ref_old: str | None, subject: str, agent: str, keep: set[str]
) -> Outcome:
    """Bring THEIRS into .grid/ and the ref (files currently at OURS), all under the lock: prepare, then apply."""
    return apply(bg, prepare(bg, ours, theirs, subject, agent), ref_old, subject, agent, keep)


def _report_rejected(bg: BoardGit, named: list[Rejected]) -> list[Rejected]:
    """Announce each rejected file of a peer once (a line, an event); the list."""
    if not named:
        return []
    from gridgit.events import bus
    from gridgit.history import health
    from gridgit.store import notices

    for found in health.note(bg.layout, "peers", [r.finding() for r in named], add=True):
        shown = next(r for r in named if r.path == found["path"] and r.commit == found["commit"])
        notices.warn("gridgit.history", f"gridgit: warning: {shown}")
        bus.notify(bg.layout, "peer_file_rejected", {**found, "agent": "system"})
    return named


def _settle(bg: BoardGit, outcome: Outcome, agent: str, changed: bool = False) -> Outcome:
    """Completion wins across clones: entries a merge brought into a completed phase are carried on. What the
    merge made this clone write (CHANGED: a lost take's claims released, a conflict recorded) goes into the same
    commit."""
    from gridgit.phases import settle

    outcome.settled = settle.settle_completed(bg.layout)
    if outcome.settled or changed:
        staged = staging.stage(bg, bg.tree_of(outcome.commit))
        subject = "carry entries that arrived in completed phase(s) " + ", ".join(outcome.settled)
        subject = subject if outcome.settled else "what the merge brought: a lost take's claims, a write conflict"
        if staged.tree != bg.tree_of(outcome.commit):
            commit = bg.commit_tree(staged.tree, [outcome.commit or ""], message(bg.layout, subject, agent))
            _move(bg, commit, outcome.commit, subject)
            outcome.commit = commit
    return outcome


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
    from gridgit.history.grid_merge import merge_grid

    base = bg.read(bg.tree_of(ours))
    current = bg.read(staging.stage(bg, base.id).tree)
    merged = bg.read(bg.tree_of(target))
    result = merge_grid(base.files, current.files, merged.files)
    write_files(bg.layout.grid, current.files, result.files, keep=set())
    now = bg.resolve(bg.ref)
    if now == (ref_old or None):
        _move(bg, target, now, "finish an interrupted sync")
    else:
        bg.point(BOARD_REF, target)
    journal.unlink()
    return True


def snapshot(layout: Layout, subject: str, agent: str, ref: str | None = None) -> Outcome:
    """Commit .grid/ onto the grid ref now, under the exclusive lock."""
    bg = BoardGit.open(layout, ref)
    with locked(layout):
        return commit_locked(bg, subject, agent)


def adopt(layout: Layout, remote: str = "origin", ref: str | None = None, fresh: bool = False) -> str | None:
    """Write .grid/ from the grid ref (or REMOTE's copy a clone fetched) where there is no Blackboard yet.

    The commit the files came from, or None when neither ref exists: a fresh clone of a team's
    repository starts from the team's Blackboard, not from an empty one. Its files pass the
    gate of what arrives from a peer. A ref that exists but is no commit is an error, unless
    FRESH (`init --force`): then the Blackboard starts empty, and the message says so.
    """
    bg = BoardGit.open(layout, ref)
    short = bg.ref.removeprefix("refs/heads/")
    tracking = f"refs/remotes/{remote}/{short}"
    source = bg.resolve(bg.ref) or bg.resolve(tracking)
    if source is None:
        broken = [(name, problem) for name in (bg.ref, tracking) if (problem := bg.ref_problem(name))]
        if broken and not fresh:
            name, problem = broken[0]
            raise GridError(
                f"{name} {problem}: the team's Blackboard cannot be read from it. Fix that ref where it was "
                f"pushed from, or start a new Blackboard here with `gridgit init --force` and replace {remote}'s "
                f"with `git push --force {remote} {bg.ref}:{bg.ref}`"
            )
        return None
    from gridgit.history import peers

    layout.grid.mkdir(parents=True, exist_ok=True)
    with locked(layout):
        files, rejected = peers.gate(bg, Tree(None), bg.tree_of(source), Tree(None))
        write_files(layout.grid, {}, files.files, keep=set())
        _report_rejected(bg, [Rejected(r.path, r.reason, *peers.origin(bg, source, None, r.path)) for r in rejected])
        if bg.resolve(bg.ref) is None:
            bg.update_ref(bg.ref, source, None, "gridgit: the Blackboard of " + remote)
        bg.point(BOARD_REF, source)
    return source
