"""`gridgit search`: one ranked full-text search over everything the Blackboard holds."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from gridgit.cli.common import json_option, output, with_part
from gridgit.search.query import MAX_LIMIT
from gridgit.search.sources import KINDS

if TYPE_CHECKING:
    from gridgit.api.search import SearchAPI


@click.command("search")
@click.argument("query", nargs=-1)
@click.option("--category", "-c", metavar="CATEGORY", help="Only entries (and learnings) of this category.")
@click.option("--agent", metavar="AGENT", help="Only what this agent wrote or was merged into.")
@click.option("--phase", metavar="PHASE", help="Only this phase's entries, learnings and compressed file.")
@click.option(
    "--file", "file", metavar="PATH", help="Only what cites this file (a folder ending in /: any file in it)."
)
@click.option("--since", metavar="WHEN", help="Only what was written since: a date, a timestamp, or 30m, 2h, 7d.")
@click.option("--kind", "kinds", multiple=True, type=click.Choice(KINDS), help="Only these kinds of document.")
@click.option(
    "--limit", "-n", type=click.IntRange(1, MAX_LIMIT), default=20, show_default=True, help="At most this many hits."
)
@json_option
@with_part("gridgit.api.search", "SearchAPI")
def search(
    board: SearchAPI,
    query: tuple[str, ...],
    category: str | None,
    agent: str | None,
    phase: str | None,
    file: str | None,
    since: str | None,
    kinds: tuple[str, ...],
    limit: int,
    as_json: bool,
) -> None:
    """Search the live scratchpads, the archives, LEARNINGS.md, memory/ and block plans, best first (BM25).

    QUERY: words that must all occur; "a phrase"; prefix*; OR between terms; NOT word (or
    -word after `--`). Without a word, what the filters let through, newest first.
    """
    result = board.search(" ".join(query), category, agent, phase, file, since, limit, list(kinds))
    output(result, as_json, lambda r: r.render())
