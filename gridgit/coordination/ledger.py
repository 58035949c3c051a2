"""What each agent has been told through a channel that reaches its model: news once (DESIGN.md invariant 9).

An agent tool's hooks reach the model through several channels: the session's start (the
context pack and what is new), each prompt, the answer to an edit (mid-turn), the end hook
that keeps it going. Each of them used to tell whatever the inbox held, so a message waiting
unacknowledged was told at the session's start twice (as news and in the pack), again at the
first prompt, and again in the next session. The ledger is the one record of what was told:
an item's id (a message's, or an inbox event's) -> the session and channel that told it first,
and whether it is a message. It lives in the agent's inbox cursor
(`.grid/events/cursors/inbox/<agent>.json`, under its lock; gridgit.coordination.inbox), so
every session of the agent shares it.

The rules, for every channel that reaches a model:
- an item the ledger knows is not news again, in this session or a later one;
- a message still unacknowledged is state: the context pack lists it (one line) at each
  session's start, and the end hook's reminder names it by its id, without its content;
- a message leaves the ledger once acknowledged; an event once the inbox read past it.
`gridgit inbox` itself, asked by a person or an agent, shows the open messages every time:
that is the inbox's state, not a channel the ledger tracks.

The hooks' fast path reads `told` from the cursor file with `waiting_messages`.
"""

from __future__ import annotations

from gridgit.store.record import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any

KEPT = 200  # entries kept (newest): an event the inbox never reads past again is forgotten in time
MESSAGE = "message"


class Ledger(Record):
    """Item id -> {"session", "channel", "kind"} for what was told, oldest first."""

    FIELDS = __slots__ = ("told",)

    def __init__(self, told: dict[str, dict[str, Any]] | None = None) -> None:
        self.told = dict(told or {})

    @classmethod
    def from_data(cls, data: object) -> Ledger:
        """The ledger as the cursor file holds it; an earlier gridgit's list of message ids reads as told messages."""
        if isinstance(data, list):
            return cls({str(i): {"session": None, "channel": None, "kind": MESSAGE} for i in data})
        if not isinstance(data, dict):
            raise TypeError("told: not a mapping")
        return cls({str(k): dict(v) if isinstance(v, dict) else {} for k, v in data.items()})

    def knows(self, item_id: str) -> bool:
        return item_id in self.told

    def note(self, ids: Iterable[str], session: str | None, channel: str, kind: str = "event") -> list[str]:
        """Record IDS as told through CHANNEL in SESSION (an id told before keeps its first record); the new ones."""
        new = [i for i in dict.fromkeys(ids) if i not in self.told]
        for item_id in new:
            self.told[item_id] = {"session": session, "channel": channel, "kind": kind}
        if len(self.told) > KEPT:
            self.told = dict(list(self.told.items())[-KEPT:])
        return new

    def forget(self, item_id: str) -> None:
        self.told.pop(item_id, None)

    def keep_messages(self, open_ids: set[str]) -> None:
        """Drop the messages that are no longer open (acknowledged, or gone)."""
        self.told = {k: v for k, v in self.told.items() if v.get("kind") != MESSAGE or k in open_ids}

    def to_data(self) -> dict[str, dict[str, Any]]:
        return dict(self.told)

    def __bool__(self) -> bool:
        return bool(self.told)


def waiting_messages(told: object) -> bool:
    """Whether a ledger's data (the cursor file's `told`) holds a message told and not yet acknowledged."""
    if isinstance(told, list):
        return bool(told)
    return isinstance(told, dict) and any(isinstance(v, dict) and v.get("kind") == MESSAGE for v in told.values())
