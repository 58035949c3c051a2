"""Who an agent tool's session is: made from what the tool's payload carries, kept per session.

The first hook call of a session writes `.grid/events/cursors/sessions/<tool>-<session>.json`
(machine-local, like the inbox cursors; a sub-agent, by the tool's own `agent_id`, is a
session of its own): the agent id, the tool and session it stands for, the messages waiting
for the session's next answer and its last heartbeat. Every later call of that session reads
it back, so one session is one agent across all its hook calls, and the status line finds
the agent of a session. The id is `executor-<tool>-<8 hex digits of the session>`;
`GRID_AGENT_ID` overrides it where the tool passes its environment to hooks (Gemini CLI
drops it when its environment redaction is strict: see docs/agent-tools.md).
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from gridgit.agents.capabilities import SESSION_KEYS
from gridgit.agents.payload import Skip, session_file, session_of, subagent_of
from gridgit.errors import GridError
from gridgit.model.permissions import check_agent
from gridgit.store import clock, fileio, locks
from gridgit.store.layout import Layout
from gridgit.store.record import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

DEFAULT_TYPE = "executor"  # an agent tool's session edits files: it is an executor unless GRID_AGENT_ID says otherwise
PENDING_KEPT = 20


class Identity(Record):
    """The agent a hook call is for; PATH is its session's state file (None: no session id), NEW the session's
    first call, FROM_ENV whether GRID_AGENT_ID named it (else the session did: the agent's shell may not know it)."""

    FIELDS = ("agent_id", "session_id", "subagent", "path", "new", "from_env")
    __slots__ = FIELDS

    def __init__(
        self,
        agent_id: str,
        session_id: str | None,
        subagent: str | None,
        path: Path | None,
        new: bool = False,
        from_env: bool = False,
    ) -> None:
        self.agent_id = agent_id
        self.session_id = session_id
        self.subagent = subagent
        self.path = path
        self.new = new
        self.from_env = from_env


def _from_env(layout: Layout) -> str | None:
    value = os.environ.get("GRID_AGENT_ID")
    if not value:
        return None
    try:
        return check_agent(layout, value)
    except GridError as exc:
        raise Skip(f"GRID_AGENT_ID: {exc}") from None


def _read(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(fileio.read_text(path))
    except (GridError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _made_id(tool: str, session: str, subagent: str | None) -> str:
    import hashlib  # only when a session is new: it costs a hook more than its fast path

    digest = hashlib.sha256(f"{tool}\0{session}\0{subagent or ''}".encode()).hexdigest()
    return f"{DEFAULT_TYPE}-{tool}-{digest[:8]}"


def resolve(layout: Layout, tool: str, payload: dict[str, Any], create: bool = True) -> Identity:
    """The agent of this hook call; CREATE writes the session's state file on its first call."""
    env = _from_env(layout)
    session = session_of(tool, payload)
    sub = subagent_of(tool, payload)
    if session is None:
        if env is None:
            raise Skip(f"no session id ({' or '.join(SESSION_KEYS[tool])}) in the payload and no GRID_AGENT_ID")
        return Identity(env, None, sub, None, from_env=True)
    path = Path(session_file(str(layout.grid), tool, session, sub))
    known = _read(path).get("agent_id")
    if isinstance(known, str) and known and env in (None, known):
        return Identity(known, session, sub, path, from_env=env is not None)
    agent = env or _made_id(tool, session, sub)
    if create:
        fileio.make_folder(path.parent)
        data: dict[str, Any] = {"agent_id": agent, "tool": tool, "session_id": session, "subagent": sub,
                "first_seen": clock.now_iso(), "pending": []}  # fmt: skip
        fileio.atomic_write(path, json.dumps(data) + "\n", durable=False)
    return Identity(agent, session, sub, path, new=True, from_env=env is not None)


def _update(ident: Identity, change: Any) -> Any:
    """Apply CHANGE (the session's state -> a result) under the session file's lock; its result."""
    assert ident.path is not None
    with locks.locked(ident.path):
        data = _read(ident.path)
        result = change(data)
        fileio.atomic_write(ident.path, json.dumps(data) + "\n", durable=False)
    return result


def add_pending(ident: Identity, message: str) -> None:
    """Keep MESSAGE for the session's next answer that reaches the model (a tool whose event has no channel)."""
    if ident.path is not None:
        _update(ident, lambda data: data.update(pending=[*(data.get("pending") or []), message][-PENDING_KEPT:]))


def take_pending(ident: Identity) -> list[str]:
    """The messages kept for this session, removed as they are returned."""
    if ident.path is None or not ident.path.exists() or not _read(ident.path).get("pending"):
        return []

    def take(data: dict[str, Any]) -> list[str]:
        pending = [str(m) for m in data.get("pending") or []]
        data["pending"] = []
        return pending

    taken: list[str] = _update(ident, take)
    return taken


def note_heartbeat(ident: Identity, waking: bool = False, transcript_bytes: int = 0) -> None:
    """Remember when this session last sent a heartbeat (the fast path skips the next within a minute),
    whether a stop hook is keeping it going (WAKING: the next stop is not the fast path's), and
    how much of its transcript is counted (TRANSCRIPT_BYTES: a stop after it grew is not either)."""
    if ident.path is not None and ident.path.exists():
        _update(ident, lambda data: data.update(beat=time.time(), waking=waking, transcript_bytes=transcript_bytes))
