"""The event log: `.grid/events/current.jsonl`, the live pub/sub and conflict-detection feed.

One JSON object a line, `{"id", "type", "timestamp", "payload"}`, appended under the events
lock. Past `events.rotate_bytes` the log is renamed to `events/archive/current-NNNNNN.jsonl`
(segment NNNNNN, gridgit.events.segments) and a new one starts; readers are in
gridgit.events.scan.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import re
import time

from gridgit.errors import BadInput, GridError
from gridgit.store import clock, fileio, locks, pathtext, usertext
from gridgit.store import config as config_mod
from gridgit.store.layout import Layout

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# Every event type gridgit knows; `gridgit events emit` refuses any other.
EVENT_TYPES = (
    # L3 state (spec section 3)
    "state_updated", "phase_changed", "blocker_added",
    # L2 scratchpads
    "entry_written", "entry_merged", "handoff_posted", "scratchpad_archived", "scratchpad_reindexed", "heartbeat",
    "entry_resolved", "entry_confirmed",
    # agents
    "agent_spawned", "agent_complete", "agent_stale",
    # phases and L4 (scratchpad protocol)
    "phase_started", "phase_completed", "phase_archived", "learning_extracted", "memory_updated",
    # work tree, conflicts and claims
    "file_modified", "files_modified_bulk", "write_conflict", "conflict_resolved", "claim_added", "claim_released",
    "claim_lost", "merge_conflict_predicted",
    # messages between agents
    "message_sent", "message_acked",
    # git integration, watcher and set-up
    "commit_recorded", "validation_failed", "grid_initialised", "daemon_started", "daemon_stopped",
    # the Blackboard's history: damage kept out of it, secrets redacted in it, a peer's files refused,
    # late entries of a completed phase carried on, post-commit work that failed
    "damage_kept", "secret_redacted", "peer_file_rejected", "completed_phase_settled", "commit_recording_failed",
    # the work agents take: blocks, budget, debug sessions
    "block_planned", "block_taken", "block_started", "block_completed", "block_released", "block_reoffered",
    "block_take_lost", "budget_added", "budget_limit_reached", "debug_started", "debug_noted", "debug_closed",
    # what STATE's mode makes wait for Master Control, and Master Control's hand on the queue
    "block_approved", "block_assigned", "phase_approval_requested",
)  # fmt: skip
OPERATIONS = ("created", "modified", "deleted", "moved")

_TYPE_RE = re.compile(r"^[a-z][a-z0-9_]{0,63}$")
_sequence = itertools.count()
_process: tuple[int, str] = (0, "")  # (pid, random tag) of this process


def new_id() -> str:
    """A unique id that sorts by time: nanoseconds, then a random per-process tag and a counter.

    The tag (48 random bits, drawn again in a forked child) keeps two machines, whose pids
    and clocks may coincide, from ever making the same id; the counter orders one process's.
    """
    global _process
    if _process[0] != os.getpid():
        _process = (os.getpid(), os.urandom(6).hex())
    return f"{time.time_ns():016x}-{_process[1]}-{next(_sequence) & 0xFFFFFF:06x}"


def check_type(event_type: str, known_only: bool = False) -> str:
    """EVENT_TYPE when it is a snake_case name (and, with KNOWN_ONLY, one of EVENT_TYPES)."""
    if not isinstance(event_type, str) or not _TYPE_RE.match(event_type):
        raise BadInput(f"invalid event type {event_type!r}: expected a snake_case name")
    if known_only and event_type not in EVENT_TYPES:
        raise BadInput(f"unknown event type {event_type!r} (known: {', '.join(EVENT_TYPES)})")
    return event_type


def emit(layout: Layout, event_type: str, payload: dict[str, Any]) -> dict[str, Any]:
    """Append one event to the log and publish it as latest.json; returns the event.

    The payload is redacted first. The events lock is a leaf of the lock order: callers emit
    after releasing their data locks.
    """
    return emit_many(layout, event_type, [payload])[0]


def emit_many(layout: Layout, event_type: str, payloads: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Append one event per payload, in order, with one lock and one write (a commit of 5,000 files)."""
    check_type(event_type)
    for payload in payloads:
        if not isinstance(payload, dict):
            raise BadInput(f"event payload must be a mapping, not {type(payload).__name__}")
    if not payloads:
        return []
    payloads = [usertext.clean_obj(p, "event payload", f"the payload of {event_type}") for p in payloads]
    rotate_at = int(_setting(layout, "events.rotate_bytes") or 0)
    layout.events_dir.mkdir(parents=True, exist_ok=True)
    with locks.locked(layout.events_log):
        events = [{"id": new_id(), "type": event_type, "timestamp": clock.now_iso(), "payload": p} for p in payloads]
        lines_out = [_encoded_line(event) for event in events]
        end = fileio.append_bytes(layout.events_log, b"".join(lines_out), own_line=True)
        fileio.atomic_write(layout.latest_event, lines_out[-1].decode("utf-8"), durable=False)
        if rotate_at > 0 and end >= rotate_at:
            _rotate(layout)
    return events


def _encoded_line(event: dict[str, Any]) -> bytes:
    """EVENT as one UTF-8 JSON line; a file name that is not UTF-8 is written as `\\xNN` (store.pathtext)."""
    try:
        return (_json_line(event) + "\n").encode("utf-8")
    except UnicodeEncodeError:
        event["payload"] = pathtext.as_text_obj(event["payload"])
        return (_json_line(event) + "\n").encode("utf-8")


def _json_line(event: dict[str, Any]) -> str:
    try:
        return json.dumps(event, ensure_ascii=False, separators=(",", ":"), allow_nan=False, default=str)
    except ValueError as exc:
        raise BadInput(f"event payload is not valid JSON: {exc}") from None


def notify(layout: Layout, event_type: str, payload: dict[str, Any]) -> dict[str, Any] | None:
    """Emit the event of a write that has already succeeded; a failure is a warning, not an error.

    The data is on disk: reporting failure would make an agent retry and write it twice.
    """
    try:
        return emit(layout, event_type, payload)
    except (GridError, OSError) as exc:
        import logging

        logging.getLogger("gridgit.events").warning(
            "gridgit: warning: written, but its %s event was not: %s", event_type, exc
        )
        return None


def _setting(layout: Layout, dotted: str) -> Any:
    """A config value (config.json parsed once per process, again only when it changed)."""
    try:
        return config_mod.get(config_mod.current(layout), dotted)
    except (KeyError, TypeError):
        return None


def _rotate(layout: Layout) -> None:
    """Under the events lock: the live log becomes the next archived segment."""
    from gridgit.events import segments  # only when the log is rotated

    archived = segments.archived(layout)
    number = segments.live_number(archived)
    target = segments.path(layout, number)
    fileio.refuse_symlink(layout.events_log)
    fileio.make_folder(target.parent)
    # A rename keeps the inode, so a reader holding the file keeps reading the same bytes.
    os.replace(layout.events_log, target)
    fileio.append_bytes(layout.events_log, b"")
    keep = int(_setting(layout, "events.keep_segments") or 0)
    if keep > 0:
        archived[number] = target
        for old in sorted(archived)[:-keep]:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(archived[old])
