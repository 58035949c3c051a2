"""A look at an agent's inbox from the files alone, with the standard library: whether anything may be
new for it. The hooks' fast path (gridgit.agents.hook) asks before a prompt and a stop, and the
after-edit hook before it loads the inbox (gridgit.coordination.inbox) to tell urgent items.
"""

from __future__ import annotations

import json
import os

from gridgit.events.own import own_doing
from gridgit.store import where


def read_json(path: str) -> dict[str, object] | None:
    """The JSON object in the file at PATH; None when it is missing, unreadable or not an object."""
    try:
        with open(path, "rb") as handle:
            data = json.loads(handle.read())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _nothing_new(grid: str, agent: str, urgent: bool) -> bool:
    """No event since AGENT's inbox cursor but its own doings (never in its inbox).

    URGENT: for the mid-turn look, which the cursor's held items do not concern (only an urgent
    fetch holds items, those it found not urgent). What the cursor's ledger says was told is
    never told again (gridgit.coordination.ledger).
    """
    cursor = read_json(os.path.join(grid, where.INBOX_CURSORS, agent + ".json"))
    if cursor is None or (not urgent and cursor.get("held")):
        return False  # items an urgent fetch held back for the next plain fetch
    offset, inode = cursor.get("offset"), cursor.get("inode")
    if not isinstance(offset, int) or not isinstance(inode, int):
        return False
    with open(os.path.join(grid, where.EVENTS_LOG), "rb") as log:
        if os.fstat(log.fileno()).st_ino != inode:
            return False  # rotated or replaced since: the reader knows how to follow
        log.seek(offset)
        return all(own_doing(json.loads(line), agent) for line in log.read().splitlines())


def mail_since(grid: str, agent: str, since: float) -> bool:
    """Whether a message reached, or was acknowledged in, a box that may be AGENT's since SINCE (a time).

    Its own box, `@all` and every block's box (`@01-02`: which block is the agent's takes
    STATE to know; another block's mail only sends this call down the full path). A message
    synced from another clone comes with no event: the box's time is what says it came.
    """
    try:
        boxes = [entry for entry in os.scandir(os.path.join(grid, where.MESSAGES))
                 if entry.name == agent or entry.name.startswith("@")]  # fmt: skip
    except FileNotFoundError:
        return False  # no message was ever sent
    return any(_changed_since(box, since) for box in boxes)


def _changed_since(box: os.DirEntry[str], since: float) -> bool:
    try:
        return box.stat().st_mtime >= since
    except OSError:
        return True  # gone or unreadable since it was listed: let the full path look


def inbox_quiet(grid: str, agent: str, urgent: bool = False) -> bool:
    """Nothing for AGENT's inbox: no event since its cursor but its own doings, and no mail since the cursor moved.

    URGENT: nothing for its urgent part (`inbox.fetch(urgent=True)`, told mid-turn).
    """
    try:
        since = os.stat(os.path.join(grid, where.INBOX_CURSORS, agent + ".json")).st_mtime
        return not mail_since(grid, agent, since) and _nothing_new(grid, agent, urgent)
    except (OSError, ValueError):
        return False  # anything unexpected: the full path knows
