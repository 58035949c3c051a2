"""`gridgit sync [REMOTE]`: fetch the remote's grid ref, merge it into `.grid/`, push the result.

One exchange with a remote at a time per clone (`serialized`: `<git common dir>/gridgit/.sync.lock`,
first in the lock order): concurrent syncs, takes and hooks of one clone queue there instead of
racing for `refs/remotes/REMOTE/grid` and skipping their push. Fetch and push wait on the network
outside the Blackboard's lock; the snapshot and the rewrite of `.grid/` take it exclusive, briefly;
the validation of what arrived and the three-way merge run between the two, outside every lock a
local write takes (a write that lands meanwhile is merged in, up to a bound, before the files are
written). A push refused as a non-fast-forward (another clone pushed first) starts over: fetch,
merge, push. `exchange` is the loop, for `gridgit sync` and for a record that must reach the remote
first (gridgit.history.publish).
"""

from __future__ import annotations

import contextlib
import random
import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from gridgit.errors import GridError, LostRace, NotFound
from gridgit.history import snapshot
from gridgit.history.boardgit import BoardGit
from gridgit.store import gitcmd, leftovers, locks
from gridgit.store.layout import Layout

ATTEMPTS = 5
BACKOFF_SECONDS = 0.05  # times the round: the longest pause before a round after lost races
# Times the merge with what was fetched is made again outside the lock when local writes landed
# while it was being made; the last one is made under the lock, so a sync always ends.
MERGE_ROUNDS = 3
_NOT_FOUND = ("couldn't find remote ref", "could not find remote ref")
_REJECTED = ("non-fast-forward", "fetch first", "rejected", "failed to update ref", "cannot lock ref")


@dataclass
class SyncResult:
    remote: str
    ref: str
    commit: str | None = None
    fetched: str | None = None  # the remote's grid commit, None when it has none yet
    pushed: bool = False
    attempts: int = 0
    merged: list[str] = field(default_factory=list)  # commits merged in
    written: list[str] = field(default_factory=list)
    invalid: list[str] = field(default_factory=list)  # this clone's damage kept out of the history, as lines
    conflicts: list[str] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)  # a peer's files left out of the merge, as lines
    settled: list[str] = field(default_factory=list)  # completed phases whose late entries were carried on
    record: Any = None  # what exchange's WRITE made, when it was given one

    def to_dict(self) -> dict[str, Any]:
        return {
            "remote": self.remote,
            "ref": self.ref,
            "commit": self.commit,
            "fetched": self.fetched,
            "pushed": self.pushed,
            "attempts": self.attempts,
            "merged": self.merged,
            "written": self.written,
            "invalid": self.invalid,
            "conflicts": self.conflicts,
            "rejected": self.rejected,
            "settled": self.settled,
        }


def default_remote(layout: Layout) -> str:
    """The current branch's remote, else `origin`."""
    branch = gitcmd.run(layout.root, "symbolic-ref", "-q", "--short", "HEAD", check=False).strip()
    if branch:
        remote = gitcmd.config_get(layout.root, f"branch.{branch}.remote")
        if remote and remote != ".":
            return remote
    return "origin"


def has_remote(layout: Layout, remote: str) -> bool:
    """Whether REMOTE is a configured remote (`git remote`) or has a URL's form: `scheme://`, `host:path`, a path.

    A name git could read as an option (`--upload-pack=CMD`) is refused before that (gitcmd.check_name).
    """
    gitcmd.check_name(remote, "remote")
    return bool(gitcmd.config_get(layout.root, f"remote.{remote}.url")) or "/" in remote or ":" in remote


def tracking_ref(bg: BoardGit, remote: str) -> str:
    """Where the remote's grid ref is fetched to: `refs/remotes/REMOTE/grid`, or one ref for a URL."""
    short = bg.ref.removeprefix("refs/heads/")
    if re.fullmatch(r"[A-Za-z0-9._-]+", remote) and not remote.startswith("."):
        return f"refs/remotes/{remote}/{short}"
    return f"refs/gridgit/fetched/{short}"


