"""Search: one ranked full-text search over everything the Blackboard holds."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gridgit.api.base import BoardBase

if TYPE_CHECKING:
    from gridgit.search.hits import SearchResult


class SearchAPI(BoardBase):
    """Search: scratchpads, archives, LEARNINGS.md, memory/ and block plans, ranked by BM25 (docs/search.md)."""

    def search(
        self,
        query: str | None,
        category: str | None = None,
        agent: str | None = None,
        phase: str | None = None,
        file: str | None = None,
        since: str | None = None,
        limit: int = 20,
        kinds: list[str] | None = None,
    ) -> SearchResult:
        """The best LIMIT documents for QUERY (words, "phrases", prefix*, OR, -word), with filters;
        FILE: entries citing that file (or, ending in /, a file in that folder); SINCE: a date or 2h, 7d."""
        from gridgit.model.categories import entry_category
        from gridgit.search import query as query_mod

        category = entry_category(category) if category else category
        return query_mod.search(self.layout, query, category, agent, phase, file, since, limit, tuple(kinds or ()))
