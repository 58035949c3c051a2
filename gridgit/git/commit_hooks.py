"""The commit hooks: pre-commit (file changes, conflicts, staged .grid/ validation) and
post-commit (commit_recorded, evidence at once, phase commits, a snapshot onto the grid ref).

.grid/ is not a file of the code branches (DESIGN.md "Git integration"): nothing here stages,
commits or defers a Blackboard change into the user's commit.

This is on the path of every `git commit`: it imports what a hook needs only when it needs it.
"""

from __future__ import annotations

from typing import Any

from gridgit.errors import GridError
from gridgit.git.hookenv import Refused, in_rebase, setting, warn
from gridgit.model import permissions
from gridgit.store import gitcmd
from gridgit.store.layout import Layout, grid_prefix


def pre_commit(layout: Layout, cfg: dict[str, Any], args: list[str]) -> int:
    agent = permissions.attribute_agent(layout)
    prefix = grid_prefix(layout)
    staged = gitcmd.changed_files(layout.root)
    in_grid = [s for s in staged if prefix and s.path.startswith(prefix + "/")]
    if in_grid:
        from gridgit.validation import sources  # validation loads only when .grid files are staged

        problems = sources.validate_staged(layout, known=[s for s in in_grid if s.status != "D"])
        if problems:
            raise Refused(
                [str(p) for p in problems]
                + [f"gridgit: commit refused: {len(problems)} problem(s) in staged .grid files "
                   "(fix them and `git add`, or bypass once with GRIDGIT_SKIP=1)"]
            )  # fmt: skip
    work = [s for s in staged if not (prefix and s.path.startswith(prefix + "/"))]
    conflicts = _record_modifications(layout, work, agent)
    if conflicts and setting(cfg, "conflicts.on_commit", "warn") == "block":
        raise Refused([*conflicts, "gridgit: commit refused: write conflict (conflicts.on_commit is block)"])
    for line in conflicts:
        warn(line)
    return 0


def _record_modifications(layout: Layout, staged: list[Any], agent: str) -> list[str]:
    """One `file_modified` event per staged path, with conflict detection; the conflicts, as lines."""
    if not staged:
        return []
    from gridgit.coordination import conflicts

    operations = {"A": "created", "D": "deleted"}
    changes = [conflicts.Modification(s.path, operations.get(s.status, "modified")) for s in staged]
    lines = []
    for result in conflicts.record_modifications(layout, changes, agent, check=True):
        if result.conflict is not None and result.conflict.has_conflict:
            others = ", ".join(result.conflict.conflicting_agents)
            lines.append(
                f"write conflict on {result.conflict.path}: {others} changed it too within the conflict window"
            )
    return lines


# ---- post-commit ---------------------------------------------------------------------------


def post_commit(layout: Layout, cfg: dict[str, Any], args: list[str]) -> int:
    from gridgit.events import bus
    from gridgit.git import evidence

    agent = permissions.attribute_agent(layout)
    try:
        head = evidence.commits_in(layout, "HEAD", limit=1)[0]
    except (GridError, IndexError):  # run by hand on an unborn branch: nothing was committed
        return 0
    bus.emit(layout, "commit_recorded", {"commit": head.short, "sha": head.sha, "files": head.files, "agent": agent})
    # .grid/ is no file of the code branch: its evidence is written at once, from any worktree.
    from gridgit.model import state

    evidence.record(layout, [head], agent, state.read(layout).get("resume", {}))
    if in_rebase(layout):
        return 0  # one post-commit per replayed commit: post-rewrite sees them all at the end
    from gridgit.coordination import triggers

    triggers.commit_heartbeat(layout, agent, head.short, head.files)  # a commit made is a heartbeat
    complete_phases(layout, cfg, [head])
    snapshot_board(layout, cfg, f"commit {head.short}", agent)
    return 0


def snapshot_board(layout: Layout, cfg: dict[str, Any], subject: str, agent: str) -> None:
    """Commit the Blackboard onto its ref (`sync.snapshot`, default on); problems are warnings."""
    if not setting(cfg, "sync.snapshot", True):
        return
    from gridgit.git import snapshot

    outcome = snapshot.snapshot(layout, subject, agent, setting(cfg, "sync.ref", None))
    for problem in outcome.invalid:
        warn(f"{problem} (left out of the snapshot)")


def _phase_completions(layout: Layout, commits: list[Any]) -> dict[str, bool]:
    """Phase id -> True when a commit marked it complete in STATE.md, False when a trailer names it."""
    from gridgit.git import evidence
    from gridgit.validation import sources

    prefix = sources.grid_prefix(layout)
    found: dict[str, bool] = {}
    for commit in commits:
        for phase_id in commit.phases:
            found.setdefault(phase_id, False)
        if prefix:
            for phase_id in evidence.marked_complete(layout, commit, f"{prefix}/STATE.md"):
                found.setdefault(phase_id, True)
    return found


def complete_phases(layout: Layout, cfg: dict[str, Any], commits: list[Any]) -> None:
    """Run phase completion once for each phase the COMMITS complete (trailer or STATE.md)."""
    from gridgit.phases import lifecycle

    for phase_id, marked in _phase_completions(layout, commits).items():
        try:
            lifecycle.complete_phase(layout, phase_id, agent_id="system", marked_in_state=marked)
        except Exception as exc:
            warn(f"phase {phase_id} not completed ({exc}); run `gridgit phase complete {phase_id}`")
            continue