def fetch(bg: BoardGit, remote: str) -> str | None:
    """Fetch REMOTE's grid ref; its commit, or None when the remote has none yet."""
    into = tracking_ref(bg, remote)
    args = ("fetch", "-q", "--no-tags", gitcmd.END_OF_OPTIONS, remote, f"+{bg.ref}:{into}")
    proc = gitcmd.call(bg.layout.root, *args)
    lock = leftovers.lock_named(proc.stderr) if proc.returncode else None
    if lock is not None and leftovers.stale_git_lock(lock):  # a killed fetch's: the sync lock keeps ours out
        leftovers.remove(lock)
        proc = gitcmd.call(bg.layout.root, *args)
    if proc.returncode != 0:
        if any(marker in proc.stderr.lower() for marker in _NOT_FOUND):
            return None
        raise GridError(f"git fetch {remote} failed: {gitcmd.said(proc.stderr, proc.returncode)}")
    fetched = bg.resolve(into)
    if fetched is None and (problem := bg.ref_problem(into)):
        raise GridError(
            f"{remote}'s {bg.ref} {problem}: there is no Blackboard there to merge. If that is a mistake, "
            f"replace it with this clone's: `git push --force {remote} {bg.ref}:{bg.ref}`"
        )
    return fetched


def push(bg: BoardGit, remote: str) -> bool:
    """Push the grid ref to REMOTE; False when it was refused as a non-fast-forward (someone pushed first)."""
    # GRIDGIT_SKIP: this push must not run gridgit's pre-push hook (which would sync again).
    env = {**gitcmd.clean_env(), "GRIDGIT_SKIP": "1"}
    proc = gitcmd.call(
        bg.layout.root, "push", "-q", "--no-verify", gitcmd.END_OF_OPTIONS, remote, f"{bg.ref}:{bg.ref}", env=env
    )
    if proc.returncode == 0:
        return True
    if any(marker in proc.stderr.lower() for marker in _REJECTED):
        return False
    raise GridError(f"git push {remote} failed: {gitcmd.said(proc.stderr, proc.returncode)}")


def check_remote(layout: Layout, remote: str) -> None:
    """REMOTE is a configured remote, a URL or a path; a local path that does not exist is not found."""
    if not has_remote(layout, remote):
        raise NotFound(f"no remote {remote!r} (git remote add {remote} URL, or name one: gridgit sync REMOTE)")
    url = gitcmd.config_get(layout.root, f"remote.{remote}.url") or remote
    local = url.removeprefix("file://") if url.startswith("file://") or not re.match(r"^[^/]*:", url) else None
    if local is not None and not (layout.root / local).exists():
        named = f"remote {remote} is {url}" if url != remote else f"{remote}"
        raise NotFound(f"{named}, which does not exist (git remote set-url {remote} URL)")


@contextlib.contextmanager
def serialized(bg: BoardGit) -> Iterator[None]:
    """This clone's one exchange with a remote at a time (taken before any lock of the Blackboard's)."""
    with locks.locked(bg.state_dir / "sync"):
        yield


def remote_of(layout: Layout) -> str | None:
    """The remote a sync with no REMOTE named goes to, None when the repository has no remote at all."""
    from gridgit.store.clone import local_config

    text = local_config(layout)
    if text is not None and "[remote " not in text:
        return None  # no remote configured: not one git process to find that out
    remote = default_remote(layout)
    return remote if has_remote(layout, remote) else None


def sync(
    layout: Layout, remote: str | None = None, agent: str = "system", ref: str | None = None, push_result: bool = True
) -> SyncResult:
    """Snapshot, fetch, merge and (with PUSH_RESULT) push the Blackboard; retried when the push loses a race."""
    bg = BoardGit.open(layout, ref)
    remote = remote or default_remote(layout)
    check_remote(layout, remote)
    return exchange(bg, remote, agent, push_result)


