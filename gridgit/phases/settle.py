"""Completion wins across clones: entries that reach a phase after it was completed.

A clone that has not yet seen another clone's `phase complete` goes on writing into the
phase; `gridgit sync` then brings those entries into a phase that is complete everywhere.
They are settled as if they had been there at completion: promoted when they qualify,
archived, and their unresolved blockers, warnings and handoffs carried into the first phase
after it that is not complete. Every step goes by uid (promotion's learning ids, the
archive, carried entries' derived ids), so two clones that settle the same entries make the
same files, and settling again changes nothing. `sync` runs it after every merge, and
`gridgit phase complete` runs it on a phase that is already complete.
"""

from __future__ import annotations

from typing import Any

from gridgit.errors import GridError
from gridgit.events import bus
from gridgit.model import learnings, state
from gridgit.model.permissions import SYSTEM_AGENT as SYSTEM
from gridgit.phases import archiving, carry_forward, lifecycle, promotion
from gridgit.scratchpad import store
from gridgit.store import locks
from gridgit.store.layout import Layout


def completed(st: dict[str, Any]) -> list[str]:
    """The phases STATE records as complete, in phase order."""
    phases = st.get("phases") or {}
    done = {str(p) for p in phases.get("completed") or []}
    done |= {str(d.get("id")) for d in phases.get("definitions") or [] if isinstance(d, dict)
             and d.get("status") == "complete"}  # fmt: skip
    return sorted(done)


def stranded(layout: Layout) -> dict[str, int]:
    """{phase id: live entries} of the completed phases whose scratchpad still holds entries."""
    found = {}
    for phase_id in completed(state.read(layout)):
        try:
            pad = store.load_if_any(layout, phase_id)
        except GridError:
            continue  # a broken scratchpad is validate's finding, not this one
        if pad is not None and pad.entries:
            found[phase_id] = len(pad.entries)
    return found


def settle_phase(layout: Layout, phase_id: str) -> lifecycle.CompletionResult:
    """Promote, archive and carry on the live entries of completed PHASE_ID (none: nothing changes)."""
    result = lifecycle.CompletionResult(phase_id, already_complete=True)
    with locks.locked(layout.phases_dir):
        st = state.read(layout)
        pad = store.load_if_any(layout, phase_id)
        if phase_id not in completed(st) or pad is None or not pad.entries:
            return result
        entries = list(pad.entries)
        result.promoted = [item.title for item in promotion.promote(layout, phase_id, SYSTEM, entries=entries).promoted]
        known = {item.origin for item in learnings.load(layout).learnings() if item.origin}
        result.archived = archiving.archive_phase(layout, phase_id, [e.uid for e in entries if e.uid in known])
        result.next_phase_id, next_name = lifecycle.next_open_phase(st, phase_id)
        if result.next_phase_id:
            store.create(layout, result.next_phase_id, next_name)
            result.carried = len(carry_forward.carry_forward(layout, phase_id, result.next_phase_id, entries))
    bus.notify(
        layout,
        "completed_phase_settled",
        {
            "phase_id": phase_id,
            "entries": len(entries),
            "archived": result.archived,
            "promoted": len(result.promoted),
            "carried": result.carried,
            "carried_to": result.next_phase_id,
            "agent": SYSTEM,
        },
    )
    return result


def settle_completed(layout: Layout) -> list[str]:
    """Settle every completed phase that holds live entries; the phases settled."""
    settled = list(stranded(layout))
    for phase_id in settled:
        settle_phase(layout, phase_id)
    return settled
