"""`gridgit doctor`: check the set-up and say what fixes each problem."""

from __future__ import annotations

import click

from gridgit.cli.common import json_option, output


@click.command("doctor")
@click.option(
    "--repair", is_flag=True, help="Bring back every damaged or missing .grid/ file (`gridgit restore --all`)."
)
@json_option
def doctor(repair: bool, as_json: bool) -> int:
    """Check git, hooks, .grid/ kept out of the code branches, daemon, .grid/ files, index drift, stale agents and locks.

    Exits 1 when something needs fixing and prints the command that fixes it; a daemon that
    is not running is reported, not an error.
    """
    from gridgit.views import doctor as doctor_mod

    if repair:
        from gridgit.blackboard import Blackboard
        from gridgit.views.repair import nothing_done, repaired

        done = Blackboard().repair()
        lines = [str(r) for r in done]
        if nothing_done(done):
            lines.insert(0, "nothing to repair: every .grid/ file is as its history has it")
        output({"repaired": done}, as_json, "\n".join(lines))
        return 0 if repaired(done) else 1
    report = doctor_mod.run()
    output(report, as_json, lambda r: r.render())
    return 0 if report.healthy else 1