def exchange(
    bg: BoardGit,
    remote: str,
    agent: str,
    push_result: bool = True,
    write: Callable[[], Any] | None = None,
    withdraw: Callable[[Any], None] | None = None,
    attempts: int = ATTEMPTS,
) -> SyncResult:
    """Fetch, merge and push REMOTE's grid ref, under the clone's sync lock; retried when the push loses a race.

    With WRITE: once this clone's files hold everything the remote had, WRITE() makes a record
    (a take) and the push carries it; a push refused (someone pushed first) has WITHDRAW(record)
    undo it before the next round fetches, merges and writes again. On the last of ATTEMPTS rounds a
    refused record is kept, and the error says why: LostRace when the remote moved meanwhile (other
    clones pushing), a GridError when it refused pushes without moving (a hook, a protected branch).
    Between rounds a random pause that grows with each lost race, so clones racing each other stop
    meeting in step.
    """
    result = SyncResult(remote, bg.ref)
    seen: set[str | None] = set()  # the remote's commits met: more than one, and other clones were pushing
    with serialized(bg):
        for attempt in range(1, attempts + 1):
            if attempt > 1:
                time.sleep(random.uniform(0, min(BACKOFF_SECONDS * attempt, 1.0)))
            result.attempts = attempt
            result.fetched = fetch(bg, remote)
            seen.add(result.fetched)
            merge_fetched(bg, remote, result, agent)
            if write is not None:
                result.record = write()
                with snapshot.locked(bg.layout):
                    _collect(result, snapshot.commit_locked(bg, f"sync with {remote}", agent))
                result.commit = bg.resolve(bg.ref)
            if not push_result or result.commit == result.fetched:
                result.pushed = result.commit == result.fetched
                return result
            if push(bg, remote):
                result.pushed = True
                return result
            if withdraw is not None and attempt < attempts:
                withdraw(result.record)
                result.record = None
    if len(seen) > 1:
        raise LostRace(f"sync with {remote}: the push lost the race {attempts} times; run `gridgit sync` again")
    raise GridError(f"sync with {remote}: the push was rejected {attempts} times while the remote did not move")


def merge_fetched(bg: BoardGit, remote: str, result: SyncResult, agent: str) -> None:
    """Snapshot .grid/ and merge RESULT.fetched into it, the merge made outside the Blackboard's lock.

    Under the lock: the snapshot (what is on disk becomes a commit). Outside it: the peer's files
    checked and merged with that commit (gridgit.history.snapshot.prepare, objects only). Under the
    lock again: when nobody wrote meanwhile, the merged files are written; else what was written
    is merged in with the result (outside the lock again, MERGE_ROUNDS times at most, the last
    round under it).
    """
    subject, merging = f"sync with {remote}", f"merge {remote}"
    with snapshot.locked(bg.layout):
        now = snapshot.commit_locked(bg, subject, agent)
    _collect(result, now)
    theirs = result.fetched
    if theirs is None or now.commit is None:
        result.commit = now.commit
        return
    prepared = snapshot.prepare(bg, now.commit, theirs, merging, agent, published=True)
    for round_ in range(1, MERGE_ROUNDS + 1):
        with snapshot.locked(bg.layout):
            now = snapshot.commit_locked(bg, subject, agent)
            if now.commit != prepared.ours and round_ == MERGE_ROUNDS:
                prepared = _again(bg, prepared, now.commit or "", merging, agent)
            if now.commit == prepared.ours:
                merged = snapshot.apply(bg, prepared, now.commit, merging, agent, set(now.left_out))
                merged.merged = theirs if prepared.target != prepared.ours else None
                _collect(result, now)
                _collect(result, merged)
                result.commit = bg.resolve(bg.ref)
                return
        prepared = _again(bg, prepared, now.commit or "", merging, agent)


def _again(bg: BoardGit, prepared: snapshot.Prepared, ours: str, subject: str, agent: str) -> snapshot.Prepared:
    """PREPARED's merge made again on OURS, the commit of what was written since (its own findings kept)."""
    again = snapshot.prepare(bg, ours, prepared.target, subject, agent, peer=False)
    again.rejected[:0] = prepared.rejected
    again.conflicts = sorted(set(prepared.conflicts) | set(again.conflicts))
    return again


def _collect(result: SyncResult, outcome: snapshot.Outcome) -> None:
    if outcome.merged and outcome.merged not in result.merged:
        result.merged.append(outcome.merged)
    result.written = sorted(set(result.written) | set(outcome.written))
    result.invalid = sorted(set(result.invalid) | set(outcome.invalid))
    result.conflicts = sorted(set(result.conflicts) | set(outcome.conflicts))
    result.rejected = sorted(set(result.rejected) | {str(r) for r in outcome.rejected})
    result.settled = sorted(set(result.settled) | set(outcome.settled))
