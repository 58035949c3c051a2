"""Every commit recorded exactly once: the post-commit queue, and reading your writes after it.

The post-commit shim queues the commit it was fired for before anything else can fail: a
file named by the commit's hash in `<git common dir>/gridgit/commits/`, holding the
committing agent (`GRID_AGENT_ID` then). Its Python run (in the background, or with
`GRIDGIT_HOOK_SYNC=1` before git returns) records the queue: whatever commits are in it,
whoever queued them, in commit order. A run never reads "HEAD when I get to run".

Recording a commit is its `commit_recorded` event (a 5,000-file commit summarised within the
event size limit), its evidence (entries whose Evidence names one of its files get
`- Commit: <hash>`), STATE's `resume.last_commit` and session counts, and phase completion
for its `Grid-Phase-Complete:` trailer; then one snapshot for the whole queue, which never
depends on the recording having worked. Runs take the queue's lock in turn (before any
lock of the Blackboard's), and the hashes recorded last are kept, so a commit queued twice
(by hand, by an older shim) is recorded once.

What no run got to (a worktree removed at once, a Python that is gone, a run that failed)
is recorded by the next gridgit command before it reads anything (`settle`, bounded): so
`git commit && gridgit log` shows the new snapshot every time. A failure is recorded for
`gridgit status` and `gridgit doctor`, and the commit stays queued for the next try.

This module is on every command's path: only `os` at import, the rest when there is work.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from gridgit.store.layout import Layout

RECORDED = "recorded-commits"
KEEP_RECORDED = 2000  # hashes remembered: a commit is never queued again after this many more
SETTLE_SECONDS = 30.0  # how long a command waits for a post-commit run that holds the queue
MAX_PAYLOAD_PATHS_BYTES = 16 * 1024  # of a commit_recorded event's file list; the rest is counted


def pending(layout: Layout) -> list[str]:
    """The hashes of the commits queued and not recorded yet (one directory listing).

    A queue file is its commit's agent and a line break: an empty one is being written by its
    shim right now, and waits for its own run (or the next).
    """
    try:
        found = list(os.scandir(layout.commit_queue))
    except OSError:
        return []
    return [
        e.name for e in found
        if len(e.name) in (40, 64) and all(c in "0123456789abcdef" for c in e.name) and e.stat().st_size
    ]  # fmt: skip


def enqueue(layout: Layout, sha: str, agent: str = "") -> None:
    """Queue commit SHA (as the shim does, for a run by hand or by an older shim)."""
    folder = layout.commit_queue
    folder.mkdir(parents=True, exist_ok=True)
    if not (folder / sha).exists() and sha not in _recorded(layout):
        from gridgit.store import fileio

        fileio.atomic_write(folder / sha, agent + "\n", durable=False)


def known(layout: Layout) -> set[str]:
    """The hashes recorded lately or queued: a commit found again (gridgit.git.missed) is not queued twice."""
    return _recorded(layout) | set(pending(layout))


def _recorded(layout: Layout) -> set[str]:
    try:
        return set((layout.git_common / "gridgit" / RECORDED).read_text(encoding="ascii").split())
    except OSError:
        return set()


def _remember(layout: Layout, shas: list[str]) -> None:
    from gridgit.store import fileio

    path = layout.git_common / "gridgit" / RECORDED
    try:
        known = path.read_text(encoding="ascii").split()
    except OSError:
        known = []
    fileio.atomic_write(path, "\n".join([*known, *shas][-KEEP_RECORDED:]) + "\n", durable=False)


def summary(files: list[str]) -> dict[str, Any]:
    """A commit's files for its event: every path when they fit, else the first ones and the count."""
    shown, size = [], 0
    for path in files:
        size += len(path.encode("utf-8", "surrogateescape")) + 4
        if size > MAX_PAYLOAD_PATHS_BYTES:
            break
        shown.append(path)
    found: dict[str, Any] = {"files": shown, "files_total": len(files)}
    if len(shown) < len(files):
        found["files_truncated"] = True
    return found


