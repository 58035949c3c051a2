"""`gridgit approve block|phase|list`: what STATE's mode makes wait for Master Control (docs/serve.md, "The mode")."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from gridgit.cli.common import agent_option, json_option, output, phase_option, with_board
from gridgit.cli.phase import completion_options, completion_text

if TYPE_CHECKING:
    from gridgit.blackboard import Blackboard


@click.group("approve")
def approve() -> None:
    """Approve what waits for Master Control: a proposed block (hands_on mode), a phase's completion (guided)."""


@approve.command("block")
@click.argument("block_id")
@phase_option
@agent_option
@json_option
@with_board
def block(board: Blackboard, block_id: str, phase: str | None, agent: str | None, as_json: bool) -> None:
    """Approve the proposed block BLOCK_ID: it joins the queue (`ready`, `take`); its planner is told.

    Master Control's: --agent mc (or GRID_AGENT_ID). A block that is not proposed is refused.
    """
    found = board.approve_block(block_id, phase, agent)
    output(found, as_json, f"block {found.block_id} approved: in the queue (planned by {found.planned_by or '-'})")


@approve.command("phase")
@completion_options
def phase(
    board: Blackboard, phase_id: str, next_phase: str | None, force: bool, agent: str | None, as_json: bool
) -> None:
    """Approve completing PHASE_ID: it completes now, with every check `phase complete` runs.

    What `guided` and `hands_on` mode wait for (an agent's `phase complete` or
    `Grid-Phase-Complete:` commit only asks); in `autopilot` it is `phase complete`.
    Master Control's: --agent mc (or GRID_AGENT_ID).
    """
    output(board.approve_phase(phase_id, next_phase, agent, force), as_json, completion_text)


def _waiting(data: dict[str, Any]) -> str:
    lines = [f"mode: {data['mode']}"]
    lines += [
        f"  phase {p['phase_id']}: completion asked by {p['requested_by']} at {p['requested_at']}"
        for p in data["phases"]
    ]
    lines += [f"  block {b.block_id}: {b.name or '-'} (proposed by {b.planned_by or '-'})" for b in data["blocks"]]
    return "\n".join(lines) if len(lines) > 1 else f"{lines[0]}; nothing waits for approval"


@approve.command("list")
@json_option
@with_board
def list_(board: Blackboard, as_json: bool) -> None:
    """What waits for approval: phases whose completion was asked, proposed blocks."""
    output(board.approvals(), as_json, _waiting)
