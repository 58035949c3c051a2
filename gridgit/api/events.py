"""The event log, cursors, file changes, write conflicts and claims."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gridgit.api.base import BoardBase


class EventsAPI(BoardBase):
    """The event log, cursors, file changes, write conflicts and claims."""

    def emit(self, event_type: str, payload: dict[str, Any] | None = None) -> dict[str, Any]:
        """Append an event to the log (payload redacted); returns it."""
        from gridgit.events import bus

        self.layout.require()
        return bus.emit(self.layout, event_type, payload or {})

    def event_reader(
        self,
        types: list[str] | None = None,
        topics: list[str] | None = None,
        callback: Any = None,
        offset: Any = 0,
    ) -> Any:
        """The spec's EventStreamReader (gridgit.events.cursors): poll() returns what is new since the last poll."""
        from gridgit.events import cursors

        return cursors.EventStreamReader(self.layout.require(), types, topics, callback, offset)

    def poll(
        self,
        agent: str | None = None,
        types: list[str] | None = None,
        topics: list[str] | None = None,
        limit: int | None = None,
    ) -> list[dict[str, Any]]:
        """The events AGENT has not seen yet, each delivered once (a durable per-agent cursor)."""
        from gridgit.events import cursors

        return cursors.poll(self.layout, self.agent(agent), types, topics, limit)

    def reset_cursor(self, agent: str | None = None, to_end: bool = False) -> Any:
        """Forget what AGENT has seen (TO_END: mark everything up to now as seen)."""
        from gridgit.events import cursors

        return cursors.reset(self.layout, self.agent(agent), to_end)

    def tail(self, n: int = 20, types: list[str] | None = None) -> list[dict[str, Any]]:
        """The last N events, oldest first."""
        from gridgit.events import scan

        return scan.tail(self.layout.require(), n, types)

    def touch(
        self,
        path: str | Path,
        operation: str = "modified",
        agent: str | None = None,
        old_path: str | Path | None = None,
        check: bool = True,
    ) -> Any:
        """Record `file_modified` for PATH (repo-relative or absolute) and check it: a ModificationResult."""
        from gridgit.coordination import conflicts

        who = self.agent(agent)
        return conflicts.record_modification(self.layout, path, who, operation, old_path, check)

    def check_conflict(self, path: str | Path, agent: str | None = None, window: float | None = None) -> Any:
        """Other agents' recent writes and exclusive claims on PATH: a ConflictResult (has_conflict)."""
        from gridgit.coordination import conflicts

        who = self._attributed(agent)
        return conflicts.check_conflict(self.layout, path, who, window)

    def open_conflicts(self) -> list[dict[str, Any]]:
        """The write conflicts CHECKPOINT.md lists as open."""
        from gridgit.coordination import conflicts

        return conflicts.open_conflicts(self.layout)

    def resolve_conflicts(
        self, paths: list[str | Path] | None = None, agent: str | None = None, note: str = ""
    ) -> list[dict[str, Any]]:
        """Close open conflicts (on PATHS, or all)."""
        from gridgit.coordination import conflicts

        who = self.agent(agent)
        return conflicts.resolve(self.layout, who, paths, note)

    def claim(
        self,
        patterns: list[str],
        agent: str | None = None,
        ttl: float | None = None,
        exclusive: bool | None = None,
        reason: str = "",
    ) -> Any:
        """Advisory claims on paths/globs for TTL minutes: a ClaimResult (granted, conflicts, waiting).

        EXCLUSIVE None renews a claim as it was (a new one is shared); False makes it shared. With a
        remote, an exclusive claim is confirmed on the remote first, as a take is (gridgit.history.publish):
        `pushed`, or `provisional` when the remote could not confirm it (or `claims.push_on_claim` is false);
        of two agents' overlapping exclusive claims the first there holds and the other waits behind it.
        """
        from gridgit.coordination import claims
        from gridgit.history import publish

        actor = self.agent(agent)
        if exclusive is not True:  # nothing to put in order: auto-sync carries it at once
            claimed = claims.claim(self.layout, patterns, actor, ttl, exclusive, reason)
            self._push_soon()
            return claimed
        published = publish.publish(
            self.layout,
            lambda: claims.claim(self.layout, patterns, actor, ttl, True, reason, tell=False),
            lambda made: claims.undo(self.layout, made.before, made.granted),
            self._attributed(actor),
            self.config["sync"]["ref"],
            push=self.config["claims"]["push_on_claim"],
        )
        claimed = published.record
        claimed.pushed, claimed.provisional, claimed.reason = (
            published.confirmed,
            published.provisional,
            published.reason,
        )
        claims.announce(self.layout, actor, claimed)
        return claimed

    def release(
        self, patterns: list[str] | None = None, agent: str | None = None, holder: str | None = None
    ) -> list[Any]:
        """Release AGENT's claims on PATTERNS (all of them when None); HOLDER: another agent's (Master Control only).

        Master Control naming PATTERNS without HOLDER releases every agent's claims on them, each holder told.
        """
        from gridgit.coordination import claims
        from gridgit.model.permissions import agent_type

        actor = self.agent(agent)
        whose: str | None = self.agent(holder) if holder else actor
        if holder is None and patterns and agent_type(actor) == "mc":
            whose = None
        released = claims.release(self.layout, whose, patterns, by=actor)
        self._push_soon()
        return released

    def claims(self, agent: str | None = None) -> list[Any]:
        """Live claims (of AGENT, or everyone's)."""
        from gridgit.coordination import claims

        return claims.live_claims(self.layout.require(), self._filter_agent(agent))