def post_commit(layout: Layout, cfg: dict[str, Any], args: list[str]) -> int:
    """The post-commit hook's body: queue HEAD (the shim has, unless an older one ran) and record the queue."""
    from gridgit.errors import GridError
    from gridgit.store import gitcmd

    if not pending(layout):  # the shim queued it, unless an older shim ran or it runs by hand
        head = gitcmd.run(layout.root, "rev-parse", "-q", "--verify", "HEAD^{commit}", check=False).strip()
        if head:
            enqueue(layout, head, os.environ.get("GRID_AGENT_ID", ""))
    try:
        record_pending(layout, cfg)
    except GridError as exc:
        from gridgit.git.hookenv import warn

        warn(f"the commit is not recorded yet ({exc}); the next gridgit command retries")
    return 0


def record_pending(layout: Layout, cfg: dict[str, Any], wait: float | None = None) -> int:
    """Record every queued commit once, then snapshot the Blackboard; how many were recorded.

    WAIT bounds the wait for another run that holds the queue (LockTimeout past it).
    """
    from gridgit.store import locks

    if not layout.state.exists():
        return 0  # no Blackboard (or a STATE.md to restore first): the queue waits
    folder = layout.commit_queue
    folder.mkdir(parents=True, exist_ok=True)
    # The queue's lock beside it, not in it: the folder holds nothing but queued commits.
    with locks.locked(folder.parent / "recording", timeout=wait):
        _catch_up(layout)
        queued = pending(layout)
        done = _recorded(layout)
        fresh = [sha for sha in queued if sha not in done]
        recorded = 0
        if fresh:
            try:
                recorded = _record(layout, cfg, fresh)
            except Exception as exc:
                _failed(layout, fresh, exc)
                raise
            finally:
                _snapshot_after(layout, cfg, fresh)
        _clear(folder, queued)
        _failed(layout, [], None)
    return recorded


def catch_up(layout: Layout) -> list[str]:
    """Queue the commits made without git's hooks since the last look at the reflogs (gridgit.git.missed)."""
    from gridgit.git import missed
    from gridgit.model.permissions import UNKNOWN_AGENT

    found = missed.new_commits(layout, known(layout))
    for sha in found:
        enqueue(layout, sha, UNKNOWN_AGENT)
    return found


def _catch_up(layout: Layout) -> None:
    """catch_up, so this run records those commits too; a failure leaves the queue to be recorded as it is."""
    from gridgit.errors import GridError

    try:
        catch_up(layout)
    except (GridError, OSError) as exc:
        from gridgit.store import notices

        notices.warn("gridgit.git", f"gridgit: warning: commits made without git's hooks not looked for ({exc})")


def record_soon(layout: Layout) -> list[str]:
    """catch_up, and what it queued recorded in the background (an agent tool's hook never waits for it)."""
    found = catch_up(layout)
    if found:
        record_later(layout)
    return found


def _record(layout: Layout, cfg: dict[str, Any], shas: list[str]) -> int:
    from gridgit.events import bus
    from gridgit.git import evidence
    from gridgit.git.commit_hooks import complete_phases
    from gridgit.git.hookenv import in_rebase
    from gridgit.model import state
    from gridgit.store import gitcmd

    commits = evidence.commits_of(layout, shas)
    agents = {sha: _agent(layout, sha) for sha in shas}
    if commits and not in_rebase(layout):  # one post-commit per replayed commit: post-rewrite sees them all
        complete_phases(layout, cfg, commits)  # idempotent: a run cut short does it again
    told = _told(layout, shas)  # a run killed after its events, before it noted the commits done
    payloads = [{"commit": c.short, "sha": c.sha, **summary(c.files), "agent": agents[c.sha]} for c in commits
                if c.sha not in told]  # fmt: skip
    # What counts the commits (STATE's session counts, the events) and the note that they are done go
    # together, the hook's time-budget alarm held back: a run cut short there would count them twice.
    with gitcmd.uninterrupted():
        if commits:
            evidence.record(layout, commits, agents[commits[-1].sha], state.read(layout).get("resume", {}))
        bus.emit_many(layout, "commit_recorded", payloads)
        _remember(layout, shas)  # a hash that names no commit (gone since) is done with too
    if not in_rebase(layout):
        from gridgit.coordination import triggers

        # A commit made is a sign of work: one for each agent, of its newest commit in this run.
        for commit in {agents[c.sha]: c for c in commits}.values():
            triggers.commit_heartbeat(layout, agents[commit.sha], commit.short)
        _stack_and_artifacts(layout, {f for c in commits for f in c.files})
    return len(commits)


