"""The bodies of gridgit's git hooks. The shims in hooks/ call `main([NAME, *ARGS])`.

Fail-safe rules (DESIGN.md "Git integration"): exit 1 only for a real finding (an invalid
staged .grid/ file, a write conflict with `conflicts.on_commit: block`); a crash or a run
past `hooks.timeout_seconds` prints one warning line and lets git proceed. This module is on
the path of every `git commit`: it imports what a hook needs only when the hook needs it.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from collections.abc import Callable
from typing import Any

from gridgit.errors import GridError
from gridgit.model import permissions
from gridgit.store import gitcmd
from gridgit.store.layout import Layout

NULL_SHA = "0" * 40


class Refused(Exception):
    """A real finding: the lines to print, and git's command must stop."""

    def __init__(self, lines: list[str]) -> None:
        super().__init__("\n".join(lines))
        self.lines = lines


class _OutOfTime(BaseException):
    """Raised by the alarm; a BaseException so no `except Exception` on the way swallows it."""


def warn(message: str) -> None:
    sys.stderr.write(f"gridgit: {message}\n")


def _config(layout: Layout) -> dict[str, Any]:
    """config.json as read for hooks; missing keys fall back in `_setting`.

    Read directly rather than through gridgit.store.config (importlib.resources) to keep the
    hook's start-up short; a broken config.json is a validation finding, never a block.
    """
    import json

    try:
        data = json.loads(layout.config.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _setting(cfg: dict[str, Any], dotted: str, default: Any) -> Any:
    node: Any = cfg
    for part in dotted.split("."):
        if not isinstance(node, dict) or part not in node:
            return default
        node = node[part]
    return node


def _grid_in_worktree(layout: Layout) -> str | None:
    """The .grid/ prefix when this work tree's commits carry the Blackboard gridgit writes."""
    try:
        return layout.grid.relative_to(layout.root).as_posix()
    except ValueError:
        return None


def _git_dir_has(layout: Layout, *markers: str) -> bool:
    git_dir = gitcmd.git_dir(layout.root)
    return any((git_dir / m).exists() for m in markers)


def _in_rebase(layout: Layout) -> bool:
    """A rebase replays commits (post-commit per pick); its post-rewrite sees them all at the end."""
    return _git_dir_has(layout, "rebase-merge", "rebase-apply")


def _in_sequence(layout: Layout) -> bool:
    """A rebase, merge, cherry-pick or revert under way: never make a commit of our own then."""
    return _git_dir_has(
        layout, "rebase-merge", "rebase-apply", "MERGE_HEAD", "CHERRY_PICK_HEAD", "REVERT_HEAD", "sequencer"
    )


# ---- pre-commit ----------------------------------------------------------------------------


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
    from gridgit.validation import rules

    agent = permissions.attribute_agent(layout)
    prefix = rules.grid_prefix(layout)
    staged = gitcmd.changed_files(layout.root)
    in_grid = [s for s in staged if prefix and s.path.startswith(prefix + "/")]
    if in_grid:
        problems = rules.validate_staged(layout, known=[s for s in in_grid if s.status != "D"])
        if problems:
            raise Refused(
                [str(p) for p in problems]
                + [f"gridgit: commit refused: {len(problems)} problem(s) in staged .grid files "
                   "(fix them and `git add`, or bypass once with GRIDGIT_SKIP=1)"]
            )  # fmt: skip
    work = [s for s in staged if not (prefix and s.path.startswith(prefix + "/"))]
    conflicts = _record_modifications(layout, work, agent)
    if conflicts and _setting(cfg, "conflicts.on_commit", "warn") == "block":
        raise Refused([*conflicts, "gridgit: commit refused: write conflict (conflicts.on_commit is block)"])
    own = _grid_in_worktree(layout)
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
        if _setting(cfg, "commit.include_grid", True):
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

    lines = []
    for item in staged:
        operation = {"A": "created", "D": "deleted"}.get(item.status, "modified")
        result = conflicts.record_modification(layout, item.path, agent, operation=operation, check=True)
        if result.conflict is not None and result.conflict.has_conflict:
            others = ", ".join(result.conflict.conflicting_agents)
            lines.append(f"write conflict on {item.path}: {others} changed it too within the conflict window")
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
    if not _setting(cfg, "commit.include_grid", True) or not _grid_in_worktree(layout):
        # Nothing stages it into the next commit: record it in the work tree now.
        evidence.record_pending(layout, agent)
    if not _in_rebase(layout):
        _complete_phases(layout, cfg, [head])
    return 0


def _phase_completions(layout: Layout, commits: list[Any]) -> dict[str, bool]:
    """Phase id -> True when a commit marked it complete in STATE.md, False when a trailer names it."""
    from gridgit.git import evidence
    from gridgit.validation import rules

    prefix = rules.grid_prefix(layout)
    found: dict[str, bool] = {}
    for commit in commits:
        for phase_id in commit.phases:
            found.setdefault(phase_id, False)
        if prefix:
            for phase_id in evidence.marked_complete(layout, commit, f"{prefix}/STATE.md"):
                found.setdefault(phase_id, True)
    return found


def _complete_phases(layout: Layout, cfg: dict[str, Any], commits: list[Any]) -> None:
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
    prefix = _grid_in_worktree(layout)
    if done and prefix and _setting(cfg, "phases.auto_commit", False) and not _in_sequence(layout):
        # The real index, and GRIDGIT_SKIP so the inner commit never re-enters gridgit's hooks.
        env = {**gitcmd.clean_env(), "GRIDGIT_SKIP": "1"}
        env.pop("GIT_INDEX_FILE", None)
        try:
            gitcmd.run(layout.root, "add", "-A", "--", prefix, env=env)
            message = "gridgit: complete phase " + ", ".join(done)
            gitcmd.run(layout.root, "commit", "--no-verify", "-q", "-m", message, "--", prefix, env=env)
        except GridError as exc:
            warn(f"phase completion not committed ({exc})")


# ---- post-merge / post-rewrite / post-checkout ---------------------------------------------


def _refresh(layout: Layout, old: str, new: str) -> None:
    """Re-index and validate the .grid/ files that differ between OLD and NEW."""
    from gridgit.scratchpad import store
    from gridgit.validation import rules

    prefix = rules.grid_prefix(layout)
    if not prefix:
        return
    changed = gitcmd.run_z(layout.root, "diff", "--name-only", "--no-renames", old, new, "--", prefix)
    for path in changed:
        rel = path[len(prefix) + 1 :]
        full = layout.grid / rel
        parts = rel.split("/")
        if not full.is_file() or full.is_symlink():
            continue
        if len(parts) == 3 and parts[0] == "phases" and parts[2] == "scratchpad.md":
            # A body that does not parse is reported below, never "repaired".
            with contextlib.suppress(Exception):
                store.reindex(layout, parts[1])
        for problem in rules.validate_bytes(rel, full.read_bytes(), path):
            warn(str(problem))


def _arrived(layout: Layout, cfg: dict[str, Any], old: str) -> None:
    from gridgit.git import evidence

    _complete_phases(layout, cfg, evidence.commits_in(layout, "HEAD", f"^{old}"))


def post_merge(layout: Layout, cfg: dict[str, Any], args: list[str]) -> int:
    if args and args[0] == "1":  # a squash merge moves no HEAD; its commit runs post-commit
        return 0
    if not gitcmd.resolves(layout.root, "ORIG_HEAD"):
        return 0
    _refresh(layout, "ORIG_HEAD", "HEAD")
    _arrived(layout, cfg, "ORIG_HEAD")
    return 0


def post_rewrite(layout: Layout, cfg: dict[str, Any], args: list[str]) -> int:
    # git pipes `OLD NEW` lines; run by hand at a terminal there are none (never wait for a tty).
    text = "" if sys.stdin is None or sys.stdin.isatty() else sys.stdin.read()
    pairs = [line.split()[:2] for line in text.splitlines() if len(line.split()) >= 2]
    if args and args[0] == "rebase" and gitcmd.resolves(layout.root, "ORIG_HEAD"):
        _refresh(layout, "ORIG_HEAD", "HEAD")
        _arrived(layout, cfg, "ORIG_HEAD")
    elif pairs:
        from gridgit.git import evidence

        commits = [c for _, new in pairs for c in evidence.commits_in(layout, new, limit=1)]
        _refresh(layout, pairs[0][0], "HEAD")
        _complete_phases(layout, cfg, commits)
    return 0


def post_checkout(layout: Layout, cfg: dict[str, Any], args: list[str]) -> int:
    if len(args) < 3 or args[2] != "1" or NULL_SHA in args[:2] or args[0] == args[1]:
        return 0
    _refresh(layout, args[0], args[1])
    return 0


HOOKS: dict[str, Callable[[Layout, dict[str, Any], list[str]], int]] = {
    "pre-commit": pre_commit,
    "post-commit": post_commit,
    "post-merge": post_merge,
    "post-rewrite": post_rewrite,
    "post-checkout": post_checkout,
}


def _on_alarm(signum: int, frame: Any) -> None:
    raise _OutOfTime()


def main(argv: list[str]) -> int:
    """Run hook ARGV[0] with git's arguments ARGV[1:]; the exit code for git (1 = refuse)."""
    if not argv or argv[0] not in HOOKS:
        warn(f"unknown hook {argv[0] if argv else ''!r} (one of: {', '.join(HOOKS)})")
        return 1
    name, args = argv[0], argv[1:]
    if os.environ.get("GRIDGIT_SKIP") == "1":
        return 0
    try:
        layout = Layout.find()
    except Exception:
        warn(f"{name} hook: not inside a git repository; nothing to do")
        return 0
    if not layout.state.exists():
        return 0  # a repository without .grid/: every hook is a silent no-op
    gitcmd.use_hook_env(True)
    # Read once: every hook body takes its settings from this one parse.
    cfg = _config(layout)
    budget = _setting(cfg, "hooks.timeout_seconds", 10)
    alarm = hasattr(signal, "SIGALRM") and isinstance(budget, (int, float)) and budget > 0
    if alarm:
        signal.signal(signal.SIGALRM, _on_alarm)
        signal.setitimer(signal.ITIMER_REAL, float(budget))
    try:
        return HOOKS[name](layout, cfg, args)
    except Refused as refusal:
        for line in refusal.lines:
            sys.stderr.write(line + "\n")
        return 1
    except _OutOfTime:
        warn(f"{name} hook stopped after {budget:g}s (hooks.timeout_seconds); git proceeds")
        return 0
    except Exception as exc:
        detail = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        warn(f"{name} hook failed ({detail}); git proceeds. Rerun: gridgit hook {name}")
        return 0
    finally:
        if alarm:
            signal.setitimer(signal.ITIMER_REAL, 0)
