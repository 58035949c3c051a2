"""Who an agent tool's session is: `GRID_AGENT_ID`, else a stable id made from its session id.

The first hook call of a session (Claude Code's sub-agents are sessions of their own, by
`agent_id`) writes `.grid/events/cursors/sessions/<tool>-<key>.json` (machine-local, like the
inbox cursors): the agent id, the tool and session it stands for, and the messages waiting for
the tool's next prompt event. Every later call of that session reads it back, so one session
is one agent across all its hook calls, and the status line finds the agent of a session.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any, NamedTuple

from gridgit.agents.tool import Skip, Tool
from gridgit.errors import GridError
from gridgit.model.permissions import check_agent_id
from gridgit.store import clock, fileio, locks
from gridgit.store.layout import Layout

DEFAULT_TYPE = "executor"  # an agent tool's session edits files: it is an executor unless GRID_AGENT_ID says otherwise


class Identity(NamedTuple):
    agent_id: str
    session_id: str | None
    subagent: str | None
    path: Path | None  # the session's state file (None: no session id)
    new: bool = False  # this call is the session's first


def session_of(tool: Tool, payload: dict[str, Any]) -> str | None:
    for key in tool.session_keys:
        value = payload.get(key)
        if isinstance(value, (str, int)) and not isinstance(value, bool) and str(value).strip():
            return str(value)
    return None


def _subagent(payload: dict[str, Any]) -> str | None:
    """Claude Code's sub-agent (`agent_id`, with its `agent_type`): a session of its own."""
    value = payload.get("agent_id")
    if not isinstance(value, str) or not value:
        return None
    kind = payload.get("agent_type")
    return f"{kind}:{value}" if isinstance(kind, str) and kind else value


def state_path(layout: Layout, tool: str, session_id: str, subagent: str | None) -> tuple[Path, str]:
    key = hashlib.sha256(f"{tool}\0{session_id}\0{subagent or ''}".encode()).hexdigest()[:16]
    return layout.cursors_dir / "sessions" / f"{tool}-{key}.json", key


def _from_env() -> str | None:
    value = os.environ.get("GRID_AGENT_ID")
    if not value:
        return None
    try:
        return check_agent_id(value)
    except GridError as exc:
        raise Skip(f"GRID_AGENT_ID: {exc}") from None


def _read(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(fileio.read_text(path))
    except (GridError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def resolve(layout: Layout, tool: Tool, payload: dict[str, Any], create: bool = True) -> Identity:
    """The agent of this hook call; CREATE writes the session's state file on its first call."""
    env = _from_env()
    session = session_of(tool, payload)
    sub = _subagent(payload)
    if session is None:
        if env is None:
            raise Skip(f"no session id ({' or '.join(tool.session_keys)}) in the payload and no GRID_AGENT_ID")
        return Identity(env, None, sub, None)
    path, key = state_path(layout, tool.name, session, sub)
    known = _read(path).get("agent_id")
    if isinstance(known, str) and known and env in (None, known):
        return Identity(known, session, sub, path)
    agent = env or f"{DEFAULT_TYPE}-{tool.name}-{key[:8]}"
    if create:
        fileio.make_folder(path.parent)
        data: dict[str, Any] = {"agent_id": agent, "tool": tool.name, "session_id": session, "subagent": sub,
                "first_seen": clock.now_iso(), "pending": []}  # fmt: skip
        fileio.atomic_write(path, json.dumps(data) + "\n", durable=False)
    return Identity(agent, session, sub, path, new=True)


def add_pending(ident: Identity, message: str) -> None:
    """Keep MESSAGE for the session's next prompt event (tools whose after-edit answer reaches nobody)."""
    if ident.path is None:
        return
    with locks.locked(ident.path):
        data = _read(ident.path)
        data["pending"] = [*(data.get("pending") or []), message][-20:]
        fileio.atomic_write(ident.path, json.dumps(data) + "\n", durable=False)


def take_pending(ident: Identity) -> list[str]:
    """The messages kept for this session, removed as they are returned."""
    if ident.path is None or not ident.path.exists():
        return []
    with locks.locked(ident.path):
        data = _read(ident.path)
        pending = [str(m) for m in data.get("pending") or []]
        if pending:
            data["pending"] = []
            fileio.atomic_write(ident.path, json.dumps(data) + "\n", durable=False)
    return pending
