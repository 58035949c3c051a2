"""`gridgit context`: the context pack an agent reads at the start of its work."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from gridgit.cli.common import agent_option, count, json_option, output, phase_option, with_board

if TYPE_CHECKING:
    from gridgit.blackboard import Blackboard


@click.command("context")
@agent_option
@phase_option
@click.option("--query", "-q", metavar="TEXT", help="What the agent is about to do; ranks entries by it.")
@click.option(
    "--budget",
    type=count(1),
    default=None,
    metavar="TOKENS",
    help="Token budget (default: the agent type's, e.g. executor 2000, scout 1000).",
)
@json_option
@with_board
def context(
    board: Blackboard, agent: str | None, phase: str | None, query: str | None, budget: int | None, as_json: bool
) -> None:
    """Print the context pack for an agent: STATE header, open blockers, handoffs, ranked entries, learnings.

    Tokens are estimated as characters / 4; the last line says how much of the budget the pack uses.
    """
    pack = board.context(agent, phase, query, budget)
    output(pack, as_json, lambda p: p.render())
