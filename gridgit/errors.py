"""The error contract of every surface: each kind of failure, its code and its exit status.

The library raises the GridError subclasses below; the CLI maps them to exit codes in one
place (gridgit/cli/main.py), the MCP server to error results with the same code and exit
status, the web view to HTTP statuses. README's "The CLI at a glance" and docs/errors.md
state this table.
"""

from __future__ import annotations

# kind (the `code` of a --json error envelope and of an MCP error result) -> exit status.
EXIT_CODES: dict[str, int] = {
    "error": 1,  # a failure of something gridgit needs (a file system error, git failing)
    "bad_input": 1,  # a value gridgit refuses: a malformed id, text over its limit, a bad setting
    "os_error": 1,  # the operating system refused: a full disk, a directory where a file should be
    "usage": 2,  # the command line itself: an unknown option, a missing one, a wrong type, a number out of range
    "not_initialised": 3,  # no .grid/ (or its STATE.md) here: run `gridgit init`
    "permission_denied": 4,  # the agent's type may not do that (or the file system says no)
    "lock_timeout": 5,  # a lock stayed held past GRIDGIT_LOCK_TIMEOUT
    "conflict": 6,  # a conflict was found (`conflicts check`, `conflicts predict`)
    "not_found": 7,  # a well-formed name of a phase, entry, agent, block or message that does not exist
    "nothing_ready": 8,  # `gridgit take`: no block is ready to take
    "provisional": 9,  # `gridgit take`: taken in this clone, not confirmed on the remote (the answer is printed)
    "interrupted": 130,  # Ctrl-C or SIGTERM
}


class GridError(Exception):
    """A failure a user can act on; the message is one line."""

    code = "error"
    exit_code = EXIT_CODES[code]


class BadInput(GridError):
    code = "bad_input"
    exit_code = EXIT_CODES[code]


class NeedsForce(BadInput):
    """Refused by a rule that `--force` overrides (the phase order, a phase's blocks in progress)."""


class NotInitialised(GridError):
    code = "not_initialised"
    exit_code = EXIT_CODES[code]


class NotFound(GridError):
    """A phase, entry, agent, block or message that does not exist (the name itself is well formed)."""

    code = "not_found"
    exit_code = EXIT_CODES[code]


class NothingReady(GridError):
    """`gridgit take` found no block to take: every block is held, complete or waiting for its dependencies."""

    code = "nothing_ready"
    exit_code = EXIT_CODES[code]


class Provisional(GridError):
    """`gridgit take` made the take in this clone but the remote did not confirm it (offline): its exit status.

    Not raised: the take stands and is printed (`provisional: true`); the next sync settles it.
    """

    code = "provisional"
    exit_code = EXIT_CODES[code]


class LostRace(GridError):
    """A sync's push refused every round while other clones kept pushing to the remote (gridgit.history.sync).

    Nothing is wrong with the remote: the writes wait on the local grid ref and the next sync pushes them,
    so auto-sync does not back off as it does from a remote it cannot reach.
    """


class PermissionDenied(GridError):
    code = "permission_denied"
    exit_code = EXIT_CODES[code]


class LockTimeout(GridError):
    code = "lock_timeout"
    exit_code = EXIT_CODES[code]


class ConflictFound(GridError):
    code = "conflict"
    exit_code = EXIT_CODES[code]


def permission_denied(exc: PermissionError) -> PermissionDenied:
    """The operating system's refusal (a read-only file, say) as gridgit's PermissionDenied, naming the file."""
    return PermissionDenied(f"{exc.filename or ''}: permission denied".lstrip(": "))
