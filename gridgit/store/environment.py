"""The environment variables gridgit reads, each checked where it is read, and all of them at once.

Each value is checked by the code that reads it (`clock.now` GRIDGIT_NOW, `locks.default_timeout`
GRIDGIT_LOCK_TIMEOUT, `Layout.find` GRID_DIR, `permissions.check_agent` GRID_AGENT_ID, `flag`
GRIDGIT_SKIP and GRIDGIT_HOOK_SYNC): a bad value is a one-line error naming the variable.
`problems` runs every check up front, for `gridgit doctor` and for the watcher, which would
otherwise fail on its first event rather than at its start. docs/configuration.md lists them.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from gridgit.errors import BadInput, GridError

# Each variable's valid values (docs/configuration.md says what each one does). Unset, each is off.
VARIABLES: dict[str, str] = {
    "GRID_AGENT_ID": "{type}-{id} such as executor-001, or mc",
    "GRID_DIR": "a directory (or a path `gridgit init` creates)",
    "GRIDGIT_NOW": "an ISO 8601 time such as 2026-01-24T15:00:00Z",
    "GRIDGIT_LOCK_TIMEOUT": "a number of seconds from 0 to 999999",
    "GRIDGIT_SKIP": "1 or 0",
    "GRIDGIT_HOOK_SYNC": "1 or 0",
    "GRIDGIT_PROGRESS_AFTER": "a number of seconds from 0 to 3600",
}


def flag(name: str) -> bool:
    """A 1/0 variable: `1` is on; unset, empty or `0` is off; anything else is a one-line error."""
    value = os.environ.get(name, "").strip()
    if value not in ("", "0", "1"):
        raise BadInput(f"{name}={value[:40]!r}: expected 1 (on) or 0 (off)")
    return value == "1"


def hooks_skipped(warn: Callable[[str], None]) -> bool:
    """GRIDGIT_SKIP=1, for a hook: a value neither 1 nor 0 is a WARNing and the hook runs (it fails open
    towards recording: a mistyped skip loses nothing)."""
    try:
        return flag("GRIDGIT_SKIP")
    except GridError as exc:
        warn(f"{exc}: the hook runs (GRIDGIT_SKIP=1 skips it)")
        return False


def problems(root: Path | None = None) -> list[tuple[str, str]]:
    """(variable, its one-line error) for each variable set to a value gridgit refuses (GRID_DIR taken from ROOT).

    GRID_AGENT_ID aside: a Blackboard's config may add agent types (see permissions.check_agent).
    """
    from gridgit.store import clock, locks, progress
    from gridgit.store.layout import grid_dir_override

    checks: dict[str, Callable[[], object]] = {
        "GRID_DIR": lambda: grid_dir_override(root),
        "GRIDGIT_NOW": clock.now,
        "GRIDGIT_LOCK_TIMEOUT": locks.default_timeout,
        "GRIDGIT_SKIP": lambda: flag("GRIDGIT_SKIP"),
        "GRIDGIT_HOOK_SYNC": lambda: flag("GRIDGIT_HOOK_SYNC"),
        "GRIDGIT_PROGRESS_AFTER": progress.shown_after,
    }
    found = []
    for name, check in checks.items():
        try:
            check()
        except GridError as exc:
            found.append((name, str(exc)))
    return found
