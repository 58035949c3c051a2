"""`gridgit send`, `gridgit ack` and `gridgit thread`: messages between agents."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from gridgit.cli.common import agent_option, completes, json_option, output, read_content, with_part

if TYPE_CHECKING:
    from gridgit.api.messages import MessagesAPI

with_messages = with_part("gridgit.api.messages", "MessagesAPI")


@click.command("send")
@click.option("--to", "to", required=True, metavar="AGENT|BLOCK|@all", help="An agent id, a block (01-02) or @all.")
@click.option(
    "--content", required=True, metavar="TEXT", help="The message (`-` reads standard input; 16 KiB at most)."
)
@click.option("--thread", metavar="ID", help="Answer in this thread: a message's id, or a thread name of yours.")
@agent_option
@json_option
@with_messages
def send(board: MessagesAPI, to: str, content: str, thread: str | None, agent: str | None, as_json: bool) -> None:
    """Send a message to an agent, a block or @all; it waits in their inbox until they ack it.

    A message to an agent or block nobody registered yet is held for them. Scouts may not
    message @all.
    """
    sent = board.send(to, read_content(content) or "", thread, agent)
    m = sent.message
    held = f"; held: no registered agent is {m.to} yet" if sent.held else ""
    thread_note = f" in thread {m.thread}" if m.thread != m.id else ""
    output(sent, as_json, f"sent {m.id} to {m.to}{thread_note}{held}")


@click.command("ack")
@click.argument("message_id", metavar="MESSAGE_ID", shell_complete=completes("messages"))
@agent_option
@json_option
@with_messages
def ack(board: MessagesAPI, message_id: str, agent: str | None, as_json: bool) -> None:
    """Acknowledge a message to you: it leaves your inbox (only an addressee may)."""
    acked = board.ack(message_id, agent)
    m = acked.message
    text = f"{m.id} was already acknowledged by {acked.agent}" if acked.already else f"{m.id} acknowledged"
    output(acked, as_json, text)


def _thread_text(found: list[Any]) -> str:
    lines = []
    for m in found:
        acks = ", ".join(f"{who} {at}" for who, at in sorted(m.acks.items())) or "none"
        lines += [f"## {m.id} [{m.sent_at}] {m.sender} -> {m.to} (acks: {acks})", m.content, ""]
    return "\n".join(lines).rstrip()


@click.command("thread")
@click.argument("ref", metavar="ID", shell_complete=completes("messages"))
@json_option
@with_messages
def thread(board: MessagesAPI, ref: str, as_json: bool) -> None:
    """Every message of a thread (ID: any of its messages' ids, or its name), oldest first, with who acked."""
    output(board.thread(ref), as_json, _thread_text)
