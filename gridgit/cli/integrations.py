"""`gridgit setup TOOL`, `gridgit agent-hook TOOL EVENT` and `gridgit statusline`: the agent tools."""

from __future__ import annotations

import click

from gridgit.cli.common import json_option, output

TOOL_CHOICE = click.Choice(["claude", "codex", "gemini", "cursor"])


@click.command("setup")
@click.argument("tool", type=TOOL_CHOICE)
@click.option("--local", is_flag=True, help="Claude Code: .claude/settings.local.json (not committed).")
@click.option("--remove", is_flag=True, help="Take gridgit's hooks out again (the file as it was before).")
@click.option("--check", is_flag=True, help="Exit 1 when gridgit's hooks are missing or outdated.")
@json_option
def setup(tool: str, local: bool, remove: bool, check: bool, as_json: bool) -> int:
    """Merge gridgit's hooks into TOOL's project config (claude, codex, gemini, cursor)."""
    from gridgit.agents import setup as agent_setup
    from gridgit.errors import BadInput
    from gridgit.store.layout import Layout

    if remove and check:
        raise BadInput("--remove and --check do not go together")
    layout = Layout.find()
    if check:
        report = agent_setup.check(layout, tool, local)
        state = "current" if report.installed else "outdated" if report.outdated else "missing"
        output(report, as_json, f"{tool}: gridgit's hooks in {report.path} are {state}")
        return 0 if report.installed else 1
    if remove:
        report = agent_setup.remove(layout, tool, local)
        output(
            report,
            as_json,
            f"{tool}: {'removed gridgit from' if report.changed else 'no gridgit hooks in'} {report.path}",
        )
        return 0
    report = agent_setup.install(layout, tool, local)
    kept = f" (kept your own {', '.join(report.kept)})" if report.kept else ""
    did = "wrote gridgit's hooks into" if report.changed else "gridgit's hooks already current in"
    output(report, as_json, f"{tool}: {did} {report.path}{kept}")
    return 0


@click.command("agent-hook", context_settings={"ignore_unknown_options": True})
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def agent_hook(args: tuple[str, ...]) -> int:
    """Run an agent tool's hook: TOOL EVENT, the tool's JSON on stdin (what `gridgit setup` installs)."""
    from gridgit.agents.runner import main

    return main(list(args))


@click.command("statusline")
def statusline() -> int:
    """One status line for Claude Code (its JSON on stdin): phase, agent, agents, conflicts, inbox."""
    from gridgit.agents import statusline as line

    return line.main([])
