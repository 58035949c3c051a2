"""`gridgit write|read|heartbeat|stale|subscribe|unsubscribe|reindex`: phase scratchpads (L2)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from gridgit.cli.common import agent_option, count, json_option, output, phase_option, read_content, with_part

if TYPE_CHECKING:
    from gridgit.api.scratchpad import ScratchpadAPI

# Every command here uses the scratchpad part of the API only.
with_scratchpads = with_part("gridgit.api.scratchpad", "ScratchpadAPI")

CATEGORY_HELP = "discovery, decision, gotcha, pattern, warning, question, blocker, handoff or heartbeat."


def _split(value: str | None) -> list[str]:
    return [v.strip() for v in (value or "").split(",") if v.strip()]


@click.command("write")
@click.option("--category", "-c", help=f"Entry category: {CATEGORY_HELP}")
@click.option("--topic", "-t", help="Topic keyword, e.g. auth or database.")
@click.option("--content", "content", metavar="TEXT", help="Entry body; `-` reads standard input.")
@click.option(
    "--template", "template", metavar="CATEGORY", help="Print the spec's content template for CATEGORY and exit."
)
@click.option("--tags", metavar="A,B", help="Comma-separated tags.")
@click.option("--relevance", "-r", metavar="LEVEL", help="HIGH, MEDIUM or LOW (default: from category and tags).")
@click.option(
    "--block", metavar="BLOCK", help="Block id, e.g. 01-02 (default: the agent's registered block, else STATE's)."
)
@click.option("--title", metavar="TEXT", help="Human-readable topic name (default: from the topic).")
@click.option(
    "--scope",
    type=click.Choice(["phase", "mission"]),
    default="phase",
    show_default=True,
    help="mission: a decision that affects the mission (tagged architectural, added to STATE's decisions).",
)
@click.option(
    "--affects-phases",
    metavar="ID,ID",
    help="A decision's phases (default: its own; others take it to STATE's decisions; --scope mission: all).",
)
@click.option(
    "--supersedes", metavar="ENTRY_ID", help="The earlier entry of this topic this one replaces (number or stable id)."
)
@agent_option
@phase_option
@json_option
@with_scratchpads
def write(
    board: ScratchpadAPI,
    category: str | None,
    topic: str | None,
    content: str | None,
    template: str | None,
    tags: str | None,
    relevance: str | None,
    block: str | None,
    title: str | None,
    scope: str,
    affects_phases: str | None,
    supersedes: str | None,
    agent: str | None,
    phase: str | None,
    as_json: bool,
) -> None:
    """Write an entry to the phase scratchpad.

    Secrets are redacted first. A write with the category and topic of an entry another
    agent wrote minutes ago is merged into that entry. Content without its category's
    required fields (see --template) is written with a warning, or refused when
    config.json says `entries.strict: true`. A blocker, and a decision of --scope mission,
    are added to STATE.md too (its blockers, persistent.decisions).
    """
    if template:
        from gridgit.scratchpad import categories

        output({"category": template, "template": categories.template(template)}, as_json, lambda t: t["template"])
        return
    missing = [
        name for name, value in (("--category", category), ("--topic", topic), ("--content", content)) if value is None
    ]
    if missing:
        raise click.UsageError(f"missing option(s) {', '.join(missing)} (or --template CATEGORY)")
    assert category is not None and topic is not None
    text = read_content(content) or ""
    entry = board.write(
        category, topic, text, _split(tags), relevance, block, phase, agent, title, scope, supersedes or "",
        _split(affects_phases),
    )  # fmt: skip

    def human(e: Any) -> str:
        if e.contributors and e.agent_id != board.agent(agent):
            return f"merged into entry [{e.id}] {e.category} | {e.topic} (contributors: {', '.join(e.contributors)})"
        return f"entry [{e.id}] {e.category} | {e.topic} ({e.relevance}) written"

    output(entry, as_json, human)


@click.command("read")
@click.option("--topic", "-t", help="Only entries of this topic.")
@click.option("--category", "-c", help=f"Only entries of this category: {CATEGORY_HELP}")
@click.option("--by", "by", metavar="AGENT", help="Only entries written (or merged into) by this agent.")
@click.option("--relevance", "-r", metavar="LEVEL", help="Minimum relevance: HIGH, MEDIUM (HIGH+MEDIUM) or LOW (all).")
@click.option("--limit", "-n", type=count(1), help="At most N entries (the newest).")
@click.option("--archived", is_flag=True, help="Read the phase's archive (scratchpad_archived.md) instead.")
@phase_option
@json_option
@with_scratchpads
def read(
    board: ScratchpadAPI,
    topic: str | None,
    category: str | None,
    by: str | None,
    relevance: str | None,
    limit: int | None,
    archived: bool,
    phase: str | None,
    as_json: bool,
) -> None:
    """Print scratchpad entries, newest first (served from the index).

    Open work that only the phase's archive holds follows, under a line saying so.
    """
    from gridgit.scratchpad.entry_markdown import format_listing

    entries = board.read(phase, topic, category, relevance, by, limit, archived)
    output(entries, as_json, format_listing)


@click.command("heartbeat")
@click.option(
    "--progress", "-p", type=click.IntRange(0, 100), required=True, metavar="PERCENT", help="Progress, 0 to 100."
)
@click.option("--action", "-a", required=True, metavar="TEXT", help="What the agent is doing right now.")
@click.option("--thread", metavar="TEXT", help="Thread or task being worked on, e.g. 'thread 2'.")
@click.option("--files", metavar="A,B", help="Comma-separated files touched this session.")
@click.option("--block", metavar="BLOCK", help="Block id (default: the agent's registered block, else STATE's).")
@agent_option
@phase_option
@json_option
@with_scratchpads
def heartbeat(
    board: ScratchpadAPI,
    progress: int,
    action: str,
    thread: str | None,
    files: str | None,
    block: str | None,
    agent: str | None,
    phase: str | None,
    as_json: bool,
) -> None:
    """Write a heartbeat entry: the alive signal staleness detection reads (every ~5 minutes)."""
    entry = board.heartbeat(progress, action, thread, _split(files), block, phase, agent)
    output(entry, as_json, lambda e: f"heartbeat [{e.id}] {e.agent_id} {progress}%: {action}")


def _staleness_line(report: dict[str, Any]) -> str:
    since = "never" if report["last_heartbeat"] is None else f"{report['minutes_since']} min ago"
    return f"{report['agent_id']:<24} {report['warning_level']:<8} last heartbeat {since}"


@click.command("stale")
@click.option("--all", "everyone", is_flag=True, help="Show every watched agent, not only the stale ones.")
@phase_option
@json_option
@with_scratchpads
def stale(board: ScratchpadAPI, everyone: bool, phase: str | None, as_json: bool) -> None:
    """List agents silent for over 10 minutes (or that never wrote a heartbeat)."""
    reports = board.stale(phase, everyone)
    output(reports, as_json, lambda rs: "\n".join(_staleness_line(r) for r in rs) or "no stale agents")


@click.command("subscribe")
@click.option("--topics", required=True, metavar="A,B|*", help="Comma-separated topics, or * for every topic.")
@click.option("--min", "relevance_min", default="LOW", show_default=True, metavar="LEVEL", help="Minimum relevance.")
@agent_option
@phase_option
@json_option
@with_scratchpads
def subscribe(
    board: ScratchpadAPI, topics: str, relevance_min: str, agent: str | None, phase: str | None, as_json: bool
) -> None:
    """Hear of matching entries through `gridgit inbox` (which opens now, if it was not open).

    A scratchpad writer's subscription lives in the phase's scratchpad and is carried into the
    next phase; a scout's or planner's is machine-local and holds for every phase.
    """
    sub = board.subscribe(_split(topics), relevance_min, phase, agent)
    output(
        sub,
        as_json,
        lambda s: f"{s['agent_id']} subscribed to {', '.join(s['topics'])} at {s['relevance_min']}+ ({s['stored']})",
    )


@click.command("unsubscribe")
@agent_option
@phase_option
@json_option
@with_scratchpads
def unsubscribe(board: ScratchpadAPI, agent: str | None, phase: str | None, as_json: bool) -> None:
    """Drop the agent's subscription in the phase (it is no longer carried into the next phase either)."""
    dropped = board.unsubscribe(phase, agent)
    who = board.agent(agent)
    output(
        {"agent_id": who, "unsubscribed": dropped},
        as_json,
        f"{who} unsubscribed" if dropped else f"{who} had no subscription",
    )


@click.command("reindex")
@click.option("--phase", "phase", default=None, help="Only this phase (default: every phase).")
@json_option
@with_scratchpads
def reindex(board: ScratchpadAPI, phase: str | None, as_json: bool) -> None:
    """Rebuild scratchpad indexes from their entries (every phase unless --phase)."""
    changed = board.reindex(phase)
    output(
        changed,
        as_json,
        lambda c: (
            "\n".join(f"{p}: {'re-indexed' if v else 'index up to date'}" for p, v in c.items()) or "no scratchpads"
        ),
    )
