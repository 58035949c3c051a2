"""`gridgit budget [add|transcript]`: the mission's token usage and cost (`.grid/budget.json`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from gridgit.cli.common import FloatRange, agent_option, json_option, output, phase_option, with_part
from gridgit.work.budget import MAX_COST, MAX_TOKENS

if TYPE_CHECKING:
    from gridgit.api.work import WorkAPI

with_work = with_part("gridgit.api.work", "WorkAPI")


def _line(name: str, row: dict[str, Any]) -> str:
    return (
        f"  {name:<28} ${row['cost_usd']:>10,.4f}  {row['tokens_in']:>12,} in  {row['tokens_out']:>10,} out  "
        f"{row['cache_read']:>12,} cache read  {row['cache_write']:>10,} cache write"
    )


def render(report: dict[str, Any]) -> str:
    """The budget report for people: the total and its limit, then by agent, phase and model."""
    total = report["total"]
    limit = f" of ${report['limit_usd']:,.2f} ({report['percent']:g}%)" if report["limit_usd"] else " (no limit set)"
    lines = [f"Cost: ${total['cost_usd']:,.4f}{limit}, {total['messages']:,} messages"]
    if report["warning"]:
        lines.append(f"WARNING: {report['warning']}")
    for title, key in (("By agent", "by_agent"), ("By phase", "by_phase"), ("By model", "by_model")):
        if report[key]:
            lines += ["", f"{title}:", *(_line(name, row) for name, row in report[key].items())]
    if report["spawns"]:
        lines += ["", "Spawns: " + ", ".join(f"{a} {n}" for a, n in sorted(report["spawns"].items()))]
    if report["unpriced_models"]:
        lines += ["", "No price in config.json budget.prices for: " + ", ".join(report["unpriced_models"])]
    return "\n".join(lines)


@click.group("budget", invoke_without_command=True)
@json_option
@click.pass_context
def budget(ctx: click.Context, as_json: bool) -> None:
    """The mission's usage and cost: totals by agent, phase and model, and the mission limit.

    Usage comes from the agent tools' transcripts (their Stop hook) or `gridgit budget add`.
    """
    if ctx.invoked_subcommand is None:
        from gridgit.api.work import WorkAPI

        output(WorkAPI().budget(), as_json, render)


@budget.command("add")
@click.option("--tokens-in", "tokens_in", type=click.IntRange(0, MAX_TOKENS), required=True, help="Input tokens.")
@click.option("--tokens-out", "tokens_out", type=click.IntRange(0, MAX_TOKENS), required=True, help="Output tokens.")
@click.option(
    "--cache-read",
    "cache_read",
    type=click.IntRange(0, MAX_TOKENS),
    default=0,
    help="Input tokens read from the prompt cache.",
)
@click.option(
    "--cache-write",
    "cache_write",
    type=click.IntRange(0, MAX_TOKENS),
    default=0,
    help="Input tokens written to the prompt cache.",
)
@click.option(
    "--cost",
    type=FloatRange(0, MAX_COST),
    default=None,
    metavar="USD",
    help="The cost (default: from the model's price).",
)
@click.option("--model", metavar="MODEL", help="The model, e.g. claude-sonnet-4-5 (prices: config.json).")
@click.option("--session", metavar="ID", help="The agent's session (default: manual).")
@phase_option
@agent_option
@json_option
@with_work
def add(
    board: WorkAPI,
    tokens_in: int,
    tokens_out: int,
    cache_read: int,
    cache_write: int,
    cost: float | None,
    model: str | None,
    session: str | None,
    phase: str | None,
    agent: str | None,
    as_json: bool,
) -> None:
    """Report usage by hand (an agent whose tool's transcript gridgit does not read).

    Token counts are whole numbers from 0 to a billion; a cost from 0 to 100,000 USD.
    """
    result = board.add_usage(tokens_in, tokens_out, cache_read, cache_write, cost, model, session, phase, agent)
    added = result.total_usd - result.before_usd
    text = f"added ${added:,.4f}; the mission has cost ${result.total_usd:,.4f}"
    if result.limit_reached:
        text += f": it reached its limit of ${result.limit_usd:,.2f} (every agent is told)"
    output(result, as_json, text)


@budget.command("transcript")
# A path that is not there is the command line's mistake (2); the Stop hook, which counts a transcript not written
# yet as nothing new, calls the library, not this command.
@click.argument("path", type=click.Path(exists=True, dir_okay=False))
@click.option("--session", metavar="ID", help="The session the transcript belongs to (default: from its path).")
@agent_option
@json_option
@with_work
def transcript(board: WorkAPI, path: str, session: str | None, agent: str | None, as_json: bool) -> None:
    """Count the usage new in an agent tool's transcript (JSON lines), as its Stop hook does: each message once."""
    counted = board.count_transcript(path, session, agent)
    text = f"{counted.messages} new messages, ${counted.cost_usd:,.4f}"
    text += f" ({counted.bad} lines not understood)" if counted.bad else ""
    output(counted, as_json, text + (f"; {counted.note}" if counted.note else ""))
