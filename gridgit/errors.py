"""The one error type of gridgit; the CLI maps each subclass to its exit code."""

from __future__ import annotations


class GridError(Exception):
    """A failure a user can act on; the message is one line."""

    exit_code = 1
    code = "error"


class BadInput(GridError):
    code = "bad_input"


class NotInitialised(GridError):
    exit_code = 3
    code = "not_initialised"


class NotFound(GridError):
    """A phase, entry, agent, block or message that does not exist (the name itself is well formed)."""

    exit_code = 7
    code = "not_found"


class NothingReady(GridError):
    """`gridgit take` found no block to take: every block is held, complete or waiting for its dependencies."""

    exit_code = 8
    code = "nothing_ready"


class PermissionDenied(GridError):
    exit_code = 4
    code = "permission_denied"


class LockTimeout(GridError):
    exit_code = 5
    code = "lock_timeout"


class ConflictFound(GridError):
    exit_code = 6
    code = "conflict"


def permission_denied(exc: PermissionError) -> PermissionDenied:
    """The operating system's refusal (a read-only file, say) as gridgit's PermissionDenied, naming the file."""
    return PermissionDenied(f"{exc.filename or ''}: permission denied".lstrip(": "))
