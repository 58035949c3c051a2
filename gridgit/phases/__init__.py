"""Phase workflows (layer 2): start and complete a phase, the phase-end archive, promotion
of high-value entries to LEARNINGS.md, and the carry-forward into the next phase.

Completion is idempotent and resumable (STATE.md is its commit point). Modules here may
import the model layer (gridgit.model, gridgit.scratchpad, gridgit.events) and gridgit.store,
and other workflows, never gridgit.git, gridgit.watch, the views or the interface.
"""
