"""`gridgit sync [REMOTE]`: fetch the remote's grid ref, merge it into `.grid/`, push the result.

Fetch and push run outside the Blackboard's lock (they wait on the network); the snapshot,
the three-way merge and the rewrite of `.grid/` run inside it, held exclusive. A push
refused as a non-fast-forward (another clone pushed first) starts over: fetch, merge, push.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass, field
from typing import Any

from gridgit.errors import GridError, NotFound
from gridgit.history import snapshot
from gridgit.history.boardgit import BoardGit
from gridgit.store import gitcmd
from gridgit.store.layout import Layout

ATTEMPTS = 5
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
    proc = gitcmd.call(bg.layout.root, "fetch", "-q", "--no-tags", gitcmd.END_OF_OPTIONS, remote, f"+{bg.ref}:{into}")
    if proc.returncode != 0:
        if any(marker in proc.stderr.lower() for marker in _NOT_FOUND):
            return None
        raise GridError(f"git fetch {remote} failed: {what_git_said(proc)}")
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
    raise GridError(f"git push {remote} failed: {what_git_said(proc)}")


def what_git_said(proc: subprocess.CompletedProcess[str]) -> str:
    """git's reason for failing: its first paragraph (the advice after a blank line, often its last line, says less)."""
    reason = proc.stderr.strip().split("\n\n", 1)[0].splitlines()
    said = [line.strip().removeprefix("fatal: ").removeprefix("error: ") for line in reason if line.strip()]
    return "; ".join(said) or f"exit code {proc.returncode}"


def check_remote(layout: Layout, remote: str) -> None:
    """REMOTE is a configured remote, a URL or a path; a local path that does not exist is not found."""
    if not has_remote(layout, remote):
        raise NotFound(f"no remote {remote!r} (git remote add {remote} URL, or name one: gridgit sync REMOTE)")
    url = gitcmd.config_get(layout.root, f"remote.{remote}.url") or remote
    local = url.removeprefix("file://") if url.startswith("file://") or not re.match(r"^[^/]*:", url) else None
    if local is not None and not (layout.root / local).exists():
        named = f"remote {remote} is {url}" if url != remote else f"{remote}"
        raise NotFound(f"{named}, which does not exist (git remote set-url {remote} URL)")


def sync(
    layout: Layout, remote: str | None = None, agent: str = "system", ref: str | None = None, push_result: bool = True
) -> SyncResult:
    """Snapshot, fetch, merge and (with PUSH_RESULT) push the Blackboard; retried when the push loses a race."""
    bg = BoardGit.open(layout, ref)
    remote = remote or default_remote(layout)
    check_remote(layout, remote)
    result = SyncResult(remote, bg.ref)
    for attempt in range(1, ATTEMPTS + 1):
        result.attempts = attempt
        result.fetched = fetch(bg, remote)
        with snapshot.locked(layout):
            outcome = snapshot.commit_locked(bg, f"sync with {remote}", agent)
            _collect(result, outcome)
            if result.fetched is not None:
                ours = bg.resolve(bg.ref)
                assert ours is not None  # commit_locked always leaves the ref on a commit
                keep = set(outcome.left_out)
                merged = snapshot.integrate(bg, ours, result.fetched, ours, f"merge {remote}", agent, keep)
                _collect(result, merged)
            result.commit = bg.resolve(bg.ref)
        if not push_result or result.commit == result.fetched:
            result.pushed = result.commit == result.fetched
            return result
        if push(bg, remote):
            result.pushed = True
            return result
    raise GridError(f"sync with {remote}: the push lost the race {ATTEMPTS} times; run `gridgit sync` again")


def _collect(result: SyncResult, outcome: snapshot.Outcome) -> None:
    if outcome.merged and outcome.merged not in result.merged:
        result.merged.append(outcome.merged)
    result.written = sorted(set(result.written) | set(outcome.written))
    result.invalid = sorted(set(result.invalid) | set(outcome.invalid))
    result.conflicts = sorted(set(result.conflicts) | set(outcome.conflicts))
    result.rejected = sorted(set(result.rejected) | {str(r) for r in outcome.rejected})
    result.settled = sorted(set(result.settled) | set(outcome.settled))
