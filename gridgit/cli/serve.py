"""`gridgit serve`: the live, read-only web view of the Blackboard."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from gridgit.cli.common import json_option, output, with_board

if TYPE_CHECKING:
    from gridgit.blackboard import Blackboard


@click.command("serve")
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help="Address to listen on; any but a loopback address exposes the page to your network.",
)
@click.option(
    "--port", type=click.IntRange(0, 65535), default=8765, show_default=True, help="TCP port (0: any free one)."
)
@click.option("--open", "open_page", is_flag=True, help="Open the page in your web browser.")
@json_option
@with_board
def serve(board: Blackboard, host: str, port: int, open_page: bool, as_json: bool) -> None:
    """Serve a live web view of the mission until Ctrl-C: agents, entries, conflicts, claims, learnings, events.

    Read-only: the page and its JSON API (/api/...) change nothing. The page updates itself
    from the event log (Server-Sent Events). Prints the URL (with --json: {"url", "host",
    "port"}) once listening; Ctrl-C or SIGTERM stops it with exit code 0.
    """
    from gridgit.serve import server as server_mod

    server = server_mod.bind(board.layout, host, port)
    if not server.loopback:
        click.echo(
            f"gridgit: warning: serve is listening on {host}, reachable from other machines with no login; "
            "the Blackboard may hold sensitive text (redaction is best-effort)",
            err=True,
        )

    def ready(url: str) -> None:
        info = {"url": url, "host": server.server_name, "port": server.server_port}
        output(info, as_json, f"gridgit serve: {url} (read-only; Ctrl-C to stop)")
        note = server_mod.open_browser(url) if open_page else None
        if note:
            click.echo(f"gridgit serve: {note}", err=True)

    server_mod.run(server, ready)
