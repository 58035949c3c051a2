"""Messages between agents: send one, acknowledge one, read a thread (docs/messages.md).

- `send`: from an agent of a known type to an agent, a block (`01-02`) or `@all`. The content
  passes the one gate of user text (`store.usertext`: the size limit, control characters,
  secrets). A scout may message an agent or a block, not `@all`: a read-only agent does not
  page the whole team. A message to an agent or block nobody registered (yet) is accepted
  and held in its box: an agent that registers later, here or in a clone that syncs, finds it.
- `ack`: only an addressee acknowledges a message, for itself (an `@all` or block message
  stays with each of the others until they ack it too); a second ack changes nothing.
- `thread`: every message of a thread, oldest first.

The messages are files (`coordination.mailbox`); `message_sent` and `message_acked` events
tell this machine's watchers, the web view and `events tail`.
"""

from __future__ import annotations

from collections.abc import Callable

from gridgit.coordination import mailbox
from gridgit.coordination.mailbox import ALL, Message
from gridgit.errors import BadInput, GridError, NotFound, PermissionDenied
from gridgit.events import bus
from gridgit.model import permissions, state
from gridgit.store import clock, config, fileio, ids, journal, locks, usertext
from gridgit.store.layout import Layout
from gridgit.store.record import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

SUMMARY_CHARS = 160


class SendResult(Record):
    """The message as stored; HELD when no registered agent is its addressee (yet)."""

    FIELDS = __slots__ = ("message", "held")

    def __init__(self, message: Message, held: bool) -> None:
        self.message, self.held = message, held

    def to_dict(self) -> dict[str, Any]:
        return {**self.message.to_dict(), "held": self.held}


class AckResult(Record):
    """The message after the ack; ALREADY when this agent had acknowledged it before."""

    FIELDS = __slots__ = ("message", "agent", "already")

    def __init__(self, message: Message, agent: str, already: bool) -> None:
        self.message, self.agent, self.already = message, agent, already

    def to_dict(self) -> dict[str, Any]:
        return {**self.message.to_dict(), "acked_by": self.agent, "already": self.already}


def _box_lock(layout: Layout, box: str) -> Any:
    """The lock of one box: the Blackboard-wide lock shared with it, so a snapshot never catches half a write."""
    return locks.locked(mailbox.folder(layout) / box / "box")


def send(layout: Layout, sender: str, to: str, content: str, thread: str | None = None) -> SendResult:
    """Send CONTENT from SENDER to TO (an agent id, a block id or @all), in THREAD (a message id or a name)."""
    layout.require()
    config.current(layout)  # a bad config.json stops the send here, before the message is written
    kind = permissions.agent_type(permissions.check_agent_id(sender))
    target = mailbox.check_target(to)
    if target == sender:
        raise BadInput(f"a message from {sender} to itself: keep a note with `gridgit write` instead")
    if target == ALL and kind == "scout":
        raise PermissionDenied(
            f"scouts may message an agent or a block, not @all (agent {sender}): a read-only agent does not page the team"
        )
    text = usertext.clean(content or "", "message", "the message").strip()
    if not text:
        raise BadInput("the message is empty (--content TEXT, or - to read it from standard input)")
    message_id = ids.new_id()
    thread_id = _thread_id(layout, thread) if thread else message_id
    message = Message(message_id, sender, target, thread_id, clock.now_iso(), text)
    path = mailbox.path_of(layout, message)
    fileio.refuse_symlink(path.parent)
    path.parent.mkdir(parents=True, exist_ok=True)
    with _box_lock(layout, message.box):
        journal.write(layout, path, mailbox.render(message))
    bus.emit(
        layout,
        "message_sent",
        {"message_id": message_id, "agent": sender, "to": target, "thread": thread_id, "summary": _summary(text)},
    )
    return SendResult(message, held=not _addressee_known(layout, target))


