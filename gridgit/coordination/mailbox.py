"""The mailbox: `.grid/messages/<box>/<id>.md`, one file per message, synced like the rest of `.grid/`.

A box is named after the addressee: an agent id (`executor-002`), `@all`, or `@` and a block
id (`@01-02`). A message file is YAML frontmatter (`id`, `from`, `to`, `thread`, `sent_at`,
`acks`) with the content as its body. Nothing in it changes after it is sent but `acks`
(agent -> when it acknowledged), which sync merges key by key (gridgit.history.merge): two
clones that each saw an ack keep both. A file is named by its id (a ULID), so two clones'
messages never share a path and sync unites them file by file. docs/messages.md.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from gridgit.errors import BadInput
from gridgit.model import permissions
from gridgit.store import fileio, frontmatter, ids, where
from gridgit.store.commandline import said
from gridgit.store.escaping import BODY
from gridgit.store.layout import Layout
from gridgit.store.record import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

ALL = "@all"
FOLDER = where.MESSAGES
# A block as the spec numbers it (`01-02`): what `--to` takes that is not an agent id or @all.
BLOCK_RE = re.compile(r"^\d{2}-\d{2}$")
# A thread is named by its first message's id, or by a name of the sender's choosing.
THREAD_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
_KEYS = ("id", "from", "to", "thread", "sent_at", "acks")
MASTER_CONTROL = "mc"


def is_master_control(agent: str) -> bool:
    """AGENT is of Master Control's type (`mc`, `mc-ana`): the addressees of messages to `mc`."""
    return agent.split("-", 1)[0].lower() == MASTER_CONTROL


class Message(Record):
    """One message: ID (a ULID), SENDER, TO (an agent id, a block id or `@all`), its THREAD, CONTENT, ACKS."""

    FIELDS = __slots__ = ("id", "sender", "to", "thread", "sent_at", "content", "acks")

    def __init__(
        self, id: str, sender: str, to: str, thread: str, sent_at: str, content: str, acks: dict[str, str] | None = None
    ) -> None:
        self.id, self.sender, self.to, self.thread, self.sent_at = id, sender, to, thread, sent_at
        self.content, self.acks = content, acks if acks is not None else {}

    @property
    def box(self) -> str:
        return box_of(self.to)

    def for_agent(self, agent: str, block: str | None) -> bool:
        """Whether AGENT (in BLOCK) is an addressee: named, in the block, anyone but the sender for @all,
        and any Master Control (`mc-ana`, a person at the web view) for `mc`, the role's address."""
        if self.to == ALL:
            return agent != self.sender
        if self.to == MASTER_CONTROL and agent != self.sender and is_master_control(agent):
            return True
        return self.to == agent or (block is not None and self.to == block)

    def summary(self, chars: int = 300) -> str:
        """One line fit to show a model: who, the id to ack, the thread, the content's start."""
        text = " ".join(self.content.split())
        text = text if len(text) <= chars else f"{text[:chars].rstrip()}… (all of it: `{said('thread', self.id)}`)"
        to = f" to {self.to}" if self.box.startswith("@") else ""
        thread = f", thread {self.thread}" if self.thread != self.id else ""
        return f"message {self.id} from {self.sender}{to}{thread}: {text} (`{said('ack', self.id)}` once read)"

    def as_event(self) -> dict[str, Any]:
        """The message in the shape of an event (an inbox item carries one)."""
        payload = {"message_id": self.id, "agent": self.sender, "to": self.to, "thread": self.thread,
                   "content": self.content}  # fmt: skip
        return {"id": self.id, "type": "message_sent", "timestamp": self.sent_at, "payload": payload}

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "from": self.sender, "to": self.to, "thread": self.thread,
                "sent_at": self.sent_at, "content": self.content, "acks": dict(self.acks)}  # fmt: skip


def check_message_id(message_id: str) -> str:
    """MESSAGE_ID when it is a message id (a ULID, case-insensitive); bad input otherwise."""
    text = message_id.strip().upper() if isinstance(message_id, str) else ""
    if not ids.ID_RE.match(text):
        shown = message_id[:40] if isinstance(message_id, str) else message_id
        raise BadInput(f"invalid message id {shown!r}: expected the 26-character id `gridgit send` printed")
    return text


