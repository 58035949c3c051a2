"""Whether an agent hook reported a file a moment ago: the watcher then stays quiet about it.

An agent tool's after-edit hook records `file_modified` with the exact agent (payload
`source: agent-hook`); the watcher sees the same write on disk a moment later and would
report it again, as the worktree's agent or `unknown`. It asks here first.
"""

from __future__ import annotations

from gridgit.events import scan
from gridgit.store import clock
from gridgit.store.layout import Layout

RECENT_SECONDS = 30.0


def reported_by_hook(layout: Layout, rel_path: str, seconds: float = RECENT_SECONDS) -> bool:
    """True when an agent hook recorded REL_PATH within the last SECONDS (reads only that much of the log)."""
    since = clock.now_seconds() - seconds
    for event in scan.read_backwards(layout, since=since, types=("file_modified",)):
        payload = event.get("payload") or {}
        if payload.get("source") == "agent-hook" and rel_path in (payload.get("path"), payload.get("old_path")):
            return str(event.get("timestamp", "")) >= clock.iso(since)
    return False