def _summary(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= SUMMARY_CHARS else flat[:SUMMARY_CHARS].rstrip() + "…"


def _thread_id(layout: Layout, ref: str) -> str:
    """The thread REF names: a message's id stands for that message's thread; else REF is a thread name."""
    value = ref.strip() if isinstance(ref, str) else ""
    if ids.ID_RE.match(value.upper()):
        return _find(layout, value)[1].thread
    if not mailbox.THREAD_RE.match(value):
        raise BadInput(f"--thread {value[:80]!r}: expected a message id or a name (letters, digits, `_.-`, 64 at most)")
    return value


def _find(layout: Layout, message_id: str) -> tuple[Any, Message]:
    found = mailbox.find(layout, mailbox.check_message_id(message_id))
    if found is None:
        raise NotFound(f"no message {message_id.strip().upper()} in {mailbox.folder(layout)}")
    return found


def _agents(layout: Layout) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """STATE's registered agents: (active, completed)."""
    try:
        registered = state.read(layout).get("agents") or {}
    except GridError:
        return [], []
    active, completed = (
        [a for a in registered.get(key) or [] if isinstance(a, dict)] for key in ("active", "completed")
    )
    return active, completed


def block_of(layout: Layout, agent: str) -> str | None:
    """The block AGENT registered for (STATE agents.active), or None."""
    mine = next((a for a in _agents(layout)[0] if a.get("id") == agent), {})
    return str(mine.get("block") or "") or None


def _addressee_known(layout: Layout, target: str) -> bool:
    active, completed = _agents(layout)
    if target == ALL:
        return True
    if mailbox.BLOCK_RE.match(target):
        return any(str(a.get("block") or "") == target for a in active)
    return any(a.get("id") == target for a in [*active, *completed])


def ack(layout: Layout, message_id: str, agent: str) -> AckResult:
    """AGENT acknowledges MESSAGE_ID; only an addressee may (PermissionDenied), an unknown id is NotFound."""
    layout.require()
    config.current(layout)  # as for send: nothing written on a bad config.json
    permissions.agent_type(permissions.check_agent_id(agent))
    path, message = _find(layout, message_id)
    block = block_of(layout, agent) if mailbox.BLOCK_RE.match(message.to) else None
    if not message.for_agent(agent, block):
        who = "its sender" if agent == message.sender else f"addressed to {message.to}"
        raise PermissionDenied(f"message {message.id} is {who}, not to {agent}: only an addressee acknowledges it")
    with _box_lock(layout, message.box):
        message = mailbox.load(path)
        if agent in message.acks:
            return AckResult(message, agent, already=True)
        message.acks[agent] = clock.now_iso()
        journal.write(layout, path, mailbox.render(message))
    bus.emit(layout, "message_acked", {"message_id": message.id, "agent": agent, "from": message.sender,
             "thread": message.thread})  # fmt: skip
    return AckResult(message, agent, already=False)


def thread(layout: Layout, ref: str) -> list[Message]:
    """Every message of the thread REF names (a message id, or a thread name), oldest first."""
    layout.require()
    thread_id = _thread_id(layout, ref)
    found = [m for m in mailbox.everything(layout) if m.thread == thread_id]
    if not found:
        raise NotFound(f"no thread {thread_id!r}: no message was sent in it")
    return found


def unacked_for(layout: Layout, agent: str, block: Callable[[], str | None] | None = None) -> list[Message]:
    """The messages to AGENT it has not acknowledged, oldest first.

    BLOCK gives AGENT's block (default: read from STATE), asked only when a block's box exists.
    """
    names = set(mailbox.boxes(layout))
    if not names:
        return []  # no mailbox yet: nothing is read
    role = (mailbox.MASTER_CONTROL,) if mailbox.is_master_control(agent) and agent != mailbox.MASTER_CONTROL else ()
    wanted = [name for name in (agent, ALL, *role) if name in names]
    if any(name.startswith("@") and name != ALL for name in names):
        mine = block() if block is not None else block_of(layout, agent)
        if mine and mailbox.box_of(mine) in names and mailbox.BLOCK_RE.match(mine):
            wanted.append(mailbox.box_of(mine))
    else:
        mine = None
    found = [
        m for name in wanted for m in mailbox.in_box(layout, name) if m.for_agent(agent, mine) and agent not in m.acks
    ]
    return sorted(found, key=lambda m: m.id)