def check_target(to: str) -> str:
    """`--to` as stored: an agent id (of a known type), a block id (`01-02`) or `@all`."""
    value = to.strip() if isinstance(to, str) else ""
    if value.lower() == ALL:
        return ALL
    if BLOCK_RE.match(value):
        return value
    try:
        permissions.agent_type(permissions.check_agent_id(value))
    except BadInput as exc:
        raise BadInput(
            f"--to {value[:80]!r}: expected an agent id (executor-002), a block (01-02) or @all ({exc})"
        ) from None
    return value


def box_of(to: str) -> str:
    """The box of a message to TO: the agent id itself, `@all`, or `@` + the block id."""
    return to if to == ALL or not BLOCK_RE.match(to) else f"@{to}"


def folder(layout: Layout) -> Path:
    return layout.grid / FOLDER


def path_of(layout: Layout, message: Message) -> Path:
    return folder(layout) / message.box / f"{message.id}.md"


def render(message: Message) -> str:
    meta = {"id": message.id, "from": message.sender, "to": message.to, "thread": message.thread,
            "sent_at": message.sent_at, "acks": dict(sorted(message.acks.items()))}  # fmt: skip
    body = message.content if message.content.endswith("\n") else message.content + "\n"
    return frontmatter.render(meta, BODY.escape(body))


def parse(text: str, source: str) -> Message:
    """A message file's TEXT as a Message; a file that is not one is bad input naming SOURCE."""
    meta, body = frontmatter.parse(text, source)
    missing = [key for key in _KEYS if key not in meta]
    if missing:
        raise BadInput(f"{source}: not a message file (no {', '.join(missing)})")
    acks = meta["acks"] or {}
    if not isinstance(acks, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in acks.items()):
        raise BadInput(f"{source}: acks must map agent ids to times")
    fields = [meta[key] for key in ("id", "from", "to", "thread", "sent_at")]
    if not all(isinstance(value, str) and value for value in fields):
        raise BadInput(f"{source}: id, from, to, thread and sent_at must be non-empty strings")
    message_id, sender, to, thread, sent_at = fields
    if not ids.ID_RE.match(message_id):
        raise BadInput(f"{source}: id {message_id!r} is not a message id")
    return Message(message_id, sender, to, thread, sent_at, BODY.unescape(body).removesuffix("\n"), dict(acks))


def load(path: Path) -> Message:
    return parse(fileio.read_text(path), str(path))


def box_ids(layout: Layout, box: str) -> list[str]:
    """The ids of the messages in BOX, oldest first (no file is read)."""
    try:
        names = os.listdir(folder(layout) / box)
    except (FileNotFoundError, NotADirectoryError):
        return []
    return sorted(name[:-3] for name in names if name.endswith(".md") and ids.ID_RE.match(name[:-3]))


def in_box(layout: Layout, box: str) -> list[Message]:
    """The messages of BOX, oldest first; a file that does not parse is left out (`gridgit validate` names it)."""
    found = []
    for message_id in box_ids(layout, box):
        try:
            found.append(load(folder(layout) / box / f"{message_id}.md"))
        except BadInput:
            continue
    return found


def boxes(layout: Layout) -> list[str]:
    try:
        return sorted(entry.name for entry in os.scandir(folder(layout)) if entry.is_dir(follow_symlinks=False))
    except FileNotFoundError:
        return []


def find(layout: Layout, message_id: str) -> tuple[Path, Message] | None:
    """Where the message MESSAGE_ID is and what it says; None when no box holds it."""
    for name in boxes(layout):
        path = folder(layout) / name / f"{message_id}.md"
        if path.is_file():
            return path, load(path)
    return None


def everything(layout: Layout) -> list[Message]:
    """Every message of every box, oldest first."""
    return sorted((m for name in boxes(layout) for m in in_box(layout, name)), key=lambda m: m.id)
