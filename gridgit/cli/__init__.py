"""The command line (layer 4, interface): a thin click shell over gridgit.Blackboard.

main.py is the lazy group and the one error boundary (GridError -> exit code); each other
module holds one command group. Commands parse, call one library function and format; they
may import anything below, and nothing imports them.
"""

from __future__ import annotations

import sys


def entry() -> None:
    """The `gridgit` console script: agent-tool hooks and the status line straight to their entry point.

    They run on every prompt and edit of every agent: without click's start-up (or this
    package's main module), `gridgit agent-hook TOOL EVENT` costs what its fast path costs.
    Everything else is the CLI.
    """
    args = sys.argv[1:]
    if args[:1] in (["agent-hook"], ["statusline"]) and not any(a.startswith("-") for a in args[1:]):
        from gridgit.agents.hook import run

        run(args[1:] if args[0] == "agent-hook" else args)
    from gridgit.cli.main import main as cli

    cli()
