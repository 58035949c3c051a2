"""Blackboard: the Python API. Everything the CLI does, an agent can do in-process."""

from __future__ import annotations

import functools
import os
from pathlib import Path
from typing import Any

from gridgit.errors import BadInput
from gridgit.model import permissions
from gridgit.model import state as state_mod
from gridgit.store import config as config_mod
from gridgit.store.layout import Layout, check_phase_id, default_phase_name, parse_phase_spec


class Blackboard:
    """The Blackboard of the repository around PATH (default: the current directory).

    AGENT is the default agent id for writes (else GRID_AGENT_ID).
    """

    def __init__(self, path: Path | str | None = None, agent: str | None = None) -> None:
        self.layout = Layout.find(path)
        self.default_agent = agent or os.environ.get("GRID_AGENT_ID")

    # ---- identity and defaults ----------------------------------------------------------

    def agent(self, agent: str | None = None) -> str:
        """AGENT, else the board's default, else GRID_AGENT_ID; an agent is required to write."""
        chosen = agent or self.default_agent or os.environ.get("GRID_AGENT_ID")
        if not chosen:
            raise BadInput("no agent id: pass --agent or set GRID_AGENT_ID")
        return chosen

    def phase(self, phase_id: str | None = None) -> str:
        """PHASE_ID, else STATE's current phase."""
        if phase_id:
            return check_phase_id(phase_id)
        current = self.state().get("position", {}).get("phase_id")
        if not current:
            raise BadInput("no phase: pass --phase or start one with `gridgit phase start`")
        return check_phase_id(current)

    @functools.cached_property
    def config(self) -> dict[str, Any]:
        return config_mod.load(self.layout)

    # ---- set-up ---------------------------------------------------------------------------

    def init(
        self, mission: str | None = None, phases: list[str] | None = None, force: bool = False, hooks: bool = True
    ) -> Any:
        """Create .grid/ (see gridgit.setup.init); PHASES are `ID[:NAME]` strings."""
        from gridgit.setup import init as init_mod

        specs = [parse_phase_spec(p) for p in phases or []]
        parsed = [(pid, name or default_phase_name(pid)) for pid, name in specs]
        return init_mod.init(self.layout, mission, parsed, force, hooks)

    # ---- L3: STATE.md ---------------------------------------------------------------------

    def state(self) -> dict[str, Any]:
        return state_mod.read(self.layout)

    def state_field(self, dotted: str) -> Any:
        found, value = state_mod.lookup(self.state(), dotted)
        if not found:
            raise BadInput(f"STATE.md has no field {dotted!r}")
        return value

    def update_state(self, updates: dict[str, Any], agent: str | None = None) -> dict[str, Any]:
        return state_mod.update(self.layout, updates, self.agent(agent))

    def set_state(self, assignments: dict[str, Any], agent: str | None = None) -> dict[str, Any]:
        """Update from dotted paths: {"position.block": 2} sets only that leaf."""
        merged: dict[str, Any] = {}
        for dotted, value in assignments.items():
            merged = config_mod.deep_merge(merged, state_mod.dotted_to_nested(dotted, value))
        return self.update_state(merged, agent)

    # ---- L2: scratchpads, heartbeats (issue 3) -----------------------------------------

    def _phase_and_block(self, phase: str | None, block: str | None) -> tuple[str, str]:
        """PHASE and BLOCK; without PHASE both come from STATE's position (one read of STATE).

        With an explicit PHASE, STATE is not read at all: the write path stays one file read.
        """
        if phase:
            return check_phase_id(phase), block or ""
        position = self.state().get("position") or {}
        if not position.get("phase_id"):
            raise BadInput("no phase: pass --phase or start one with `gridgit phase start`")
        return check_phase_id(position["phase_id"]), block if block is not None else str(position.get("block_id") or "")

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
    ) -> Any:
        """Write a scratchpad entry (merged into a recent one of another agent when it matches)."""
        from gridgit.scratchpad import store

        phase_id, block_id = self._phase_and_block(phase, block)
        return store.write_entry(
            self.layout, phase_id, self.agent(agent), category, topic, content, tags or [],
            relevance=relevance, block_id=block_id, title=title, config=self.config,
        )  # fmt: skip

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
        """Scratchpad entries newest first; RELEVANCE is a minimum, BY an agent id.

        ARCHIVED reads the phase's archive instead (where a completed phase's entries are).
        """
        from gridgit.scratchpad import reads

        read = reads.read_archived if archived else reads.read_entries
        return read(self.layout, self.phase(phase), topic, category, relevance, by, limit)

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

        phase_id, block_id = self._phase_and_block(phase, block)
        return heartbeat.write_heartbeat(
            self.layout, phase_id, self.agent(agent), block_id, thread or "", progress, action, files or [],
            config=self.config,
        )  # fmt: skip

    def staleness(self, agent: str, phase: str | None = None) -> dict[str, Any]:
        """{agent_id, stale, last_heartbeat, minutes_since, warning_level} of one agent."""
        from gridgit.coordination import heartbeat

        return heartbeat.check_agent_staleness(self.layout, self.phase(phase), agent, config=self.config)

    def stale(self, phase: str | None = None, everyone: bool = False) -> list[dict[str, Any]]:
        """Staleness of the phase's stale agents (EVERYONE: of every watched agent)."""
        from gridgit.coordination import heartbeat

        report = heartbeat.staleness_report(self.layout, self.phase(phase))
        return report if everyone else [r for r in report if r["stale"]]

    def subscribe(
        self, topics: list[str], relevance_min: str = "LOW", phase: str | None = None, agent: str | None = None
    ) -> dict[str, Any]:
        """Be named in `entry_written` events for TOPICS (or ["*"]) at RELEVANCE_MIN or above."""
        from gridgit.scratchpad import store

        return store.subscribe(self.layout, self.phase(phase), self.agent(agent), topics, relevance_min)

    def reindex(self, phase: str | None = None) -> dict[str, bool]:
        """Rebuild scratchpad indexes from their bodies (every phase when PHASE is None).

        Returns {phase_id: changed}; phases whose body does not parse are reported together
        in one BadInput after the others were re-indexed.
        """
        from gridgit.errors import GridError
        from gridgit.scratchpad import store

        self.layout.require()
        if phase:
            return {phase: store.reindex(self.layout, check_phase_id(phase))}
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

    # ---- phases, archive, promotion, L4 (issue 3) --------------------------------------

    def _master_control(self, agent: str | None = None) -> str:
        """AGENT, else the default agent, else `mc`: whoever drives phases without an id is MC."""
        return agent or self.default_agent or os.environ.get("GRID_AGENT_ID") or "mc"

    def start_phase(self, phase_id: str, name: str | None = None, agent: str | None = None) -> bool:
        """Start a phase (see gridgit.phases.lifecycle.start_phase); False when it had already started."""
        from gridgit.phases import lifecycle

        return lifecycle.start_phase(self.layout, phase_id, name, self._master_control(agent))

    def complete_phase(self, phase_id: str, next_phase: str | None = None, agent: str | None = None) -> Any:
        """Complete a phase (see gridgit.phases.lifecycle.complete_phase); NEXT_PHASE is `ID[:NAME]`."""
        from gridgit.phases import lifecycle

        return lifecycle.complete_phase(self.layout, phase_id, next_phase, self._master_control(agent))

    def phases(self) -> list[dict[str, Any]]:
        """Every phase: id, name, status, current, entries, archived, started_at, completed_at."""
        from gridgit.phases import lifecycle

        return lifecycle.list_phases(self.layout)

    def archive(self, phase_id: str | None = None, agent: str | None = None) -> int:
        """Move a phase's whole scratchpad to its archive without promotion; returns how many moved."""
        from gridgit.phases import lifecycle

        return lifecycle.archive_scratchpad(self.layout, self.phase(phase_id), self._master_control(agent))

    def promote(self, phase_id: str | None = None, agent: str | None = None, dry_run: bool = False) -> Any:
        """Promote a phase's high-value entries to LEARNINGS.md (memory agents); a PromotionResult."""
        from gridgit.phases import promotion

        return promotion.promote(self.layout, self.phase(phase_id), self.agent(agent), dry_run)

    def learnings(self, category: str | None = None) -> list[Any]:
        """LEARNINGS.md's learnings (gridgit.model.learnings.Learning), optionally of one section."""
        from gridgit.model import learnings

        return learnings.read(self.layout, category)

    # ---- events, conflicts, claims (issue 4) -------------------------------------------

    def _attributed(self, agent: str | None) -> str:
        """Who a file change is attributed to: AGENT, the default agent, git config grid.agent, or unknown."""
        return permissions.attribute_agent(self.layout, agent or self.default_agent)

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
        from gridgit.events import bus

        return bus.tail(self.layout.require(), n, types)

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

        who = self._attributed(agent)
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

        who = self._attributed(agent)
        return conflicts.resolve(self.layout, who, paths, note)

    def claim(
        self,
        patterns: list[str],
        agent: str | None = None,
        ttl: float | None = None,
        exclusive: bool = False,
        reason: str = "",
    ) -> Any:
        """Advisory claims on paths/globs for TTL minutes: a ClaimResult (granted, conflicts)."""
        from gridgit.coordination import claims

        return claims.claim(self.layout, patterns, self.agent(agent), ttl, exclusive, reason)

    def release(self, patterns: list[str] | None = None, agent: str | None = None) -> list[Any]:
        """Release AGENT's claims on PATTERNS (all of them when None)."""
        from gridgit.coordination import claims

        return claims.release(self.layout, self.agent(agent), patterns)

    def claims(self, agent: str | None = None) -> list[Any]:
        """Live claims (of AGENT, or everyone's)."""
        from gridgit.coordination import claims

        return claims.live_claims(self.layout.require(), agent)

    # ---- git integration: validation, hooks (issue 5) ----------------------------------

    def validate(self, paths: list[str] | None = None, staged: bool = False) -> list[Any]:
        """Problems (gridgit.validation.rules.Problem) of the .grid/ files: the work tree, or with STAGED the index."""
        from gridgit.validation import rules

        return rules.validate_paths(self.layout, paths, staged)

    def install_hooks(self) -> Any:
        """Install the git hooks and the merge driver (see gridgit.git.hooks.install)."""
        from gridgit.git import hooks

        return hooks.install(self.layout)

    def uninstall_hooks(self) -> Any:
        """Remove gridgit's hooks and merge driver, restoring what was there before."""
        from gridgit.git import hooks

        return hooks.uninstall(self.layout)

    def hooks_status(self) -> Any:
        from gridgit.git import hooks

        return hooks.status(self.layout)

    # ---- watcher daemon (issue 6) -------------------------------------------------------

    def watch(self, polling: bool = False, background: bool = False) -> None:
        """Run the watcher in this process until SIGTERM / SIGINT (see gridgit.watch.daemon.run)."""
        from gridgit.watch import daemon

        daemon.run(self.layout, polling=polling, background=background)

    def daemon_start(self, polling: bool = False, timeout: float = 30.0) -> Any:
        """Start the background watcher unless one runs; a DaemonStatus (action: started / already-running)."""
        from gridgit.watch import daemon

        return daemon.start(self.layout, polling=polling, timeout=timeout)

    def daemon_stop(self, timeout: float = 10.0) -> Any:
        """SIGTERM the background watcher and wait; a DaemonStatus (action: stopped / not-running / cleaned)."""
        from gridgit.watch import daemon

        return daemon.stop(self.layout, timeout=timeout)

    def daemon_status(self) -> Any:
        """A DaemonStatus: state running / starting / stopped / stale-pid, pid, since, watches."""
        from gridgit.watch import daemon

        return daemon.status(self.layout)

    def daemon_logs(self, lines: int = 50) -> list[str]:
        from gridgit.watch import daemon

        return daemon.logs(self.layout, lines)

    def daemon_follow_logs(self) -> Any:
        from gridgit.watch import daemon

        return daemon.follow(self.layout)

    # ---- dashboard, context packs, doctor (issue 8) ------------------------------------

    def status(self) -> dict[str, Any]:
        """The mission dashboard as data (see gridgit.views.status)."""
        from gridgit.views import status as status_mod

        return status_mod.summary(self)

    def context(
        self,
        agent: str | None = None,
        phase_id: str | None = None,
        query: str | None = None,
        budget: int | None = None,
    ) -> Any:
        """The context pack an agent reads before it starts (see gridgit.views.context.ContextPack)."""
        from gridgit.views import context as context_mod

        return context_mod.gather(self, self.agent(agent), phase_id, query, budget)

    def doctor(self) -> Any:
        """Check the repository's gridgit set-up (see gridgit.views.doctor.Report)."""
        from gridgit.views import doctor as doctor_mod

        return doctor_mod.run(self.layout.root)
