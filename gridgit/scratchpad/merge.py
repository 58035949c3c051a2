"""The merge protocol (blackboard-spec handle_scratchpad_conflict): additive, never overwrite.

A write with the category and topic of an entry another agent wrote less than the merge
window ago is appended to that entry instead of becoming a new one.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from gridgit.scratchpad.entry import MAX_CONTENT_BYTES, Entry, relevance_rank
from gridgit.store import clock


def merged_content(existing: Entry, new: Entry) -> str:
    return f"{existing.content}{_UPDATE.format(agent=new.agent_id)}{new.content}"


_UPDATE = "\n\n---\n\n**Update from {agent}:**\n"
_UPDATE_RE = re.compile(r"\n\n---\n\n\*\*Update from ([^\s*]+):\*\*\n")


def contributions(entry: Entry) -> list[tuple[str, str]]:
    """(agent, its words) of each part of a merged entry's content, the author's first (merged_content read back)."""
    parts = _UPDATE_RE.split(entry.content)
    return [(entry.agent_id, parts[0]), *zip(parts[1::2], parts[2::2], strict=True)]


def find_target(entries: Sequence[Entry], new: Entry, now: str, window_minutes: Callable[[], float]) -> Entry | None:
    """The entry NEW merges into, if any.

    The latest entry of the same category and topic, when another agent wrote it less than
    WINDOW_MINUTES() ago (called only then: it may read config.json). Heartbeats never
    merge, nor does anything into a resolved entry, and a merge that would pass the content limit becomes a new entry instead.
    """
    if new.category == "heartbeat" or new.supersedes:  # a replacement says so on an entry of its own
        return None
    latest = next((e for e in reversed(entries) if e.category == new.category and e.topic == new.topic), None)
    # A resolved blocker or question stays closed: a new one on its topic is a new entry.
    if latest is None or latest.agent_id == new.agent_id or latest.resolved:
        return None
    try:
        age = clock.minutes_since(latest.timestamp, clock.parse(now))
    except ValueError:  # a hand-edited timestamp: too unclear to merge into
        return None
    # abs(): a clock that went back (another machine's entry) is still "recent", not ancient.
    if abs(age) >= window_minutes():
        return None
    if len(merged_content(latest, new).encode("utf-8")) > MAX_CONTENT_BYTES:
        return None
    return latest


def merge_into(existing: Entry, new: Entry) -> None:
    """Append NEW to EXISTING: content, union of tags, contributors and affected phases, the higher relevance."""
    existing.content = merged_content(existing, new)
    existing.tags = list(dict.fromkeys([*existing.tags, *new.tags]))
    existing.contributors = list(dict.fromkeys([*(existing.contributors or [existing.agent_id]), new.agent_id]))
    existing.affects_phases = sorted({*existing.affects_phases, *new.affects_phases})
    if relevance_rank(new.relevance) > relevance_rank(existing.relevance):
        existing.relevance = new.relevance
