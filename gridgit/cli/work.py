"""`gridgit ready`, `gridgit take` and `gridgit block plan|start|complete|release|list|show`: the work queue."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from gridgit.cli.common import (
    agent_option,
    completes,
    json_option,
    output,
    phase_option,
    published_lines,
    read_content,
    with_part,
)
from gridgit.work.blockfile import MAX_WAVE

if TYPE_CHECKING:
    from gridgit.api.work import WorkAPI

with_work = with_part("gridgit.api.work", "WorkAPI")


def _split(value: str | None) -> list[str] | None:
    return None if value is None else [v.strip() for v in value.split(",") if v.strip()]


def _labels(values: tuple[str, ...]) -> list[str] | None:
    """--label, repeatable, each one or several (a,b); not given: None."""
    return [v for value in values for v in _split(value) or []] if values else None


class Priority(click.ParamType[int]):
    """0 (first) to 4 (last), or P0 to P4 as beads writes them."""

    name = "0-4|P0-P4"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> int:
        from gridgit.errors import BadInput
        from gridgit.work.blockfile import parse_priority

        try:
            return parse_priority(value)
        except BadInput as exc:
            self.fail(str(exc), param, ctx)


label_option = click.option(
    "--label", "labels", multiple=True, metavar="L", help="Only blocks with this label (repeatable: all of them)."
)


def _offers(rows: list[Any]) -> str:
    if not rows:
        return "nothing ready (`gridgit ready --explain` says why each block waits)"
    lines = [f"  {'BLOCK':<6} {'PRI':>3} {'WAVE':>4}  {'DEPENDS ON':<14} NAME"]
    for offer in rows:
        block = offer.block
        was = f"  (offered again: {offer.stale_owner} went quiet)" if offer.stale_owner else ""
        deps = ",".join(block.depends_on) or "-"
        tags = f"  [{', '.join(block.labels)}]" if block.labels else ""
        lines.append(f"  {block.block_id:<6} {'P' + str(block.priority):>3} {block.wave:>4}  {deps:<14} "
                     f"{block.name or '-'}{tags}{was}")  # fmt: skip
    return "\n".join(lines)


def _verdicts(rows: list[Any]) -> str:
    return "\n".join(f"  {v.block.block_id:<6} {'READY' if v.ready else 'waits':<6} {v.text}" for v in rows)


@click.command("ready")
@click.argument("block_id", required=False, shell_complete=completes("blocks"))
@click.option("--explain", is_flag=True, help="Say why each block (or BLOCK_ID) is or is not ready.")
@label_option
@phase_option
@agent_option
@json_option
@with_work
def ready(
    board: WorkAPI,
    block_id: str | None,
    explain: bool,
    labels: tuple[str, ...],
    phase: str | None,
    agent: str | None,
    as_json: bool,
) -> None:
    """List the blocks one may take now: dependencies complete, nobody holding them (or a holder gone quiet),
    and no file of theirs in another agent's block in progress or exclusive claim.

    In the order `gridgit take` takes them: priority (P0 first), phase, wave, number. With
    --explain, every block and why it is or is not ready; BLOCK_ID, that one's.
    """
    if explain or block_id:
        output(board.explain_ready(block_id, phase, _labels(labels), agent), as_json, _verdicts)
        return
    output(board.ready(phase, _labels(labels), agent), as_json, _offers)


def _taken(result: Any) -> str:
    block = result.block
    what = f"block {block.block_id}" + (f": {block.name}" if block.name else "")
    if result.already:
        return f"{block.owner} already holds {what} ({block.status})"
    lines = [f"{block.owner} took {what} (wave {block.wave})"]
    if result.reoffered_from:
        lines.append(f"  it was {result.reoffered_from}'s, who went quiet")
    if result.claimed:
        lines.append(f"  claimed {', '.join(result.claimed)}")
    lines += [f"  overlaps {o['agent']}'s claim on {o['pattern']}" for o in result.overlaps]
    lines += published_lines(result, "no other clone took it first", "a take the remote already holds wins")
    return "\n".join(lines)


@click.command("take")
@click.argument("block_id", required=False, shell_complete=completes("blocks"))
@label_option
@agent_option
@json_option
@with_work
def take(board: WorkAPI, block_id: str | None, labels: tuple[str, ...], agent: str | None, as_json: bool) -> int:
    """Take BLOCK_ID, or the next ready block (with every --label), atomically: it becomes your block and
    its files are claimed.

    Nothing ready exits 8 (`nothing_ready`). An agent holds one block at a time: asking again
    answers with the one it holds. With a remote configured, the take stands once it is on the
    remote before any other clone's; a remote that cannot be reached leaves it provisional: exit 9.
    """
    result = board.take(block_id, agent, _labels(labels))
    output(result, as_json, _taken)
    from gridgit.errors import Provisional

    return Provisional.exit_code if result.provisional else 0


@click.group("block")
def block() -> None:
    """Plan blocks of a phase, and start, complete or release the one you hold."""


@block.command("plan")
@click.argument("block_id", required=False, shell_complete=completes("blocks"))
@click.option("--name", metavar="NAME", help="What the block is, in a few words.")
@click.option("--content", metavar="TEXT", help="The plan (markdown); `-` reads standard input.")
@click.option("--template", is_flag=True, help="Print a plan template and exit.")
@click.option("--depends-on", "depends_on", metavar="A,B", help="Blocks that must be complete first, e.g. 01-01,01-02.")
@click.option(
    "--wave",
    type=click.IntRange(1, MAX_WAVE),
    default=None,
    help="Its wave (default: after its dependencies', else 1).",
)
@click.option("--files", metavar="A,B", help="Paths or globs the block works on: claimed when it is taken.")
@click.option(
    "--priority",
    type=Priority(),
    default=None,
    help="0 (first) to 4 (last), or P0-P4: orders the ready blocks (default: 2, or what it was).",
)
@click.option("--label", "labels", multiple=True, metavar="L", help='A label (repeatable; --label "" clears them).')
@click.option("--discovered-from", "discovered_from", metavar="BLOCK", help="File work found in BLOCK (any agent).")
@phase_option
@agent_option
@json_option
@with_work
def plan(
    board: WorkAPI,
    block_id: str | None,
    name: str | None,
    content: str | None,
    template: bool,
    depends_on: str | None,
    wave: int | None,
    files: str | None,
    priority: int | None,
    labels: tuple[str, ...],
    discovered_from: str | None,
    phase: str | None,
    agent: str | None,
    as_json: bool,
) -> None:
    """Write the plan of BLOCK_ID (NN-NN: phase NN, block NN) as phases/NN-slug/NN-PLAN.md.

    For planners and Master Control; any agent that works blocks files a new one it found with
    --discovered-from. Planning a block again edits it: what is given is rewritten, its take
    and status kept; a complete block's plan is final. In `hands_on` mode a new block anyone
    but Master Control plans is proposed: taken once Master Control approves it.
    """
    from gridgit.work.blockfile import TEMPLATE

    if template:
        output({"template": TEMPLATE}, as_json, lambda t: t["template"].rstrip("\n"))
        return
    if not block_id:
        raise click.UsageError("missing argument BLOCK_ID (or --template)")
    text = read_content(content) or ""
    found = board.plan_block(block_id, text, name, _split(depends_on), wave, _split(files), phase, agent, priority,
                             _labels(labels), discovered_from)  # fmt: skip
    deps = f", after {', '.join(found.depends_on)}" if found.depends_on else ""
    verb = "proposed (waits for `gridgit approve block`)" if found.proposed else found.status
    origin = f", discovered from {found.discovered_from}" if found.discovered_from else ""
    shown = f"block {found.block_id} {verb} in {found.phase_id} (wave {found.wave}, P{found.priority}{deps}{origin})"
    output(found, as_json, shown)


@block.command("start")
@click.argument("block_id", shell_complete=completes("blocks"))
@phase_option
@agent_option
@json_option
@with_work
def start(board: WorkAPI, block_id: str, phase: str | None, agent: str | None, as_json: bool) -> None:
    """Mark the block you hold in progress."""
    found = board.start_block(block_id, phase, agent)
    output(found, as_json, f"block {found.block_id} in progress ({found.owner})")


@block.command("complete")
@click.argument("block_id", shell_complete=completes("blocks"))
@click.option("--summary", required=True, metavar="TEXT", help="What was done; `-` reads standard input.")
@click.option("--commit", "commits", multiple=True, metavar="SHA", help="A commit of the block (repeatable).")
@phase_option
@agent_option
@json_option
@with_work
def complete(
    board: WorkAPI,
    block_id: str,
    summary: str,
    commits: tuple[str, ...],
    phase: str | None,
    agent: str | None,
    as_json: bool,
) -> None:
    """Complete the block you hold: its summary goes to NN-SUMMARY.md, its claims are released.

    The commits its owner made since taking it (as the post-commit hook recorded them) are
    listed with any --commit given. An empty summary, or a block complete already, is refused.
    """
    found = board.complete_block(block_id, read_content(summary) or "", list(commits), phase, agent)
    shown = f" ({len(found.commits)} commits)" if found.commits else ""
    output(found, as_json, f"block {found.block_id} complete{shown}; summary in {found.block_id[3:]}-SUMMARY.md")


@block.command("release")
@click.argument("block_id", shell_complete=completes("blocks"))
@phase_option
@agent_option
@json_option
@with_work
def release(board: WorkAPI, block_id: str, phase: str | None, agent: str | None, as_json: bool) -> None:
    """Give the block you hold back to the queue (its claims are released)."""
    found = board.release_block(block_id, phase, agent)
    output(found, as_json, f"block {found.block_id} is back in the queue")


def _assigned(result: Any) -> str:
    block = result.block
    if result.already:
        return f"{block.owner} already holds block {block.block_id}"
    was = f" (from {result.reoffered_from}, who is told)" if result.reoffered_from else ""
    claimed = f"; claimed {', '.join(result.claimed)}" if result.claimed else ""
    return f"block {block.block_id} assigned to {block.owner}{was}{claimed}"


@block.command("assign")
@click.argument("block_id")
@click.argument("agent_id", metavar="AGENT")
@click.option(
    "--from",
    "expected_owner",
    metavar="ID",
    help='Only if ID holds it now ("": nobody); otherwise nothing changes: it changed meanwhile.',
)
@phase_option
@agent_option
@json_option
@with_work
def assign(
    board: WorkAPI,
    block_id: str,
    agent_id: str,
    expected_owner: str | None,
    phase: str | None,
    agent: str | None,
    as_json: bool,
) -> None:
    """Give BLOCK_ID to AGENT (Master Control): a ready block nobody holds, or a held one, from its holder.

    The new owner is registered with it and claims its files; the previous holder's claims on
    them are released. Both hear of it in their inboxes.
    """
    output(board.assign_block(block_id, agent_id, expected_owner, phase, agent), as_json, _assigned)


@block.command("list")
@phase_option
@json_option
@with_work
def list_(board: WorkAPI, phase: str | None, as_json: bool) -> None:
    """List the blocks of every phase (of --phase): status, wave, priority, owner, name, labels."""
    from gridgit.work.blocks import table

    output(board.blocks(phase), as_json, table)


@block.command("show")
@click.argument("block_id", shell_complete=completes("blocks"))
@phase_option
@json_option
@with_work
def show(board: WorkAPI, block_id: str, phase: str | None, as_json: bool) -> None:
    """Print one block: its fields and its plan."""
    found = board.block(block_id, phase)
    head = f"block {found.block_id} ({found.phase_id}, wave {found.wave}): {found.status}"
    head += f", {found.owner}" if found.owner else ""
    head += f"\npriority P{found.priority}" + (f", labels: {', '.join(found.labels)}" if found.labels else "")
    head += f", discovered from {found.discovered_from}" if found.discovered_from else ""
    output(found, as_json, f"{head}\n\n{found.plan}".rstrip())
