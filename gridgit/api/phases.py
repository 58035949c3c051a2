"""Phases, archive, promotion and LEARNINGS.md (L4)."""

from __future__ import annotations

from typing import Any

from gridgit.api.base import BoardBase


class PhasesAPI(BoardBase):
    """Phases, archive, promotion and LEARNINGS.md (L4)."""

    def start_phase(
        self, phase_id: str, name: str | None = None, agent: str | None = None, force: bool = False
    ) -> bool:
        """Start a phase (see gridgit.phases.lifecycle.start_phase); False when it had already started.

        FORCE starts it out of order (another phase in progress, a pending one before it).
        """
        from gridgit.phases import lifecycle

        return lifecycle.start_phase(self.layout, phase_id, name, self._master_control(agent), force)

    def complete_phase(
        self, phase_id: str, next_phase: str | None = None, agent: str | None = None, force: bool = False
    ) -> Any:
        """Complete a phase (see gridgit.phases.lifecycle.complete_phase); NEXT_PHASE is `ID[:NAME]`.

        FORCE completes it out of order (past the current phase, into a next one that skips one),
        or while one of its blocks is still taken or in progress.
        A phase already complete that holds entries another clone wrote meanwhile has them
        settled (gridgit.phases.settle): archived and carried on as at its completion. A phase whose
        files were lost or damaged gets them back from the grid history first (`restored`).
        In `guided` and `hands_on` mode it waits for approve_phase instead (`awaiting_approval`).
        """
        return self._complete_phase(phase_id, next_phase, agent, force, approved=False)

    def approve_phase(
        self, phase_id: str, next_phase: str | None = None, agent: str | None = None, force: bool = False
    ) -> Any:
        """Master Control approves completing PHASE_ID: it completes now, with complete_phase's checks.

        What `guided` and `hands_on` mode wait for (gridgit.model.mode); in `autopilot` it is
        complete_phase by Master Control. A CompletionResult.
        """
        return self._complete_phase(phase_id, next_phase, agent, force, approved=True)

    def _complete_phase(
        self, phase_id: str, next_phase: str | None, agent: str | None, force: bool, approved: bool
    ) -> Any:
        from gridgit.history import restore
        from gridgit.phases import lifecycle, settle

        actor = self._master_control(agent)
        restored = restore.before_completion(self.layout.require(), phase_id, self._ref(), actor)
        result = lifecycle.complete_phase(self.layout, phase_id, next_phase, actor, force=force, approved=approved)
        result.restored = [str(r) for r in restored]
        if result.already_complete:
            result = settle.settle_phase(self.layout, phase_id)
        self._snapshot_after(f"complete phase {phase_id}", actor)
        return result

    def promote_entry(self, entry_id: str | int, phase: str | None = None, agent: str | None = None) -> Any:
        """Promote one entry to LEARNINGS.md (Master Control or memory agents): a PromotionResult."""
        from gridgit.phases import promotion

        return promotion.promote_entry(self.layout, self.phase(phase), str(entry_id), self.agent(agent))

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
