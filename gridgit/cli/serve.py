"""`gridgit serve`: the live web view of the Blackboard, and Master Control's console."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import click

from gridgit.cli.common import envelope, json_option, with_board

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
@click.option(
    "--as",
    "actor",
    metavar="ID",
    help="The Master Control id you act as, e.g. mc-ana (default: mc- and your git user.name).",
)
@click.option("--read-only", is_flag=True, help="A window only: the page and its API change nothing.")
@click.option(
    "--token",
    envvar="GRIDGIT_SERVE_TOKEN",
    metavar="TEXT",
    help="The secret each action must carry (default: a new random one per run; empty: none, loopback only).",
)
@click.option("--open", "open_page", is_flag=True, help="Open the page in your web browser.")
@json_option
@with_board
def serve(
    board: Blackboard,
    host: str,
    port: int,
    actor: str | None,
    read_only: bool,
    token: str | None,
    open_page: bool,
    as_json: bool,
) -> None:
    """Serve a live web view of the mission until Ctrl-C, from which you act as Master Control.

    The page shows agents, the blocks' board, open work, entries, conflicts, claims, messages,
    learnings and live events (Server-Sent Events), and acts: answer, resolve, message, plan,
    approve, assign, release, complete a phase, promote, set the mode, each the library call the
    CLI makes, as --as. Actions need the per-run token in the URL it prints (with --json:
    {"url", "host", "port", "actor", "read_only"}); --read-only changes nothing. Ctrl-C or
    SIGTERM stops it with exit code 0.
    """
    from gridgit.serve import guard
    from gridgit.serve import server as server_mod

    if read_only and (actor is not None or token is not None):
        raise click.UsageError("--read-only acts as nobody: --as and --token do not go with it")
    who = None if read_only else guard.actor(board.layout, actor)
    secret = None if read_only or token == "" else guard.check_token(token) if token else guard.new_token()
    server = server_mod.bind(board.layout, host, port, who, secret)
    if not server.loopback:
        click.echo(
            f"gridgit: warning: serve is listening on {host}, reachable from other machines; the page's reads need "
            "no login, and the Blackboard may hold sensitive text (redaction is best-effort)",
            err=True,
        )

    def ready(url: str) -> None:
        info = {"url": url, "host": server.server_name, "port": server.server_port, "actor": who,
                "read_only": server.read_only}  # fmt: skip
        # Printed as it is, not through output(): redaction would blank the token, which is the person's to use.
        if as_json:
            click.echo(json.dumps(envelope(info)))
        else:
            how = "read-only" if server.read_only else f"acting as {who}"
            click.echo(f"gridgit serve: {url} ({how}; Ctrl-C to stop)")
        note = server_mod.open_browser(url) if open_page else None
        if note:
            click.echo(f"gridgit serve: {note}", err=True)

    server_mod.run(server, ready)
