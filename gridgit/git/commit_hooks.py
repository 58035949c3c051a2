"""The commit hooks: pre-commit (file changes, conflicts, staged .grid/ validation), and the
phase completion that post-commit (gridgit.git.recording), post-merge and post-rewrite run for
phase commits.

.grid/ is not a file of the code branches (DESIGN.md "Git integration"): nothing here stages,
commits or defers a Blackboard change into the user's commit.

This is on the path of every `git commit`: it imports what a hook needs only when it needs it.
"""

from __future__ import annotations

from typing import Any

from gridgit.errors import BadInput, NeedsForce
from gridgit.git.hookenv import Refused, setting, warn
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
    """One `file_modified` event per staged path, with conflict detection; the conflicts, as lines.

    A path an agent tool's hook recorded already with this very content (its blob id, by the same
    agent, or by anyone when the commit's is `unknown`) is that edit: not recorded twice.
    """
    if not staged:
        return []
    from gridgit.coordination import conflicts
    from gridgit.store import usertext

    operations = {"A": "created", "D": "deleted"}
    changes = []
    for s in staged:
        try:
            path, operation = usertext.check_path(s.path), operations.get(s.status, "modified")
            changes.append(conflicts.Modification(path, operation, blob=None if s.status == "D" else s.sha))
        except BadInput as exc:  # a file named with a line break: the commit goes on, unrecorded
            warn(f"{exc}; not recorded")
    lines = []
    for result in conflicts.record_modifications(layout, changes, agent, check=True, same_edit=True):
        if result.conflict is not None and result.conflict.has_conflict:
            lines.append(result.conflict.summary())
    return lines


# ---- phase commits (post-commit: gridgit.git.recording; post-merge, post-rewrite) ------------


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
    from gridgit.history import restore
    from gridgit.phases import lifecycle

    for phase_id, marked in _phase_completions(layout, commits).items():
        try:
            restore.before_completion(layout, phase_id, setting(cfg, "sync.ref", None))
            result = lifecycle.complete_phase(layout, phase_id, agent_id="system", marked_in_state=marked)
            if result.awaiting_approval:
                warn(
                    f"phase {phase_id} waits for Master Control's approval (STATE mode): `gridgit approve phase {phase_id}`"
                )
        except NeedsForce as exc:  # what would complete it: the command that overrides the rule it broke
            warn(f"phase {phase_id} not completed ({exc}); `gridgit phase complete {phase_id} --force --agent mc` "
                 "completes it anyway")  # fmt: skip
            continue
        except Exception as exc:
            warn(f"phase {phase_id} not completed ({exc})")
            continue
