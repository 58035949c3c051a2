"""The scratchpad index: a cache that is always a pure function of the entries."""

from __future__ import annotations

from collections.abc import Iterable

from gridgit.scratchpad.entry import CATEGORIES, RELEVANCES, Entry

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

RECENT_MAX = 10
DEFAULT_MAX_ENTRIES = 50


def rebuild(entries: Iterable[Entry], max_entries: int = DEFAULT_MAX_ENTRIES) -> dict[str, Any]:
    """The index of ENTRIES, in the spec's shape (every category and relevance listed)."""
    by_topic: dict[str, list[int]] = {}
    by_agent: dict[str, list[int]] = {}
    by_category: dict[str, list[int]] = {c: [] for c in CATEGORIES}
    by_relevance: dict[str, list[int]] = {r: [] for r in RELEVANCES}
    ids: list[int] = []
    for entry in entries:
        ids.append(entry.id)
        by_topic.setdefault(entry.topic, []).append(entry.id)
        for agent in dict.fromkeys([entry.agent_id, *entry.contributors]):
            by_agent.setdefault(agent, []).append(entry.id)
        by_category[entry.category].append(entry.id)
        by_relevance[entry.relevance].append(entry.id)
    return {
        "entry_count": len(ids),
        "max_entries": max_entries,
        "by_topic": by_topic,
        "by_agent": by_agent,
        "by_category": by_category,
        "by_relevance": by_relevance,
        "recent": sorted(ids, reverse=True)[:RECENT_MAX],
    }
