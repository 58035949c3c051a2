"""Phase scratchpads (L2): write, read, the spec's lookup helpers, heartbeats, subscriptions."""

from __future__ import annotations

from typing import Any

from gridgit.api.base import BoardBase
from gridgit.errors import BadInput


class ScratchpadAPI(BoardBase):
    """Phase scratchpads (L2): write, read, the spec's lookup helpers, heartbeats, subscriptions."""

    def write(
        self,
        category: str,
        topic: str,
        content: str,
        tags: list[str] | None = None,
        relevance: str | None = None,
        block: str | None = None,
        phase: str | None = None,
        agent: str | None = None,
        title: str | None = None,
        scope: str = "phase",
        supersedes: str = "",
        affects_phases: list[str] | None = None,
    ) -> Any:
        """Write a scratchpad entry (merged into a recent one of another agent when it matches).

        BLOCK defaults to the agent's registered block, else STATE's position. SCOPE `mission`
        marks a decision architectural: it lands in STATE's persistent.decisions too, as does one
        whose AFFECTS_PHASES go beyond its phase. SUPERSEDES names the earlier entry of the topic
        it replaces (see gridgit.scratchpad.store.write_entry).
        """
        from gridgit.coordination import activity
        from gridgit.model.categories import entry_category
        from gridgit.scratchpad import store

        agent_id = self.agent(agent)
        phase_id, block_id = self._phase_and_block(phase, block, agent_id)
        entry = store.write_entry(
            self.layout, phase_id, agent_id, entry_category(category), topic, content, tags or [],
            relevance=relevance, block_id=block_id, title=title, config=self.config, scope=scope,
            supersedes=supersedes, affects_phases=affects_phases,
        )  # fmt: skip
        activity.record(self.layout, agent_id, "write")  # a write is a sign of its agent's work
        return entry

    def read(
        self,
        phase: str | None = None,
        topic: str | None = None,
        category: str | None = None,
        relevance: str | None = None,
        by: str | None = None,
        limit: int | None = None,
        archived: bool = False,
    ) -> list[Any]:
        """Scratchpad entries newest first, then the open work only the archive holds (`archived` set);
        RELEVANCE is a minimum, BY an agent id.

        ARCHIVED reads the phase's archive instead (where a completed phase's entries are).
        """
        from gridgit.model.categories import entry_category
        from gridgit.scratchpad import reads

        read = reads.read_archived if archived else reads.read_live
        category = entry_category(category) if category is not None else None
        return read(self.layout, self.phase(phase), topic, category, relevance, self._filter_agent(by), limit)

    def lookup_by_topic(self, topic: str, phase: str | None = None) -> list[Any]:
        return self.read(phase, topic=topic)

    def lookup_by_category(self, category: str, phase: str | None = None) -> list[Any]:
        return self.read(phase, category=category)

    def recent(self, count: int = 10, phase: str | None = None) -> list[Any]:
        return self.read(phase, limit=count)

    def high_relevance(self, phase: str | None = None) -> list[Any]:
        return self.read(phase, relevance="HIGH")

    def agent_entries(self, agent_id: str, phase: str | None = None) -> list[Any]:
        return self.read(phase, by=agent_id)

    def blockers(self, phase: str | None = None) -> list[Any]:
        return self.read(phase, category="blocker")

    def handoffs(self, phase: str | None = None) -> list[Any]:
        return self.read(phase, category="handoff")

    def heartbeat(
        self,
        progress: int,
        action: str,
        thread: str | None = None,
        files: list[str] | None = None,
        block: str | None = None,
        phase: str | None = None,
        agent: str | None = None,
    ) -> Any:
        """Write a heartbeat entry (progress percent, current action, files touched)."""
        from gridgit.coordination import heartbeat

        agent_id = self.agent(agent)
        phase_id, block_id = self._phase_and_block(phase, block, agent_id)
        return heartbeat.write_heartbeat(
            self.layout, phase_id, agent_id, block_id, thread or "", progress, action, files or [],
            config=self.config,
        )  # fmt: skip

    def staleness(self, agent: str, phase: str | None = None) -> dict[str, Any]:
        """{agent_id, stale, last_heartbeat, minutes_since, warning_level} of one agent."""
        from gridgit.coordination import heartbeat

        return heartbeat.check_agent_staleness(self.layout, self.phase(phase), self.agent(agent), config=self.config)

    def stale(self, phase: str | None = None, everyone: bool = False) -> list[dict[str, Any]]:
        """Staleness of the phase's stale agents (EVERYONE: of every watched agent)."""
        from gridgit.coordination import heartbeat

        report = heartbeat.staleness_report(self.layout, self.phase(phase))
        return report if everyone else [r for r in report if r["stale"]]

    def subscribe(
        self, topics: list[str], relevance_min: str = "LOW", phase: str | None = None, agent: str | None = None
    ) -> dict[str, Any]:
        """Hear of entries on TOPICS (or ["*"]) at RELEVANCE_MIN+ through the inbox, which opens now.

        A scratchpad writer's subscription is in the phase's scratchpad (named in `entry_written`
        events, carried into the next phase); a read-only agent's is machine-local, for every
        phase (see gridgit.scratchpad.subscriptions). `stored` in the answer says which.
        """
        from gridgit.coordination import inbox

        return inbox.subscribe(self.layout, self.phase(phase), self.agent(agent), topics, relevance_min)

    def unsubscribe(self, phase: str | None = None, agent: str | None = None) -> bool:
        """Drop AGENT's subscription (in the phase's scratchpad: not carried on either); False when it had none."""
        from gridgit.scratchpad import subscriptions

        return subscriptions.unsubscribe(self.layout, self.phase(phase), self.agent(agent))

    def reindex(self, phase: str | None = None) -> dict[str, bool]:
        """Rebuild scratchpad indexes from their bodies (every phase when PHASE is None).

        Returns {phase_id: changed}; phases whose body does not parse are reported together
        in one BadInput after the others were re-indexed.
        """
        from gridgit.errors import GridError
        from gridgit.scratchpad import store

        self.layout.require()
        if phase:
            return {phase: store.reindex(self.layout, self.phase(phase))}
        changed: dict[str, bool] = {}
        failures: list[str] = []
        for phase_id in self.layout.phase_ids():
            if not self.layout.scratchpad(phase_id).exists():
                continue
            try:
                changed[phase_id] = store.reindex(self.layout, phase_id)
            except GridError as exc:
                failures.append(str(exc))
        if failures:
            done = ", ".join(p for p, c in changed.items() if c) or "none"
            raise BadInput(f"{'; '.join(failures)} (re-indexed: {done})")
        return changed
