"""`gridgit events emit|poll|tail|reset`, `touch`, `conflicts check|list|resolve|predict`, `claim`, `release`, `claims`."""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, Any

import click

from gridgit.cli.common import (
    FloatRange,
    agent_option,
    count,
    echo_line,
    json_option,
    output,
    published_lines,
    read_content,
    until_interrupted,
    with_board,
)
from gridgit.cli.foresight import predict
from gridgit.coordination.claims import MAX_TTL_MINUTES

if TYPE_CHECKING:
    from gridgit.blackboard import Blackboard

type_option = click.option(
    "--type", "types", multiple=True, metavar="TYPE", help="Only events of this type. Repeatable."
)


def _from_cwd(path: str) -> str:
    """A path or glob as the user typed it, relative to the current directory, made absolute."""
    return os.path.join(os.getcwd(), path)


def _checked_types(types: tuple[str, ...]) -> list[str] | None:
    from gridgit.events import bus

    return [bus.check_type(t, known_only=True) for t in types] or None


def format_event(event: dict[str, Any]) -> str:
    """One line: time, type, then the payload as key=value pairs."""
    pairs = " ".join(
        f"{key}={value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)}"
        for key, value in event.get("payload", {}).items()
    )
    return f"{event['timestamp']}  {event['type']:<18} {pairs}".rstrip()


def _lines(found: list[dict[str, Any]]) -> str:
    return "\n".join(format_event(e) for e in found)


@click.group("events")
def events() -> None:
    """The event log: the live pub/sub feed every agent and worktree of this machine shares."""


@events.command("emit")
@click.argument("event_type", metavar="TYPE")
@click.option("--payload", metavar="JSON", help="The payload: one JSON object (`-` reads stdin).")
@json_option
@with_board
def emit_command(board: Blackboard, event_type: str, payload: str | None, as_json: bool) -> None:
    """Append one event of a known TYPE (see docs/events.md) to the log."""
    from gridgit.events import bus as events_mod
    from gridgit.store import config

    events_mod.check_type(event_type, known_only=True)
    data = config.json_object(read_content(payload) or "{}", "payload")
    event = board.emit(event_type, data)
    output(event, as_json, lambda e: e["id"])


@events.command("poll")
@agent_option
@type_option
@click.option("--topic", "topics", multiple=True, metavar="TOPIC", help="Only events about this topic. Repeatable.")
@click.option(
    "--limit",
    type=count(1),
    default=None,
    help="At most this many events; the rest wait for the next poll.",
)
@json_option
@with_board
def poll(
    board: Blackboard,
    agent: str | None,
    types: tuple[str, ...],
    topics: tuple[str, ...],
    limit: int | None,
    as_json: bool,
) -> None:
    """Print the events AGENT has not seen yet, each once (a durable cursor per agent)."""
    found = board.poll(agent, _checked_types(types), list(topics) or None, limit)
    output(found, as_json, _lines)


@events.command("tail")
@click.option("-n", "--lines", "count", type=count(0), default=10, show_default=True, help="How many.")
@type_option
@click.option("-f", "--follow", is_flag=True, help="Keep printing new events until Ctrl-C or SIGTERM.")
@click.option(
    "--interval", type=FloatRange(min=0.01, max=3600), default=0.2, show_default=True, help="Seconds between polls."
)
@json_option
@with_board
def tail(board: Blackboard, count: int, types: tuple[str, ...], follow: bool, interval: float, as_json: bool) -> None:
    """Print the last events; with --follow (and --json, one JSON event a line) keep going."""
    wanted = _checked_types(types)
    if not follow:
        output(board.tail(count, wanted), as_json, _lines)
        return
    from gridgit.events import cursors

    until_interrupted()
    for event in cursors.follow(board.layout.require(), count, wanted, interval):
        echo_line(json.dumps(event, ensure_ascii=False) if as_json else format_event(event))


