"""The commit hooks: pre-commit (file changes, conflicts, staged .grid/ validation) and
post-commit (commit_recorded, evidence, phase commits).

This is on the path of every `git commit`: it imports what a hook needs only when it needs it.
"""

from __future__ import annotations

import os
from typing import Any

from gridgit.errors import GridError
from gridgit.git.hookenv import Refused, grid_in_worktree, in_rebase, in_sequence, setting, warn
from gridgit.model import permissions
from gridgit.store import gitcmd
from gridgit.store.layout import Layout, grid_prefix


def _amending() -> bool:
    """True when the `git commit` running this hook has --amend (read from /proc; False where there is none).

    git tells a pre-commit hook nothing about an amend, and recording HEAD into the commit
    that replaces it would name a commit that is about to vanish. The chain is git -> sh (shim) -> python.
    """
    try:
        with open(f"/proc/{os.getppid()}/stat", encoding="ascii", errors="replace") as handle:
            git_pid = handle.read().rsplit(")", 1)[1].split()[1]
        with open(f"/proc/{git_pid}/cmdline", "rb") as handle:
            args = handle.read().decode("utf-8", "replace").split("\0")
    except (OSError, IndexError):
        return False
    if "commit" not in args:
        return False
    options = args[args.index("commit") + 1 :]
    return any(len(a) >= 4 and "--amend".startswith(a) for a in options)


def _stage_grid(layout: Layout, prefix: str) -> list[str]:
    """Stage the Blackboard's pending changes (valid files only); returns the invalid ones left out.

    Only once the repository tracks .grid/: a Blackboard nobody committed yet is not added
    to someone's commit behind their back.
    """
    from gridgit.validation import rules

    listing = gitcmd.run_z(layout.root, "ls-files", "-t", "-c", "-m", "-d", "-o", "--exclude-standard", "--", prefix)
    if all(item.startswith("? ") for item in listing):
        return []
    changed = [item[2:] for item in listing if item[:1] in "CR?"]
    if not changed:
        return []
    stage: list[str] = []
    skipped: list[str] = []
    for path in dict.fromkeys(changed):
        full = layout.root / path
        rel = path[len(prefix) + 1 :]
        if full.is_symlink():
            skipped.append(path)
            continue
        problems = rules.validate_bytes(rel, full.read_bytes(), path) if full.is_file() else []
        (skipped if problems else stage).append(path)
    if stage:
        gitcmd.run(layout.root, "add", "-A", "--", *stage)
    return skipped


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
    own = grid_in_worktree(layout)
    # `git commit PATH...` commits a temporary index of exactly those paths: add nothing to it.
    partial = os.path.basename(os.environ.get("GIT_INDEX_FILE", "")).startswith("next-index")
    if own and not partial:
        # Last, so that what this hook wrote (evidence, conflict warnings) rides with this commit.
        try:
            from gridgit.git import evidence

            # An amended commit replaces HEAD: record only what lies below it.
            evidence.record_pending(layout, agent, tip="HEAD^" if _amending() else "HEAD")
        except Exception as exc:
            warn(f"commit evidence not recorded ({exc})")
        if setting(cfg, "commit.include_grid", True):
            for path in _stage_grid(layout, own):
                warn(f"{path}: left unstaged, it does not validate (gridgit validate {path})")
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
    if os.environ.get("GRIDGIT_HOOK_BACKGROUND") == "1":
        # Running after git returned: never write a tracked file, git may be switching branches.
        return 0
    if not setting(cfg, "commit.include_grid", True) or not grid_in_worktree(layout):
        # Nothing stages it into the next commit: record it in the work tree now.
        evidence.record_pending(layout, agent)
    if not in_rebase(layout):
        complete_phases(layout, cfg, [head])
    return 0


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
    """Run phase completion once for each phase the COMMITS complete (trailer or STATE.md); optionally commit."""
    from gridgit.phases import lifecycle

    done = []
    for phase_id, marked in _phase_completions(layout, commits).items():
        try:
            result = lifecycle.complete_phase(layout, phase_id, agent_id="system", marked_in_state=marked)
        except Exception as exc:
            warn(f"phase {phase_id} not completed ({exc}); run `gridgit phase complete {phase_id}`")
            continue
        if not getattr(result, "already_complete", False):
            done.append(phase_id)
    prefix = grid_in_worktree(layout)
    if done and prefix and setting(cfg, "phases.auto_commit", False) and not in_sequence(layout):
        # The real index, and GRIDGIT_SKIP so the inner commit never re-enters gridgit's hooks.
        env = {**gitcmd.clean_env(), "GRIDGIT_SKIP": "1"}
        env.pop("GIT_INDEX_FILE", None)
        try:
            gitcmd.run(layout.root, "add", "-A", "--", prefix, env=env)
            message = "gridgit: complete phase " + ", ".join(done)
            gitcmd.run(layout.root, "commit", "--no-verify", "-q", "-m", message, "--", prefix, env=env)
        except GridError as exc:
            warn(f"phase completion not committed ({exc})")
