"""`gridgit mcp`: the Blackboard as an MCP server over stdio (needs the extra: pip install 'gridgit[mcp]')."""

from __future__ import annotations

from pathlib import Path

import click

from gridgit.errors import GridError


@click.command("mcp")
@click.option(
    "--repo",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    default=".",
    show_default=True,
    help="The repository whose Blackboard to serve.",
)
def mcp(repo: Path) -> None:
    """Serve the Blackboard to an MCP client over stdin/stdout until it disconnects.

    Tools: start_session, write_entry, read_entries, heartbeat, touch_file, claim_paths,
    release_paths, read_inbox, send, ack, resolve, search, ready, take, complete_block,
    report_usage. Resources: grid://state, grid://learnings, grid://checkpoint, grid://blocks.
    The agent is $GRID_AGENT_ID (set it in the client's config). See docs/mcp.md.
    """
    from gridgit.store.layout import Layout

    Layout.find(repo)  # a repository, refused now rather than on every call (its .grid/ may come later)
    # The SDK is an optional extra and costs about a second to import: only this command loads it.
    try:
        from gridgit.mcp import server
    except ModuleNotFoundError as exc:
        if (exc.name or "").partition(".")[0] != "mcp":
            raise
        raise GridError("the MCP server needs the mcp extra: pip install 'gridgit[mcp]'") from None

    server.run(repo.resolve())