@events.command("reset")
@agent_option
@click.option("--end", "to_end", is_flag=True, help="Mark every event so far as seen instead.")
@json_option
@with_board
def reset(board: Blackboard, agent: str | None, to_end: bool, as_json: bool) -> None:
    """Reset AGENT's cursor: the next poll starts from the oldest event (or, with --end, from now)."""
    board.reset_cursor(agent, to_end)
    who = board.agent(agent)
    output({"agent_id": who, "to_end": to_end}, as_json, f"cursor of {who} {'moved to the end' if to_end else 'reset'}")


@click.command("touch")
@click.argument("path")
@agent_option
@click.option(
    "--operation",
    type=click.Choice(["created", "modified", "deleted", "moved"]),
    default="modified",
    show_default=True,
    help="What happened to PATH.",
)
@click.option("--from", "old_path", metavar="OLD_PATH", help="For --operation moved: where the file was.")
@click.option("--no-check", is_flag=True, help="Record only; skip conflict detection.")
@json_option
@with_board
def touch(
    board: Blackboard, path: str, agent: str | None, operation: str, old_path: str | None, no_check: bool, as_json: bool
) -> None:
    """Record a `file_modified` event for PATH and check it for write conflicts (advisory: exit 0)."""
    result = board.touch(_from_cwd(path), operation, agent, _from_cwd(old_path) if old_path else None, not no_check)
    payload = result.event["payload"]
    output(result, as_json, f"{payload['operation']} {payload['path']} ({payload['agent']})")
    if result.conflict and result.conflict.has_conflict and not as_json:
        others = ", ".join(result.conflict.conflicting_agents)
        click.echo(
            f"gridgit: warning: write conflict on {payload['path']} with {others} (see .grid/CHECKPOINT.md)", err=True
        )


@click.group("conflicts")
def conflicts() -> None:
    """Write conflicts (two agents changing one file within minutes) and predicted merge conflicts."""


conflicts.add_command(predict)


def _describe(result: Any) -> str:
    if not result.has_conflict:
        return f"no conflict on {result.path} for {result.agent} (window {result.window_minutes:g} min)"
    lines = [f"write conflict on {result.path} for {result.agent}:"]
    lines += [f"  {c['conflicting_agent']} {c['operation']} {c['path']} at {c['timestamp']}" for c in result.conflicts]
    return "\n".join(lines)


@conflicts.command("check")
@click.argument("path")
@agent_option
@click.option(
    "--window",
    type=FloatRange(min=0, min_open=True, max=1e6),
    default=None,
    metavar="MIN",
    help="Minutes to look back (config: conflicts.window_minutes).",
)
@json_option
@with_board
def check(board: Blackboard, path: str, agent: str | None, window: float | None, as_json: bool) -> int:
    """Exit 6 when another agent modified PATH within the window or holds an exclusive claim on it."""
    result = board.check_conflict(_from_cwd(path), agent, window)
    output(result, as_json, _describe)
    from gridgit.errors import ConflictFound

    return ConflictFound.exit_code if result.has_conflict else 0


@conflicts.command("list")
@json_option
@with_board
def list_conflicts(board: Blackboard, as_json: bool) -> None:
    """The open write conflicts recorded in .grid/CHECKPOINT.md."""
    found = board.open_conflicts()
    output(
        found, as_json, lambda f: "\n".join(f"{c['path']}: {', '.join(c['agents'])}" for c in f) or "no open conflicts"
    )


@conflicts.command("resolve")
@click.argument("paths", nargs=-1)
@click.option("--all", "everything", is_flag=True, help="Resolve every open conflict.")
@click.option("--note", default="", help="How it was resolved (goes into the event).")
@agent_option
@json_option
@with_board
def resolve(
    board: Blackboard, paths: tuple[str, ...], everything: bool, note: str, agent: str | None, as_json: bool
) -> None:
    """Close open conflicts in .grid/CHECKPOINT.md (the file goes when none is left)."""
    from gridgit.errors import BadInput

    if bool(paths) == everything:
        raise BadInput("give the paths to resolve, or --all")
    closed = board.resolve_conflicts([_from_cwd(p) for p in paths] or None, agent, note)
    output(closed, as_json, lambda c: f"{len(c)} conflict(s) resolved")