def _told(layout: Layout, shas: list[str]) -> set[str]:
    """Those of SHAS with a `commit_recorded` event since they were queued."""
    from gridgit.events import scan

    try:
        since = min(os.stat(layout.commit_queue / sha).st_mtime for sha in shas) - 1
    except (OSError, ValueError):
        return set()
    found = scan.read_backwards(layout, since=since, types=["commit_recorded"])
    return {str(e["payload"].get("sha")) for e in found} & set(shas)


def _stack_and_artifacts(layout: Layout, files: set[str]) -> None:
    """STATE's tech stack after a manifest changed, and the artifacts the commits used (gridgit.memory)."""
    from gridgit.memory import artifacts, stack
    from gridgit.model import state

    if any(stack.is_manifest(f) for f in files):
        stack.refresh(layout)
    if (state.read(layout).get("persistent") or {}).get("artifacts"):
        artifacts.used(layout, files)


def _agent(layout: Layout, sha: str) -> str:
    """Who made commit SHA: the agent its shim queued, else `git config grid.agent`, else unknown."""
    from gridgit.errors import BadInput
    from gridgit.model import permissions

    try:
        queued = (layout.commit_queue / sha).read_text(encoding="utf-8").strip()
    except OSError:
        queued = ""
    try:
        return permissions.attribute_agent(layout, queued or None)
    except BadInput:
        return permissions.UNKNOWN_AGENT


def _snapshot_after(layout: Layout, cfg: dict[str, Any], shas: list[str]) -> None:
    """The Blackboard onto its ref after the commits (`sync.snapshot`), whatever the recording did."""
    from gridgit.git.hookenv import in_rebase, setting

    if not setting(cfg, "sync.snapshot", True) or in_rebase(layout):
        return
    from gridgit.history import snapshot

    subject = f"commit {shas[-1][:7]}" if len(shas) == 1 else f"{len(shas)} commits, the last {shas[-1][:7]}"
    snapshot.snapshot(layout, subject, "system", setting(cfg, "sync.ref", None))


def _clear(folder: Path, shas: list[str]) -> None:
    for sha in shas:
        try:
            (folder / sha).unlink()
        except FileNotFoundError:
            continue


def _failed(layout: Layout, shas: list[str], exc: BaseException | None) -> None:
    """Record a failed recording for status and doctor (announced once); none when EXC is None."""
    from gridgit.history import health

    findings = []
    if exc is not None:
        detail = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        findings.append({"path": "", "kind": "recording_failed", "commit": ",".join(s[:10] for s in shas),
                         "message": f"recording {len(shas)} commit(s) failed: {detail}"})  # fmt: skip
    for found in health.note(layout, "recording", findings):
        from gridgit.events import bus
        from gridgit.store import notices

        notices.warn("gridgit.git", f"gridgit: warning: {found['message']} (the next gridgit command retries)")
        bus.notify(layout, "commit_recording_failed", {**found, "agent": "system"})


def record_later(layout: Layout) -> None:
    """Record the queue in a process of its own, as the post-commit shim does: an agent tool's hook
    that found a commit (gridgit.git.missed) does not wait for its snapshot. What it says goes to
    the shim's log, `<git common dir>/gridgit/post-commit.log`."""
    import subprocess
    import sys

    code = "import sys; from gridgit.git.hookrun import main; sys.exit(main(['post-commit']))"
    log = layout.git_common / "gridgit" / "post-commit.log"
    with open(log, "ab") as err:
        subprocess.Popen(
            [sys.executable, "-c", code],
            cwd=layout.root,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=err,
            start_new_session=True,
        )


def settle(layout: Layout) -> None:
    """Before a command reads the Blackboard: record the commits still queued (waiting, bounded, for
    a post-commit run that is at it), and the commits made without git's hooks (gridgit.git.missed).
    Never fails the command: a failure is a warning."""
    from gridgit.git import missed

    if not pending(layout) and not missed.moved(str(layout.git_common)):
        return
    from gridgit.errors import GridError, LockTimeout
    from gridgit.git.hookenv import read_config
    from gridgit.store import notices

    try:
        record_pending(layout, read_config(layout), wait=SETTLE_SECONDS)
    except LockTimeout:
        notices.warn("gridgit.git", "gridgit: warning: post-commit work is still running; this may not see it yet")
    except (GridError, OSError) as exc:
        notices.warn("gridgit.git", f"gridgit: warning: the last commit(s) are not recorded yet ({exc})")
