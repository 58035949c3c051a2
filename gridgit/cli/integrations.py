"""`gridgit setup TOOL`, `gridgit agent-hook TOOL EVENT` and `gridgit statusline`: the agent tools."""

from __future__ import annotations

from typing import Any

import click

from gridgit.agents.capabilities import TOOLS
from gridgit.cli.common import json_option, output

TOOL_CHOICE = click.Choice(list(TOOLS))


@click.command("setup")
@click.argument("tool", type=TOOL_CHOICE)
@click.option("--local", is_flag=True, help="Claude Code: .claude/settings.local.json (not committed).")
@click.option("--remove", is_flag=True, help="Take gridgit's hooks out again (the file as it was before).")
@click.option("--check", is_flag=True, help="Exit 1 when gridgit's hooks are missing or outdated.")
@click.option("--mcp", is_flag=True, help="Also add gridgit's MCP server to the tool's project MCP config.")
@click.option("--agent", "agent", metavar="ID", help="With --mcp: the MCP server's GRID_AGENT_ID.")
@click.option("--all-worktrees", "all_worktrees", is_flag=True, help="In every worktree of the repository.")
@click.option(
    "--instructions",
    is_flag=True,
    help="Also write gridgit's short instructions into the file TOOL reads (CLAUDE.md, AGENTS.md, GEMINI.md ...).",
)
@json_option
def setup(
    tool: str,
    local: bool,
    remove: bool,
    check: bool,
    mcp: bool,
    agent: str | None,
    all_worktrees: bool,
    instructions: bool,
    as_json: bool,
) -> int:
    """Merge gridgit's hooks into TOOL's project config (claude, codex, gemini, cursor, copilot, opencode).

    With --mcp, gridgit's MCP server too (docs/mcp.md); with --instructions, a marked section
    of instructions in the file TOOL reads every session (docs/agent-tools.md). --remove takes
    out all of gridgit's entries, hooks, server and instructions. --all-worktrees does it in
    every worktree of the repository (a worktree made later gets the hooks from git's
    post-checkout hook).
    """
    from gridgit.agents import mcpconfig
    from gridgit.agents import setup as agent_setup
    from gridgit.errors import BadInput
    from gridgit.store.layout import Layout

    if remove and check:
        raise BadInput("--remove and --check do not go together")
    if agent and not mcp:
        raise BadInput("--agent goes with --mcp (the MCP server's identity)")
    if mcp and local:
        raise BadInput("--mcp writes the project's MCP config, not .claude/settings.local.json: drop --local")
    if mcp and tool not in mcpconfig.FILES:
        raise BadInput(
            f"--mcp: gridgit writes its MCP server into the configs of {', '.join(mcpconfig.FILES)}, not {tool}'s"
        )
    here = Layout.find()
    reports: list[Any] = []
    for layout in agent_setup.worktrees(here) if all_worktrees else [here]:
        if remove:
            found = mcpconfig.remove_all(layout, tool, local)
            reports += found if mcp or all_worktrees else found[:1]
        elif mcp:
            reports += mcpconfig.check_all(layout, tool, agent) if check else mcpconfig.setup_all(layout, tool, agent)
        elif check:
            reports.append(agent_setup.runs(layout, tool, local))
        else:
            reports.append(agent_setup.install(layout, tool, local))
        reports += _instructions(layout, tool, instructions, check, remove)
    lines = "\n".join(_line(tool, r, check, remove) for r in reports)
    output(reports if mcp or all_worktrees or instructions else reports[0], as_json, lines)
    for warning in dict.fromkeys(w for r in reports for w in getattr(r, "warnings", [])):
        click.echo(f"gridgit: warning: {tool}: {warning}", err=True)  # stderr, as every warning (docs/cli.md)
    return 0 if not check or all(r.installed and not getattr(r, "steps", []) for r in reports) else 1


def _instructions(layout: Any, tool: str, wanted: bool, check: bool, remove: bool) -> list[Any]:
    """The instructions' report for LAYOUT: set up or checked when WANTED, taken out with every --remove."""
    from gridgit.agents import instructions

    if remove:
        return [r for r in [instructions.remove(layout, tool)] if r is not None]
    if not wanted:
        return []
    text = instructions.section()
    return [instructions.check(layout, tool, text) if check else instructions.install(layout, tool, text)]


def _line(tool: str, report: Any, check: bool, remove: bool) -> str:
    kept = f" (kept your own {', '.join(report.kept)})" if report.kept else ""
    if remove:
        return f"{tool}: {'removed gridgit from' if report.changed else 'no gridgit entries in'} {report.path}"
    after = [
        *(f"{tool}: {n}" for n in getattr(report, "notes", [])),
        *(f"{tool}: one step left: {step}" for step in getattr(report, "steps", [])),
    ]
    if check:
        state = "current" if report.installed else "outdated" if report.outdated else "missing"
        return "\n".join([f"{tool}: gridgit's entries in {report.path} are {state}{kept}", *after])
    did = "wrote gridgit's entries into" if report.changed else "gridgit's entries already current in"
    return "\n".join([f"{tool}: {did} {report.path}{kept}", *after])


@click.command("agent-hook", context_settings={"ignore_unknown_options": True})
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def agent_hook(args: tuple[str, ...]) -> int:
    """Run an agent tool's hook: TOOL EVENT, the tool's JSON on stdin (what `gridgit setup` installs)."""
    from gridgit.agents.hook import main

    return main(list(args))


@click.command("statusline")
def statusline() -> int:
    """One status line for Claude Code (its JSON on stdin): phase, agent, agents, conflicts, inbox."""
    from gridgit.agents import statusline as line

    return line.main([])
