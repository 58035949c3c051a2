"""`gridgit debug start|note|close|list|show`: debug sessions (`.grid/debug/<id>/investigation.md`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from gridgit.cli.common import agent_option, json_option, output, read_content, with_part

if TYPE_CHECKING:
    from gridgit.api.work import WorkAPI

with_work = with_part("gridgit.api.work", "WorkAPI")


@click.group("debug")
def debug() -> None:
    """Debug sessions: a hypothesis, what was tried, the result; closing one records its root cause as a gotcha."""


@debug.command("start")
@click.argument("title")
@click.option("--hypothesis", metavar="TEXT", help="A first hypothesis.")
@agent_option
@json_option
@with_work
def start(board: WorkAPI, title: str, hypothesis: str | None, agent: str | None, as_json: bool) -> None:
    """Open a debug session titled TITLE; prints its id (YYYYMMDD-slug-hhhh)."""
    found = board.start_debug(title, hypothesis, agent)
    output(found, as_json, f"debug session {found.session_id} opened: .grid/debug/{found.session_id}/investigation.md")


@debug.command("note")
@click.argument("session_id")
@click.argument("text")
@click.option(
    "--section",
    type=click.Choice(["hypothesis", "tried", "result"]),
    default="tried",
    show_default=True,
    help="Where the note goes.",
)
@agent_option
@json_option
@with_work
def note(board: WorkAPI, session_id: str, text: str, section: str, agent: str | None, as_json: bool) -> None:
    """Add TEXT (`-`: standard input) to a session's hypothesis, tried or result section."""
    found = board.note_debug(session_id, read_content(text) or "", section, agent)
    output(found, as_json, f"noted under {section} of {found.session_id}")


@debug.command("close")
@click.argument("session_id")
@click.option("--root-cause", "root_cause", required=True, metavar="TEXT", help="What caused it; `-` reads stdin.")
@click.option("--fix", metavar="TEXT", help="How to avoid or fix it.")
@click.option("--evidence", multiple=True, metavar="PATH", help="A file that shows it (repeatable).")
@agent_option
@json_option
@with_work
def close(
    board: WorkAPI,
    session_id: str,
    root_cause: str,
    fix: str | None,
    evidence: tuple[str, ...],
    agent: str | None,
    as_json: bool,
) -> None:
    """Close a session: its root cause is written as a HIGH gotcha entry in the current phase (promoted at its end)."""
    found, entry = board.close_debug(session_id, read_content(root_cause) or "", fix, list(evidence), agent)
    data = {"session": found, "entry": entry}
    output(data, as_json, f"{found.session_id} closed; gotcha [{entry.id}] {entry.topic} written")


def _table(rows: list[dict[str, Any]]) -> str:
    if not rows:
        return "no debug sessions"
    return "\n".join(f"  {r['session_id']:<40} {r['status']:<7} {r.get('agent') or '-':<16} {r['title']}" for r in rows)


@debug.command("list")
@click.option("--status", type=click.Choice(["open", "closed"]), default=None, help="Only open or closed sessions.")
@json_option
@with_work
def list_(board: WorkAPI, status: str | None, as_json: bool) -> None:
    """List debug sessions, newest first."""
    output(board.debug_sessions(status), as_json, _table)


@debug.command("show")
@click.argument("session_id")
@json_option
@with_work
def show(board: WorkAPI, session_id: str, as_json: bool) -> None:
    """Print one session: its fields and its sections."""
    found = board.debug_session(session_id)
    output(found, as_json, lambda inv: f"{inv.session_id} ({inv.meta['status']})\n{inv.body}".rstrip())
