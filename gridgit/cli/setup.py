"""`gridgit init`."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from gridgit.cli.common import json_option, output, with_board

if TYPE_CHECKING:
    from gridgit.blackboard import Blackboard


@click.command("init")
@click.option("--mission", help="Mission name (default: the repository folder's name).")
@click.option("--phase", "phases", multiple=True, metavar="ID[:NAME]", help="A phase; repeat for several.")
@click.option("--force", is_flag=True, help="Re-create missing pieces of an existing .grid/ (never overwrites).")
@click.option("--no-hooks", "no_hooks", is_flag=True, help="Do not install the git hooks.")
@json_option
@with_board
def init(
    board: Blackboard, mission: str | None, phases: tuple[str, ...], force: bool, no_hooks: bool, as_json: bool
) -> None:
    """Create .grid/ in this repository (run it again: nothing changes)."""
    result = board.init(mission, list(phases), force, hooks=not no_hooks)
    data = {
        "grid": str(result.grid),
        "created": result.created,
        "changed": result.changed,
        "hooks": result.hooks,
        "advice": result.advice,
    }
    message = "\n".join(
        [
            f"{result.grid}: created " + ", ".join(result.created)
            if result.created
            else f"{result.grid}: already initialised, nothing changed",
            *result.advice,
        ]
    )
    output(data, as_json, message)
