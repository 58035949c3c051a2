"""`gridgit statusline`: one line for Claude Code's `statusLine`.

Claude Code runs it after each message with the session's JSON on stdin (`session_id`,
`cwd`, `workspace.current_dir`) and shows its first line of stdout. It says: the phase, this
session's agent, the agents active and stale (by STATE's heartbeats), the open conflicts on
this agent's files and the events waiting in its inbox. It reads machine-local files only
(no git, no network) and moves no cursor. A payload it cannot read leaves the agent out (the
line is then the working directory's); outside a Blackboard, or on any error, it prints nothing.

Claude Code runs it after every message, so the line is kept in the session's state folder
with the sizes and times of the files it was made from (and the minute: staleness moves with
the clock); while none of them changed, it is printed again without being recomputed.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from gridgit.errors import GridError
from gridgit.store.where import INBOX_CURSORS, MESSAGES

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def _agent(layout: Any, payload: dict[str, Any]) -> Any:
    from gridgit.agents import identity

    try:
        return identity.resolve(layout, "claude", payload, create=False)
    except Exception:  # no session id and no GRID_AGENT_ID: a line without "you"
        return None


def _sources(layout: Any, agent: str | None) -> list[Path]:
    """The files the line is made of."""
    found = [layout.state, layout.checkpoint, layout.events_log, layout.claims, layout.config]
    if agent:
        found.append(layout.grid / INBOX_CURSORS / f"{agent}.json")
        # A message arriving (or acked) renames a file into its box: the box's time changes.
        found += [layout.grid / MESSAGES / box for box in (agent, "@all")]
    return found


def _key(paths: list[Path]) -> str:
    parts = [str(int(time.time() // 60))]
    for path in paths:
        try:
            st = os.stat(path)
            parts.append(f"{st.st_ino}:{st.st_mtime_ns}:{st.st_size}")
        except OSError:
            parts.append("-")
    return " ".join(parts)


def _stale(agent: dict[str, Any], now: Any, minutes: float) -> bool:
    from gridgit.coordination import heartbeat
    from gridgit.store import clock

    if not heartbeat.sends_heartbeats(str(agent.get("id"))):
        return False
    seen = [v for v in (agent.get("last_heartbeat"), agent.get("spawned_at")) if isinstance(v, str) and v]
    try:
        return min(clock.minutes_since(v, now) for v in seen) > minutes if seen else True
    except ValueError:
        return True


def line(payload: dict[str, Any]) -> str:
    """The status line for PAYLOAD's session (from the kept copy while its sources are unchanged)."""
    from gridgit.store import fileio
    from gridgit.store.layout import Layout

    workspace = payload.get("workspace")
    workspace = workspace if isinstance(workspace, dict) else {}
    where = workspace.get("current_dir") or payload.get("cwd") or os.getcwd()
    layout = Layout.find(Path(str(where)))
    if not layout.state.exists():
        return ""
    ident = _agent(layout, payload)
    me = ident.agent_id if ident is not None else None
    key = _key(_sources(layout, me))
    kept = ident.path.with_suffix(".statusline") if ident is not None and ident.path is not None else None
    if kept is not None and kept.exists():
        cached_key, _, cached = fileio.read_text(kept).partition("\n")
        if cached_key == key:
            return cached
    text = compute(layout, me)
    if kept is not None and kept.parent.is_dir():
        fileio.atomic_write(kept, f"{key}\n{text}", durable=False)
    return text


def compute(layout: Any, me: str | None) -> str:
    from gridgit.coordination import checkpoint, inbox
    from gridgit.model import state
    from gridgit.store import clock
    from gridgit.store import config as config_mod

    st = state.read(layout)
    active = [a for a in (st.get("agents") or {}).get("active") or [] if isinstance(a, dict)]
    limit = float(config_mod.value(layout, "heartbeat.stale_minutes"))
    now = clock.now()
    stale = sum(1 for a in active if _stale(a, now, limit))
    conflicts = [
        c
        for c in checkpoint.open_conflicts(layout)
        if isinstance(c, dict) and (me is None or me in c.get("agents", []))
    ]
    parts = [f"grid {state.current_phase(st) or '-'}"]
    if me:
        parts.append(me)
    parts.append(f"{len(active)} active" + (f", {stale} stale" if stale else ""))
    parts.append(f"{len(conflicts)} conflict{'s' if len(conflicts) != 1 else ''}" + (" on your files" if me else ""))
    if me:
        waiting = len(inbox.fetch(layout, me, peek=True))
        parts.append(f"{waiting} waiting")
    return " · ".join(parts)


def main(argv: list[str]) -> int:
    from gridgit.agents.payload import Skip, parse_payload, read_stdin

    try:
        payload = parse_payload(read_stdin(getattr(sys.stdin, "buffer", None)))
    except Skip:
        payload = {}
    try:
        text = line(payload)
    except (GridError, OSError, ValueError, KeyError, TypeError):
        text = ""
    if text:
        sys.stdout.write(text + "\n")
    return 0
