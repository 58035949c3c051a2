"""`gridgit validate`, `gridgit hooks install|uninstall|status`, `gridgit hook NAME`, `gridgit merge-driver`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from gridgit.cli.common import json_option, output, with_board

# gridgit.git.hookrun.HOOKS's names (a test keeps them equal): listed here, so --help imports no hook code.
HOOK_NAMES = ("pre-commit", "post-commit", "post-merge", "post-rewrite", "post-checkout", "pre-push")

if TYPE_CHECKING:
    from gridgit.blackboard import Blackboard


@click.command("validate")
@click.argument("paths", nargs=-1, metavar="[PATH]...")
@click.option("--staged", is_flag=True, help="Check the versions staged for commit (the index), not the work tree.")
@json_option
@with_board
def validate(board: Blackboard, paths: tuple[str, ...], staged: bool, as_json: bool) -> int:
    """Check .grid/ files (all, or PATHS); exit 1 and one `file:line: message` line per problem."""
    problems = board.validate(list(paths) or None, staged)
    data = {"valid": not problems, "problems": problems}
    output(data, as_json, lambda d: "\n".join(str(p) for p in problems) if problems else "all .grid files are valid")
    return 1 if problems else 0


@click.group("hooks")
def hooks() -> None:
    """Install, remove or inspect gridgit's git hooks."""


def _status_text(report: Any) -> str:
    data = report.to_dict()
    lines = [f"hooks folder: {data['hooks_dir']}"]
    for name, info in data["hooks"].items():
        chained = " (chains your previous hook)" if info["chained"] else ""
        outdated = "" if info["current"] else " (from another gridgit version: run `gridgit hooks install`)"
        lines.append(f"  {name}: {'installed' if info['installed'] else 'not installed'}{chained}{outdated}")
    if data["merge_driver"] or data["attributes"]:
        lines.append("merge driver of an earlier gridgit: still registered (`gridgit migrate` removes it)")
    return "\n".join(lines)


@hooks.command("install")
@json_option
@with_board
def install(board: Blackboard, as_json: bool) -> None:
    """Install the hooks (keeping and chaining any hook already there)."""
    output(board.install_hooks(), as_json, _status_text)


@hooks.command("uninstall")
@json_option
@with_board
def uninstall(board: Blackboard, as_json: bool) -> None:
    """Remove gridgit's hooks, restoring the hooks that were there before."""
    output(board.uninstall_hooks(), as_json, _status_text)


@hooks.command("status")
@json_option
@with_board
def status(board: Blackboard, as_json: bool) -> None:
    """Which hooks are installed and which user hooks they chain."""
    output(board.hooks_status(), as_json, _status_text)


@click.command("hook", context_settings={"ignore_unknown_options": True})
@click.argument("name", type=click.Choice(HOOK_NAMES))
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def hook(name: str, args: tuple[str, ...]) -> int:
    """Run git's hook NAME by hand, with the ARGS git would pass (same code the installed shims run)."""
    from gridgit.git import hookrun

    return hookrun.main([name, *args])


@click.command("merge-driver")
@click.argument("base", metavar="%O")
@click.argument("ours", metavar="%A")
@click.argument("theirs", metavar="%B")
@click.argument("path", metavar="%P", required=False, default="")
def merge_driver(base: str, ours: str, theirs: str, path: str) -> int:
    """git's merge driver for .grid/ files: writes the merge into %A; exit 1 leaves conflict markers."""
    from gridgit.git import merge_driver as driver

    return driver.run(base, ours, theirs, path)