def _claim_line(claim: Any) -> str:
    kind = "shared"
    if claim.exclusive:
        behind = claim.behind
        kind = "exclusive" if behind is None else f"exclusive, waiting behind {behind.agent}'s {behind.pattern}"
    return f"{claim.pattern}  {claim.agent}  {kind}  until {claim.expires_at}"


def _claimed(result: Any) -> str:
    lines = [_claim_line(c) for c in result.granted]
    lines += [f"  {p} stays exclusive (renewed; `--shared` makes it shared)" for p in result.kept_exclusive]
    rule = "an exclusive claim the remote already holds comes first"
    lines += published_lines(result, "its place in the claims' order is settled", rule)
    return "\n".join(lines)


@click.command("claim")
@click.argument("patterns", nargs=-1, required=True, metavar="GLOB...")
@agent_option
@click.option(
    "--ttl",
    type=FloatRange(min=0, min_open=True, max=MAX_TTL_MINUTES),
    default=None,
    metavar="MIN",
    help="Minutes until the claim expires (config: claims.ttl_minutes).",
)
@click.option(
    "--exclusive/--shared",
    default=None,
    help="Exclusive: others writing these paths is a conflict, even before you modify them; shared: it only "
    "tells who is there (default: a new claim is shared, a renewed one stays as it was).",
)
@click.option("--reason", default="", help="Why (shown to other agents).")
@json_option
@with_board
def claim(
    board: Blackboard,
    patterns: tuple[str, ...],
    agent: str | None,
    ttl: float | None,
    exclusive: bool | None,
    reason: str,
    as_json: bool,
) -> int:
    """Claim paths or globs (advisory: a claim never blocks a write, conflict checks report it).

    Of two agents' overlapping exclusive claims, the first (on the remote, across clones) holds the
    paths and the other waits behind it until it is released or expires. With a remote, an exclusive
    claim is confirmed there first; one the remote could not confirm is provisional: exit 9.
    """
    result = board.claim([_from_cwd(p) for p in patterns], agent, ttl, exclusive, reason)
    output(result, as_json, _claimed)
    if result.conflicts and not as_json:
        for other in result.conflicts:
            click.echo(f"gridgit: warning: overlaps {_claim_line(other)}", err=True)
    from gridgit.errors import Provisional

    return Provisional.exit_code if result.provisional else 0


@click.command("release")
@click.argument("patterns", nargs=-1, metavar="[GLOB...]")
@click.option(
    "--holder", metavar="ID", help="Release another agent's claims (Master Control only; the holder is told)."
)
@agent_option
@json_option
@with_board
def release(board: Blackboard, patterns: tuple[str, ...], holder: str | None, agent: str | None, as_json: bool) -> None:
    """Release the agent's claims on GLOBs (all its claims when none is given).

    Master Control releases any agent's claims: every claim on the GLOBs it names, or with --holder
    that agent's (all of them when no GLOB is given); each holder's inbox says who released what,
    in its own clone after the next sync.
    """
    released = board.release([_from_cwd(p) for p in patterns] or None, agent, holder)
    output(released, as_json, lambda r: "\n".join([f"{len(r)} claim(s) released", *_released_lines(r)]))


def _released_lines(released: list[Any]) -> list[str]:
    return [f"  {c.pattern}  {c.agent}" for c in released]


@click.command("claims")
@click.option("--agent", "agent", default=None, help="Only this agent's claims.")
@json_option
@with_board
def claims(board: Blackboard, agent: str | None, as_json: bool) -> None:
    """The live (unexpired) claims of every agent."""
    found = board.claims(agent)
    output(found, as_json, lambda f: "\n".join(_claim_line(c) for c in f) or "no claims")
