"""The live feed behind Server-Sent Events: one forward reader of the event log, shared by every browser.

A thread starts at the end of the log (EventStreamReader.at_end) and reads what is appended,
at most every INTERVAL seconds and only when the live log's size or inode changed (one stat
call otherwise). New events go into a numbered ring buffer; each SSE connection waits on it
from its own number, so a hundred open pages cost one reader, not a hundred.
"""

from __future__ import annotations

import logging
import os
import threading
from collections import deque
from typing import Any

from gridgit.errors import GridError
from gridgit.events import cursors
from gridgit.store.layout import Layout

INTERVAL = 0.1
KEEP = 512
log = logging.getLogger("gridgit.serve")


class TooManyClients(Exception):
    """Every stream slot is taken."""


class EventFeed:
    """New events of the log, numbered 1, 2, ... in arrival order, for any number of waiting readers."""

    def __init__(self, layout: Layout, interval: float = INTERVAL, keep: int = KEEP, max_clients: int = 32) -> None:
        self.layout = layout
        self.interval = interval
        self.max_clients = max_clients
        self._reader = cursors.EventStreamReader.at_end(layout)
        self._signature = self._stat()
        self._buffer: deque[tuple[int, dict[str, Any]]] = deque(maxlen=keep)
        self._last = 0
        self._clients = 0
        self._closed = False
        self._changed = threading.Condition()
        self._thread = threading.Thread(target=self._run, name="gridgit-serve-feed")

    def start(self) -> None:
        self._thread.start()

    def close(self) -> None:
        """Stop reading and wake every waiting stream (each then ends); joins the reader thread."""
        with self._changed:
            self._closed = True
            self._changed.notify_all()
        if self._thread.is_alive():
            self._thread.join()

    def _stat(self) -> tuple[int, int] | None:
        try:
            status = os.stat(self.layout.events_log)
        except FileNotFoundError:
            return None
        return status.st_ino, status.st_size

    def _run(self) -> None:
        while True:
            with self._changed:
                if self._closed or self._changed.wait_for(lambda: self._closed, self.interval):
                    return
            # Stat before reading: bytes appended after this stat change the signature again.
            signature = self._stat()
            if signature == self._signature:
                continue
            self._signature = signature
            try:
                fresh = self._reader.poll()
            except (GridError, OSError) as exc:  # a log mid-rotation or unreadable: try again next tick
                log.warning("gridgit serve: reading %s: %s", self.layout.events_log, exc)
                continue
            except Exception:  # a bug must not end live updates for every page: report it, keep going
                log.exception("gridgit serve: reading %s", self.layout.events_log)
                continue
            if fresh:
                with self._changed:
                    for event in fresh:
                        self._last += 1
                        self._buffer.append((self._last, event))
                    self._changed.notify_all()

    # ---- the streams' side -------------------------------------------------------------------

    def check_room(self) -> None:
        """TooManyClients when every stream slot is taken (a HEAD asks this: it takes no slot)."""
        with self._changed:
            if self._clients >= self.max_clients:
                raise TooManyClients(f"{self.max_clients} live streams are open already")

    def join(self, last_event_id: str | None = None) -> int:
        """Take a stream slot; returns the number to wait from (after LAST_EVENT_ID when still buffered)."""
        with self._changed:
            self.check_room()  # the condition's lock is re-entrant
            self._clients += 1
            if last_event_id:
                for number, event in self._buffer:
                    if event["id"] == last_event_id:
                        return number
            return self._last

    def leave(self) -> None:
        with self._changed:
            self._clients -= 1

    def wait(self, after: int, timeout: float) -> tuple[list[dict[str, Any]], int, bool] | None:
        """(events numbered after AFTER, the last number, whether some were lost) within TIMEOUT seconds.

        Empty when nothing came; None once the feed is closed. Lost is true when the buffer
        has moved past AFTER: the stream should tell its page to read everything again.
        """
        with self._changed:
            self._changed.wait_for(lambda: self._closed or self._last > after, timeout)
            if self._closed:
                return None
            oldest = self._buffer[0][0] if self._buffer else self._last + 1
            fresh = [event for number, event in self._buffer if number > after]
            return fresh, self._last, after + 1 < oldest and self._last > after
