"""Stable ids of entries and learnings: ULIDs (26 characters of Crockford base32).

A ULID is 48 bits of milliseconds and 80 random bits, so ids sort by the time they were
made and two machines never make the same one. Within one process and one millisecond
the random part counts up, so one process's ids sort in the order it made them.

An item written by an earlier gridgit has no id: `derived_id` gives it one from its own
fields (time part from its timestamp, the rest from a hash), so two clones that read the
same legacy file assign the same ids.
"""

from __future__ import annotations

import _thread  # not threading, hashlib at the top: new_id runs in every emit, hooks included
import os
import re
import time

from gridgit.store import clock

_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
ID_RE = re.compile(r"^[0-9A-HJKMNP-TV-Z]{26}$")
_RANDOM_BITS = 80
_lock = _thread.allocate_lock()
_last: tuple[int, int, int] = (0, 0, 0)  # (pid, ms, random) of the last id this process made


def _encode(ms: int, random: int) -> str:
    value = (ms << _RANDOM_BITS) | random
    return "".join(_ALPHABET[(value >> shift) & 31] for shift in range(125, -1, -5))


def new_id() -> str:
    """A fresh ULID, greater than any this process made before."""
    global _last
    ms = time.time_ns() // 1_000_000
    with _lock:
        pid, last_ms, last_random = _last
        # A forked child starts with its parent's state: the pid tells it to draw afresh.
        if pid == os.getpid() and ms <= last_ms and last_random + 1 < 1 << _RANDOM_BITS:
            ms, random = last_ms, last_random + 1
        else:
            random = int.from_bytes(os.urandom(_RANDOM_BITS // 8), "big")
        _last = (os.getpid(), ms, random)
    return _encode(ms, random)


def derived_id(timestamp: str, *fields: str) -> str:
    """The id of a legacy item: its TIMESTAMP (spec format; 0 when unreadable) and a hash of its FIELDS."""
    try:
        ms = int(clock.parse(timestamp).timestamp() * 1000) if timestamp else 0
    except (ValueError, OverflowError):
        ms = 0
    return _hashed(min(max(ms, 0), (1 << 48) - 1), fields)


def _hashed(ms: int, fields: tuple[str, ...]) -> str:
    """An id with time part MS and the rest from a hash of FIELDS: the same wherever it is made."""
    import hashlib

    digest = hashlib.sha256("\x1f".join(fields).encode("utf-8")).digest()
    return _encode(ms, int.from_bytes(digest[: _RANDOM_BITS // 8], "big"))


def child_id(parent: str, timestamp: str, *fields: str) -> str:
    """The id of an item made from item PARENT (a carried copy, a promoted learning): the same in every clone.

    Its time part is PARENT's own when PARENT is an id, else TIMESTAMP's; the rest a hash of
    FIELDS. Never the time of a copy: clones that carried or promoted one item at different
    moments must still agree on its id, or a merge keeps it twice.
    """
    if not is_id(parent):
        return derived_id(timestamp, *fields)
    ms = 0
    for char in parent[:10]:
        ms = (ms << 5) | _ALPHABET.index(char)
    return _hashed(ms & ((1 << 48) - 1), fields)


def is_id(text: str) -> bool:
    return bool(ID_RE.match(text))


def legacy_entry_id(phase_id: str, timestamp: str, agent_id: str, category: str, topic: str, ordinal: int = 0) -> str:
    """The uid of a scratchpad entry an earlier gridgit wrote: from what identified it then, and its phase.

    ORDINAL tells apart entries of one file with the same fields (0 for the first). A legacy
    learning's origin (`phase@timestamp/agent/category/topic`) names its entry by the same fields.
    """
    fields = [phase_id, timestamp, agent_id, category, topic] + ([str(ordinal)] if ordinal else [])
    return derived_id(timestamp, "entry", *fields)
