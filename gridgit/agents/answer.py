"""gridgit's answer to one hook call, written into the channels the tool's capability entry lists.

A Reply says what gridgit has to say (context for the model, a decision with its reason, a
notice for the person); `render` writes it as the tool reads it, from the table in
gridgit.agents.capabilities and nothing else: a JSON object whose fields are the entry's
paths (`hookSpecificOutput.*` gets its `hookEventName`), or the entry's silent answer.
"""

from __future__ import annotations

import json

from gridgit.agents.capabilities import Capability
from gridgit.store.record import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class Reply(Record):
    """What gridgit says to one hook call, whatever the tool.

    CONTEXT is for the model (the context pack, the inbox, a conflict, what an edit left
    invalid); DECISION one of the capability's decisions (None: go ahead, or stop at the end)
    with its REASON, for the model; NOTICE is for the person at the keyboard.
    """

    FIELDS = ("context", "decision", "reason", "notice")
    __slots__ = FIELDS

    def __init__(self, context: str = "", decision: str | None = None, reason: str = "", notice: str = "") -> None:
        self.context = context
        self.decision = decision
        self.reason = reason
        self.notice = notice


def _put(out: dict[str, Any], path: str, value: Any) -> None:
    *parents, last = path.split(".")
    node = out
    for key in parents:
        node = node.setdefault(key, {})
    node[last] = value


def render(cap: Capability, reply: Reply) -> str:
    """REPLY as CAP's tool reads it on stdout; a part the tool has no channel for is left out."""
    out: dict[str, Any] = {}
    if reply.decision is not None and reply.decision in cap.decisions and cap.decide:
        first, *reasons = cap.decide
        if first is not None:
            _put(out, first, reply.decision)
        for path in reasons:
            assert path is not None
            _put(out, path, reply.reason)
    if reply.context and cap.model is not None:
        _put(out, cap.model, reply.context)
    if reply.notice and cap.user is not None:
        _put(out, cap.user, reply.notice)
    if not out:
        return cap.silent
    if "hookSpecificOutput" in out:
        out["hookSpecificOutput"] = {"hookEventName": cap.native, **out["hookSpecificOutput"]}
    return json.dumps(out, ensure_ascii=False)
