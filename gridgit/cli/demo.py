"""`gridgit demo`: watch gridgit do its whole job in a fresh repository."""

from __future__ import annotations

from pathlib import Path

import click

from gridgit.cli.common import json_option, output


@click.command("demo")
@click.option("--agents", type=click.IntRange(2, 12), default=4, show_default=True, help="Agent processes to run.")
@click.option(
    "--phases",
    type=click.IntRange(2, 5),
    default=2,
    show_default=True,
    help="Phases in the plan (all but the last get completed).",
)
@click.option(
    "--dir",
    "folder",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Run in this new or empty folder (repo/ and worktrees/ inside) and keep it.",
)
@click.option("--keep", is_flag=True, help="Keep the temporary folder to look around afterwards.")
@json_option
def demo(agents: int, phases: int, folder: Path | None, keep: bool, as_json: bool) -> None:
    """Run a real mission in a fresh repository: agents in linked worktrees, a write conflict, a phase commit.

    Creates a git repository (in a temporary folder unless --dir), runs `gridgit init` with hooks,
    starts the watcher daemon, and lets N agent processes (executor, recognizer, memory, scout, ...),
    each in its own worktree, write to the shared Blackboard and commit; then merges their branches
    and completes phase 1 with a `Grid-Phase-Complete:` commit. Ends with a summary read back from
    the repository; fails (exit 1) naming the step whose result is missing.
    """
    from gridgit.demo import mission as demo_mod
    from gridgit.demo import verify

    def progress(line: str) -> None:
        click.echo(line, err=as_json)

    summary = demo_mod.run(agents, phases, folder, keep, progress)
    output(summary, as_json, verify.render)
