"""`gridgit state show|update` and `gridgit status`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from gridgit.cli.common import agent_option, json_option, output, until_interrupted, with_board

if TYPE_CHECKING:
    from gridgit.blackboard import Blackboard


@click.group("state")
def state() -> None:
    """Read and update STATE.md (L3, the mission's shared registers)."""


@state.command("show")
@click.option("--field", "field", metavar="DOTTED.PATH", help="Print one field, e.g. position.phase_id.")
@json_option
@with_board
def show(board: Blackboard, field: str | None, as_json: bool) -> None:
    """Print STATE.md's frontmatter (or one field of it)."""
    from gridgit.store import frontmatter

    data = board.state_field(field) if field else board.state()
    output(data, as_json, lambda d: frontmatter.dump_yaml(d).rstrip("\n"))


def _parse_assignment(text: str, option: str = "--set") -> tuple[str, Any]:
    from gridgit.errors import BadInput
    from gridgit.store import frontmatter

    dotted, sep, raw = text.partition("=")
    if not sep or not dotted.strip():
        raise BadInput(f"{option} {text!r}: expected {'dotted.path' if option == '--set' else 'LIST'}=VALUE")
    return dotted.strip(), frontmatter.load_yaml(raw, f"{option} {dotted}", 0)


def _list_changes(adds: tuple[str, ...], updates: tuple[str, ...], removes: tuple[str, ...]) -> list[Any]:
    from gridgit.model.state_lists import ListChange

    changes = [ListChange.add(*_parse_assignment(a, "--add")) for a in adds]
    changes += [ListChange.update(*_parse_assignment(u, "--update")) for u in updates]
    for text in removes:
        path, sep, item_id = text.partition("=")
        if not sep or not path.strip():
            from gridgit.errors import BadInput

            raise BadInput(f"--remove {text!r}: expected LIST=ID")
        changes.append(ListChange.remove(path.strip(), item_id))
    return changes


@state.command("update")
@click.option(
    "--set",
    "assignments",
    multiple=True,
    metavar="PATH=VALUE",
    help="Set one field; VALUE is YAML (3 is a number, [a, b] a list, which replaces the whole list). Repeatable.",
)
@click.option(
    "--add", "adds", multiple=True, metavar="LIST=YAML", help="Add one item to a list, e.g. blockers='{id: b1}'."
)
@click.option(
    "--update", "updates", multiple=True, metavar="LIST=YAML", help="Merge fields into the list item with that id."
)
@click.option("--remove", "removes", multiple=True, metavar="LIST=ID", help="Remove the list item with that id.")
@click.option("--json", "json_object", metavar="OBJECT", help="A JSON object deep-merged into STATE.")
@agent_option
@with_board
def update(
    board: Blackboard,
    assignments: tuple[str, ...],
    adds: tuple[str, ...],
    updates: tuple[str, ...],
    removes: tuple[str, ...],
    json_object: str | None,
    agent: str | None,
) -> None:
    """Update STATE.md under its lock, as the agent's type allows.

    --add, --update and --remove change one item of a list (agents.active, blockers,
    warnings, ...) as it is under the lock, so concurrent writers lose nothing; --set with a
    list value replaces the whole list.
    """
    from gridgit.errors import BadInput

    by_path = bool(assignments or adds or updates or removes)
    if by_path == bool(json_object):
        raise BadInput("give either --set/--add/--update/--remove ... or --json OBJECT")
    if json_object:
        from gridgit.store import config

        new = board.update_state(config.json_object(json_object, "--json"), agent)
    else:
        changes = _list_changes(adds, updates, removes)
        new = board.set_state(dict(_parse_assignment(a) for a in assignments), agent, changes)
    output(new, False, f"STATE.md updated at {new['updated_at']}")


@click.command("status")
@click.option("--watch", "live", is_flag=True, help="Refresh the dashboard until Ctrl-C or SIGTERM (exit 130).")
@click.option(
    "--interval", type=click.FloatRange(min=0.1), default=2.0, show_default=True, help="Seconds between refreshes."
)
@click.option("--count", type=click.IntRange(min=1), default=None, help="With --watch: stop after N refreshes.")
@json_option
@with_board
def status(board: Blackboard, live: bool, interval: float, count: int | None, as_json: bool) -> None:
    """The mission dashboard: progress, position, agents and heartbeats, blockers, conflicts, events.

    With --watch the screen is redrawn every --interval seconds (with --json: one envelope per line).
    """
    from gridgit.views import status as status_mod

    if not live:
        output(board.status(), as_json, status_mod.render)
        return

    def show(data: dict[str, Any]) -> None:
        if not as_json:
            click.clear()
        output(data, as_json, status_mod.render)

    until_interrupted()
    status_mod.watch(board.status, show, interval, count)
