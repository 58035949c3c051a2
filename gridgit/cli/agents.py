"""`gridgit agent register|done|list`, `gridgit inbox` and `gridgit resolve`: agents working together."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from gridgit.cli.common import (
    agent_option,
    completes,
    count,
    json_option,
    output,
    phase_option,
    read_content,
    with_board,
)

if TYPE_CHECKING:
    from gridgit.blackboard import Blackboard

acting_option = click.option(
    "--agent",
    "agent",
    envvar="GRID_AGENT_ID",
    default=None,
    help="Who does it: the agent itself (default: $GRID_AGENT_ID, else ID) or Master Control (mc).",
)


@click.group("agent")
def agent() -> None:
    """The agent lifecycle: register, finish, list (STATE agents.active and agents.completed)."""


@agent.command("register")
@click.argument("agent_id", metavar="[ID]", required=False, shell_complete=completes("agents"))
@click.option("--task", metavar="TEXT", help="What the agent works on.")
@click.option("--block", metavar="BLOCK", help="Its block, e.g. 01-02 (handoffs to the block reach its inbox).")
@click.option(
    "--worktree",
    metavar="PATH",
    help="Its worktree, so the watcher attributes edits there to it (default: the current linked worktree).",
)
@acting_option
@json_option
@with_board
def register(
    board: Blackboard,
    agent_id: str | None,
    task: str | None,
    block: str | None,
    worktree: str | None,
    agent: str | None,
    as_json: bool,
) -> None:
    """Register agent ID (`{type}-{id}`, default $GRID_AGENT_ID) as active; again: update what changed."""
    result = board.register_agent(agent_id, task, block, worktree, agent)
    a = result.agent
    words = {"registered": "registered", "updated": "registration updated", "unchanged": "already registered"}
    where = "".join(f", {k} {a[k]}" for k in ("block", "worktree") if a.get(k))
    output(result, as_json, f"{a['id']} {words[result.action]} ({a.get('task') or 'no task'}{where})")


@agent.command("done")
@click.argument("agent_id", metavar="[ID]", required=False, shell_complete=completes("agents"))
@click.option("--summary", metavar="TEXT", help="What it did (`-` reads standard input).")
@click.option(
    "--result",
    type=click.Choice(["success", "failed", "cancelled"]),
    default="success",
    show_default=True,
    help="How it ended.",
)
@acting_option
@json_option
@with_board
def done(
    board: Blackboard, agent_id: str | None, summary: str | None, result: str, agent: str | None, as_json: bool
) -> None:
    """Mark agent ID finished: it moves to agents.completed and its claims are released."""
    finished = board.finish_agent(agent_id, read_content(summary), result, agent)
    a = finished.agent
    if finished.action == "already-done":
        text = f"{a['id']} was already done ({a.get('result') or 'finished'}): nothing changed"
    else:
        released = f", {len(finished.released)} claim(s) released" if finished.released else ""
        seconds = f" after {a['duration_seconds']}s" if a.get("duration_seconds") is not None else ""
        text = f"{a['id']} done ({result}{seconds}){released}"
    output(finished, as_json, text)


def _agent_line(row: dict[str, Any]) -> str:
    from gridgit.views.status import age

    level = row.get("warning_level") or "?"
    heard = "-" if level == "n/a" else f"heartbeat {age(row.get('minutes_since'))}"
    block = f" [{row['block']}]" if row.get("block") else ""
    return f"{row['id']:<18} {level:<8} {heard:<22} {row.get('task') or ''}{block}".rstrip()


@agent.command("list")
@json_option
@with_board
def list_agents(board: Blackboard, as_json: bool) -> None:
    """The registered agents with their heartbeat health, and the finished ones."""

    def human(data: dict[str, list[dict[str, Any]]]) -> str:
        lines = [f"Active ({len(data['active'])}):", *(f"  {_agent_line(r)}" for r in data["active"])]
        lines += [f"Completed ({len(data['completed'])}):"]
        lines += [
            f"  {a['id']:<18} {a.get('result') or '-':<8} {a.get('summary') or ''}".rstrip() for a in data["completed"]
        ]
        return "\n".join(lines)

    output(board.agents(), as_json, human)


@click.command("inbox")
@agent_option
@click.option("--peek", is_flag=True, help="Show what is new without marking it as seen.")
@click.option("--limit", type=count(1), default=None, help="At most N items; the rest wait.")
@json_option
@with_board
def inbox(board: Blackboard, agent: str | None, peek: bool, limit: int | None, as_json: bool) -> None:
    """What is new for the agent since it last looked, each thing once.

    Entries on its subscribed topics, handoffs to it or its block, write conflicts and
    claims on its files, resolutions of its blockers and questions, phase changes.
    """
    items = board.inbox(agent, peek, limit)
    who = board.agent(agent)
    output(items, as_json, lambda found: "\n".join(f"- {i.summary}" for i in found) or f"nothing new for {who}")


@click.command("confirm")
@click.argument("entry_id", metavar="ENTRY_ID")
@click.option("--note", default="", metavar="TEXT", help="What you saw that confirms it (`-` reads standard input).")
@agent_option
@phase_option
@json_option
@with_board
def confirm(board: Blackboard, entry_id: str, note: str, agent: str | None, phase: str | None, as_json: bool) -> None:
    """Confirm another agent's entry (5, 02-core#5, or its stable id): you met what it says.

    Recorded on the entry (`**Validated:**`, once per agent, never by its author) and as an
    event. A HIGH pattern, gotcha or discovery reaches LEARNINGS.md at phase end once
    `promotion.min_validations` agents (config.json, default 3) confirmed it.
    """
    result = board.confirm(entry_id, phase, read_content(note) or "", agent)
    count = len(result.validations)
    state = "was already confirmed by you" if result.already else "confirmed"
    output(result, as_json, f"{result.entry_ref} ({result.category} | {result.topic}) {state}: {count} validation(s)")


@click.command("resolve")
@click.argument("entry_id", metavar="ENTRY_ID", shell_complete=completes("entries"))
@click.option("--note", default="", metavar="TEXT", help="How it was resolved (`-` reads standard input).")
@click.option("--answer", default="", metavar="TEXT", help="The answer to a question (`-` reads standard input).")
@agent_option
@phase_option
@json_option
@with_board
def resolve(
    board: Blackboard, entry_id: str, note: str, answer: str, agent: str | None, phase: str | None, as_json: bool
) -> None:
    """Resolve open work: a blocker, question, warning or handoff (taken by its recipient),
    as an entry (5, 02-core#5, or its stable id, also for an archived one) or a STATE blocker.

    The entry records who, when and how; its author hears of it (inbox). A blocker entry and
    the STATE blocker it added are resolved together. A resolved item is no longer open in
    status or context and is not carried into the next phase.
    """
    result = board.resolve(entry_id, phase, read_content(note) or "", read_content(answer) or "", agent)
    where = result.entry_ref or f"STATE blocker {result.id}"
    if result.already:
        by = result.resolution["by"]
        how = f" by {by} at {result.resolution['at']}" if by else " (tagged resolved)"
        text = f"{where} was already resolved{how}: nothing changed"
    else:
        text = f"{where} ({result.category}) {'taken' if result.category == 'handoff' else 'resolved'}"
    output(result, as_json, text)
