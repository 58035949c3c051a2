"""The event log: `.grid/events/current.jsonl`, the live pub/sub and conflict-detection feed."""

from __future__ import annotations

import itertools
import json
import os
import time
from typing import Any

from gridgit import clock, storage
from gridgit.layout import Layout

_sequence = itertools.count()


def new_id() -> str:
    """A unique id that sorts by time: nanoseconds, then pid and a per-process counter."""
    return f"{time.time_ns():016x}-{os.getpid():07x}-{next(_sequence) & 0xFFFFFF:06x}"


def emit(layout: Layout, event_type: str, payload: dict[str, Any]) -> dict[str, Any]:
    """Append one event to the log and publish it as latest.json; returns the event.

    The events lock is a leaf of the lock order: callers emit after releasing data locks.
    """
    layout.events_dir.mkdir(parents=True, exist_ok=True)
    with storage.locked(layout.events_log):
        event = {"id": new_id(), "type": event_type, "timestamp": clock.now_iso(), "payload": payload}
        line = json.dumps(event, ensure_ascii=False, separators=(",", ":")) + "\n"
        storage.append_bytes(layout.events_log, line.encode("utf-8"))
        storage.atomic_write(layout.latest_event, line, durable=False)
    return event
