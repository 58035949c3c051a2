"""`gridgit state show|update`, `gridgit status` and `gridgit resume`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from gridgit.cli.common import FloatRange, agent_option, count, json_option, output, until_interrupted, with_board

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


# `--json` alone asks for the envelope; `--json OBJECT` is the input it meant in earlier versions.
# A NUL cannot reach argv, so no OBJECT is ever taken for the flag.
_JSON_FLAG = "\x00json"


def _json_flag(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    from gridgit.cli import common

    common.json_mode = common.json_mode or value == _JSON_FLAG
    return value


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
@click.option("--set-json", "json_object", metavar="OBJECT", help="A JSON object deep-merged into STATE.")
@click.option(
    "--json",
    "json_flag",
    is_flag=False,
    flag_value=_JSON_FLAG,
    default=None,
    metavar="",
    callback=_json_flag,
    help="Print a JSON envelope for programs. (`--json OBJECT`, the input of earlier versions, still works: "
    "use --set-json.)",
)
@agent_option
@with_board
def update(
    board: Blackboard,
    assignments: tuple[str, ...],
    adds: tuple[str, ...],
    updates: tuple[str, ...],
    removes: tuple[str, ...],
    json_object: str | None,
    json_flag: str | None,
    agent: str | None,
) -> None:
    """Update STATE.md under its lock, as the agent's type allows.

    --add, --update and --remove change one item of a list (agents.active, blockers,
    warnings, ...) as it is under the lock, so concurrent writers lose nothing; --set with a
    list value replaces the whole list.
    """
    from gridgit.errors import BadInput

    as_json, source = json_flag == _JSON_FLAG, "--set-json"
    deprecated = json_flag is not None and not as_json
    if deprecated:
        if json_object is not None:
            raise BadInput("give --set-json OBJECT once")
        json_object, source = json_flag, "--json"
    by_path = bool(assignments or adds or updates or removes)
    if by_path == (json_object is not None):
        raise BadInput("give either --set/--add/--update/--remove ... or --set-json OBJECT")
    if json_object is not None:
        from gridgit.store import config

        new = board.update_state(config.json_object(json_object, source), agent)
    else:
        changes = _list_changes(adds, updates, removes)
        new = board.set_state(dict(_parse_assignment(a) for a in assignments), agent, changes)
    output(new, as_json, f"STATE.md updated at {new['updated_at']}")
    if deprecated:  # after the answer: an error stays one line
        click.echo("gridgit: warning: `state update --json OBJECT` is deprecated: use --set-json OBJECT", err=True)


@click.command("status")
@click.option("--watch", "live", is_flag=True, help="Refresh the dashboard until Ctrl-C or SIGTERM (exit 130).")
@click.option(
    "--interval", type=FloatRange(min=0.1, max=3600), default=2.0, show_default=True, help="Seconds between refreshes."
)
@click.option("--count", type=count(1), default=None, help="With --watch: stop after N refreshes.")
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


@click.command("resume")
@json_option
@with_board
def resume(board: Blackboard, as_json: bool) -> None:
    """Where a restarted Master Control picks up: the phase and block, the blocks held (and by
    whom, quiet or not), what is ready, the open work, the agents that were active, the last
    checkpoint, and the next command."""
    from gridgit.views import resume as resume_mod

    output(board.resume(), as_json, resume_mod.render)
