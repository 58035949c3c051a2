"""Foresight: merge conflicts predicted between agents' branches, and evidence that went stale."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gridgit.api.base import BoardBase

if TYPE_CHECKING:
    from gridgit.git.predict import Prediction
    from gridgit.git.staleness import EvidenceReport


class ForesightAPI(BoardBase):
    """Foresight: merge conflicts predicted between agents' branches, and evidence that went stale."""

    def predict_conflicts(
        self, base: str | None = None, branches: list[str] | None = None, announce: bool = True
    ) -> Prediction:
        """The merges of every pair of agent branches (BRANCHES, else registered agents' work trees) and each
        against BASE; with ANNOUNCE a `merge_conflict_predicted` event for each new prediction."""
        from gridgit.git import announce as announce_mod
        from gridgit.git import predict

        prediction = predict.predict(self.layout.require(), base, branches)
        if announce:
            announce_mod.announce(self.layout, prediction)
        return prediction

    def check_evidence(
        self, phase: str | None = None, learnings: bool = False, attribute: bool = True
    ) -> EvidenceReport:
        """Stale evidence of PHASE's entries and/or LEARNINGS.md; neither given: the current phase and learnings.

        ATTRIBUTE names the commits that made each stale citation stale (a blame or log per stale one).
        """
        from gridgit.git import evidence, staleness
        from gridgit.model import state

        layout = self.layout.require()
        if phase is None and not learnings:
            current = state.current_phase(state.read(layout))
            phases, learnings = ([self.phase(current)] if current else []), True
        else:
            phases = [self.phase(phase)] if phase else []
        return staleness.check(layout.root, evidence.gather(layout, phases, learnings), attribute)
