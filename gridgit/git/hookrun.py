"""Running gridgit's git hooks: the shims in hooks/ call `main([NAME, *ARGS])`.

Fail-safe rules (DESIGN.md "Git integration"): exit 1 only for a real finding (an invalid
staged .grid/ file, a write conflict with `conflicts.on_commit: block`); a crash or a run
past `hooks.timeout_seconds` prints one warning line and lets git proceed.
"""

from __future__ import annotations

import importlib
import signal
import sys
from typing import Any

from gridgit.git.hookenv import Refused, read_config, setting, warn
from gridgit.store import gitcmd
from gridgit.store.layout import Layout


class _OutOfTime(BaseException):
    """Raised by the alarm; a BaseException so no `except Exception` on the way swallows it."""


# Hook -> (module, function) of its body: a hook imports only its own module.
HOOKS: dict[str, tuple[str, str]] = {
    "pre-commit": ("gridgit.git.commit_hooks", "pre_commit"),
    "post-commit": ("gridgit.git.recording", "post_commit"),
    "post-merge": ("gridgit.git.update_hooks", "post_merge"),
    "post-rewrite": ("gridgit.git.update_hooks", "post_rewrite"),
    "post-checkout": ("gridgit.git.update_hooks", "post_checkout"),
    "pre-push": ("gridgit.git.update_hooks", "pre_push"),
}


def _untracked_by_git(layout: Layout) -> bool:
    """The .grid/ this clone tracked was just deleted by git: an untracking commit (`gridgit migrate`) arrived."""
    from gridgit.history import migrate

    where = migrate.prefix(layout)
    return (
        bool(where)
        and gitcmd.resolves(layout.root, "ORIG_HEAD")
        and bool(
            gitcmd.run(layout.root, "rev-parse", "-q", "--verify", f"ORIG_HEAD:{where}/STATE.md", check=False).strip()
        )
    )


def _on_alarm(signum: int, frame: Any) -> None:
    raise _OutOfTime()


def _skipped() -> bool:
    """GRIDGIT_SKIP=1 (see environment.hooks_skipped); a bad GRIDGIT_HOOK_SYNC, which the shim reads, is warned of."""
    from gridgit.errors import GridError
    from gridgit.store import environment

    try:
        environment.flag("GRIDGIT_HOOK_SYNC")
    except GridError as exc:
        warn(f"{exc}: post-commit runs in the background")
    return environment.hooks_skipped(warn)


def main(argv: list[str]) -> int:
    """Run hook ARGV[0] with git's arguments ARGV[1:]; the exit code for git (1 = refuse)."""
    if not argv or argv[0] not in HOOKS:
        warn(f"unknown hook {argv[0] if argv else ''!r} (one of: {', '.join(HOOKS)})")
        return 1
    name, args = argv[0], argv[1:]
    if _skipped():
        return 0
    try:
        layout = Layout.find()
    except Exception:
        warn(f"{name} hook: not inside a git repository; nothing to do")
        return 0
    if not layout.state.exists() and not (name in ("post-merge", "post-rewrite") and _untracked_by_git(layout)):
        return 0  # a repository without .grid/: every hook is a silent no-op
    gitcmd.use_hook_env(True)
    # Read once: every hook body takes its settings from this one parse.
    cfg = read_config(layout)
    budget = setting(cfg, "hooks.timeout_seconds", 10)
    alarm = hasattr(signal, "SIGALRM") and isinstance(budget, (int, float)) and budget > 0
    if alarm:
        signal.signal(signal.SIGALRM, _on_alarm)
        signal.setitimer(signal.ITIMER_REAL, float(budget))
    try:
        module, function = HOOKS[name]
        body: Any = getattr(importlib.import_module(module), function)
        code: int = body(layout, cfg, args)
        return code
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
