"""`gridgit watch` (foreground) and `gridgit daemon start|stop|status|logs` (background)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import click

from gridgit.cli.common import F, FloatRange, count, echo_line, json_option, output, until_interrupted, with_board

if TYPE_CHECKING:
    from gridgit.blackboard import Blackboard


def timeout_option(default: float, what: str) -> Callable[[F], F]:
    return click.option(
        "--timeout",
        type=FloatRange(min=0, max=3600),
        default=default,
        show_default=True,
        help=f"Seconds to wait {what}.",
    )


polling_option = click.option(
    "--polling", is_flag=True, help="Poll the file system instead of using inotify (slower; for odd file systems)."
)


@click.command("watch")
@polling_option
@click.option("--daemon-child", is_flag=True, hidden=True, help="Run as the background daemon (log to file).")
@with_board
def watch(board: Blackboard, polling: bool, daemon_child: bool) -> None:
    """Watch .grid/ and the work trees in the foreground until Ctrl-C.

    Validates changed .grid/ files, re-indexes hand-edited scratchpads, emits file_modified
    (and write_conflict) for direct edits, and flags stale agents. Nothing needs it running.
    """
    board.watch(polling=polling, background=daemon_child)


@click.group("daemon")
def daemon() -> None:
    """Run the watcher in the background: one per repository, pid and log in .grid/.daemon/."""


@daemon.command("start")
@polling_option
@timeout_option(30.0, "until it watches")
@json_option
@with_board
def start(board: Blackboard, polling: bool, timeout: float, as_json: bool) -> None:
    """Start the background watcher (a second start finds the first one running)."""
    result = board.daemon_start(polling=polling, timeout=timeout)
    verbs = {"started": "started", "already-running": "already running", "starting": "still starting"}
    output(result, as_json, lambda r: f"daemon {verbs.get(r.action, r.action)}: {r.describe()}")


@daemon.command("stop")
@timeout_option(10.0, "for a clean exit")
@json_option
@with_board
def stop(board: Blackboard, timeout: float, as_json: bool) -> None:
    """Stop the background watcher (SIGTERM, then wait for it to exit cleanly)."""
    result = board.daemon_stop(timeout=timeout)
    messages = {
        "stopped": f"daemon stopped (pid {result.pid})",
        "cleaned": "daemon was not running; removed a stale pid file",
        "not-running": "daemon was not running",
    }
    output(result, as_json, messages.get(result.action or "", result.describe()))


@daemon.command("status")
@json_option
@with_board
def status(board: Blackboard, as_json: bool) -> None:
    """Say whether the watcher runs (running / stopped / stale-pid), since when, and what it watches."""
    output(board.daemon_status(), as_json, lambda r: r.describe())


@daemon.command("logs")
@click.option(
    "-n",
    "--lines",
    type=count(1),
    default=50,
    show_default=True,
    help="How many of the last lines to print.",
)
@click.option("-f", "--follow", is_flag=True, help="Keep printing new lines until Ctrl-C.")
@json_option
@with_board
def logs(board: Blackboard, lines: int, follow: bool, as_json: bool) -> None:
    """Print the end of the daemon log (.grid/.daemon/daemon.log)."""
    following = follow and not as_json
    if following:  # before the first line is out: whoever reads it may signal at once
        until_interrupted()
    found = board.daemon_logs(lines)
    output({"lines": found}, as_json, lambda d: "\n".join(d["lines"]) or "(the daemon log is empty)")
    if following:
        for line in board.daemon_follow_logs():
            echo_line(line)
