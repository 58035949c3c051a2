"""`gridgit phase start|complete|list`, `gridgit archive`, `gridgit promote`, `gridgit learnings`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from gridgit.cli.common import F, agent_option, completes, json_option, output, phase_option, with_board

if TYPE_CHECKING:
    from gridgit.blackboard import Blackboard


@click.group("phase")
def phase() -> None:
    """Start, complete and list phases (starting and completing is Master Control's job)."""


@phase.command("start")
@click.argument("phase_id", shell_complete=completes("phases"))
@click.option("--name", metavar="NAME", help="Human name of the phase (default: from the id).")
@click.option("--force", is_flag=True, help="Start it out of order (the phase_started event records it).")
@agent_option
@json_option
@with_board
def start(board: Blackboard, phase_id: str, name: str | None, force: bool, agent: str | None, as_json: bool) -> None:
    """Create PHASE_ID (NN-slug): its folder, an empty scratchpad, its STATE entry.

    One phase runs at a time, in order: another phase in progress, or a pending one before
    PHASE_ID, is refused unless --force. Starting a phase that already started changes
    nothing. Master Control's job: --agent mc (or GRID_AGENT_ID=mc); without an agent it is
    refused (exit 4).
    """
    started = board.start_phase(phase_id, name, agent=agent, force=force)
    message = f"{phase_id}: started" if started else f"{phase_id}: already started, nothing changed"
    output({"phase_id": phase_id, "started": started}, as_json, message)


def completion_text(result: Any) -> str:
    restored = "".join(f"restored first: {line}\n" for line in result.restored)
    return restored + _completed(result)


def _completed(result: Any) -> str:
    if result.awaiting_approval:
        asked = result.awaiting_approval
        return (
            f"{result.phase_id}: not complete yet: it waits for Master Control's approval (STATE mode), asked by "
            f"{asked['requested_by']} at {asked['requested_at']}; `gridgit approve phase {result.phase_id}` completes it"
        )
    if result.already_complete and not result.archived:
        return f"{result.phase_id}: already complete, nothing changed"
    if result.already_complete:
        carried = f", {result.carried} carried forward to {result.next_phase_id}" if result.next_phase_id else ""
        return f"{result.phase_id}: already complete; {result.archived} late entries archived{carried}"
    text = f"{result.phase_id}: complete; {result.archived} entries archived, {len(result.promoted)} promoted"
    if result.next_phase_id:
        text += f", {result.carried} carried forward to {result.next_phase_id} (now the current phase)"
    return "\n".join([text, *_waiting_lines(result.waiting, "archived without")])


def _waiting_lines(waiting: list[dict[str, Any]], what: str) -> list[str]:
    """The HIGH entries short of their validations (`gridgit confirm` adds one), one line each."""
    return [
        f"  {what} {w['validations']}/{w['needed']} validations: {w['phase_id']}#{w['entry_id']} {w['title']} [{w['uid']}]"
        for w in waiting
    ]


def completion_options(command: F) -> F:
    """PHASE_ID, --next, --force, --agent, --json and the Blackboard: `phase complete`'s and `approve phase`'s."""
    for option in reversed((
        click.argument("phase_id", shell_complete=completes("phases")),
        click.option("--next", "next_phase", metavar="ID[:NAME]",
                     help="The phase that follows (default: the next phase in STATE that is not complete)."),
        click.option("--force", is_flag=True,
                     help="Complete it out of order, or while one of its blocks is taken or in progress."),
        agent_option,
        json_option,
        with_board,
    )):  # fmt: skip
        command = option(command)
    return command


@phase.command("complete")
@completion_options
def complete(
    board: Blackboard, phase_id: str, next_phase: str | None, force: bool, agent: str | None, as_json: bool
) -> None:
    """Complete PHASE_ID: promote learnings, carry forward its open work (blockers, questions,
    warnings, handoffs not taken) and the last 5 handoffs, archive its scratchpad, and move
    STATE to the next phase.

    Completing past the current phase, or into a next phase that skips a pending one, is
    refused unless --force, as is a phase whose blocks are still taken or in progress. Completing a phase twice changes nothing the second time. Master
    Control's job: --agent mc (or GRID_AGENT_ID=mc); without an agent it is refused (exit 4).
    In `guided` and `hands_on` mode it only asks: the phase completes once Master Control
    approves it (`gridgit approve phase`), and it says so (exit 0).
    """
    result = board.complete_phase(phase_id, next_phase, agent=agent, force=force)
    output(result, as_json, completion_text)


def _phase_table(rows: list[dict[str, Any]]) -> str:
    if not rows:
        return "no phases"
    lines = [f"  {'ID':<20} {'STATUS':<12} {'ENTRIES':>7} {'ARCHIVED':>8}  NAME"]
    for row in rows:
        mark = "*" if row["current"] else " "
        entries = "-" if row["entries"] is None else str(row["entries"])
        line = f"{mark} {row['id']:<20} {row['status']:<12} {entries:>7} {row['archived']:>8}  {row['name']}"
        lines.append(line + (f"  ({row['error']})" if row.get("error") else ""))
    return "\n".join(lines)


@phase.command("list")
@json_option
@with_board
def list_(board: Blackboard, as_json: bool) -> None:
    """List phases: status, entries in the scratchpad and in its archive (* = current)."""
    output(board.phases(), as_json, _phase_table)


@click.command("archive")
@phase_option
@agent_option
@json_option
@with_board
def archive(board: Blackboard, phase: str | None, agent: str | None, as_json: bool) -> None:
    """Move every entry of a phase's scratchpad to scratchpad_archived.md, without promotion.

    For Master Control and memory agents: --agent mc (or GRID_AGENT_ID); without an agent it
    is refused (exit 4).
    """
    phase_id = board.phase(phase)
    moved = board.archive(phase_id, agent=agent)
    output({"phase_id": phase_id, "archived": moved}, as_json, f"{phase_id}: {moved} entries archived")


def _promotion_text(result: Any) -> str:
    verb = "would promote" if result.dry_run else "promoted"
    lines = [
        f"{result.phase_id}: {result.candidates} candidates, {verb} {len(result.promoted)}, "
        f"{result.already} already in LEARNINGS.md"
    ]
    lines += [f"  {learning.category:<17} {learning.title}" for learning in result.promoted]
    return "\n".join(lines + _waiting_lines(result.waiting, "waits for"))


@click.command("promote")
@phase_option
@click.option("--dry-run", is_flag=True, help="Show what would be promoted; write nothing.")
@click.option(
    "--entry",
    "entry_id",
    metavar="N|UID",
    help="Promote this one entry (its number, or its stable id), whatever the rules say: Master Control's choice.",
)
@agent_option
@json_option
@with_board
def promote(
    board: Blackboard, phase: str | None, dry_run: bool, entry_id: str | None, agent: str | None, as_json: bool
) -> None:
    """Promote a phase's high-value entries (scratchpad and archive) to LEARNINGS.md.

    For memory agents. An entry is promoted at most once, and a learning already in
    LEARNINGS.md (same section, same text) is not added again. With --entry, one entry a
    memory agent or Master Control chose (not with --dry-run).
    """
    if entry_id is not None:
        if dry_run:
            raise click.UsageError("--entry promotes one entry now: --dry-run does not go with it")
        result = board.promote_entry(entry_id, phase, agent=agent)
    else:
        result = board.promote(board.phase(phase), agent=agent, dry_run=dry_run)
    output(result, as_json, _promotion_text)


def _learnings_text(items: list[Any]) -> str:
    if not items:
        return "no learnings"
    lines: list[str] = []
    section = None
    for learning in items:
        if learning.category != section:
            section = learning.category
            lines += ([""] if lines else []) + [f"## {section}"]
        origin = f"  ({learning.phase_id} [{learning.entry_id}] {learning.agent_id})" if learning.phase_id else ""
        lines.append(f"- {learning.title}{origin}")
    return "\n".join(lines)


@click.command("learnings")
@click.option(
    "--category",
    metavar="SECTION",
    help="Only this section: user_preferences, decisions, gotchas, patterns or discoveries.",
)
@json_option
@with_board
def learnings(board: Blackboard, category: str | None, as_json: bool) -> None:
    """List LEARNINGS.md (L4): persistent knowledge, by section."""
    output(board.learnings(category), as_json, _learnings_text)
