"""Archiving a scratchpad on purpose: at phase end (spec 7.3) and by hand (`gridgit archive`).

`archive_phase` moves every current entry into `scratchpad_archived.md` and empties the
scratchpad (subscriptions and preamble kept, archive counters updated); the open entries it
moves were carried into the next phase, and are archived closed as such. `archive_settled`
moves only what is settled: open work stays live (DESIGN.md invariant 7). Both mark every
promoted entry of the phase in the archive, those an auto-archive moved earlier too. On a
scratchpad with nothing to move they emit nothing: completing a phase twice is safe.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping

from gridgit.events import bus
from gridgit.scratchpad import archive, store
from gridgit.scratchpad.entry import Entry, Resolution
from gridgit.store import clock
from gridgit.store.layout import Layout


def archive_phase(
    layout: Layout, phase_id: str, promoted: Collection[str] = (), closed: Mapping[str, Resolution] | None = None
) -> int:
    """Phase end: move every current entry to the archive; returns how many moved.

    PROMOTED are uids of entries promoted to LEARNINGS.md; CLOSED maps the uid of an open
    entry to the Resolution it is archived with (carried into the next phase). Idempotent:
    an empty scratchpad is left as it is and no event is emitted.
    """
    return _move(layout, phase_id, lambda entry: True, promoted, closed or {})


def archive_settled(layout: Layout, phase_id: str, promoted: Collection[str] = ()) -> int:
    """`gridgit archive`: move the settled entries to the archive (open work stays live); how many moved."""
    return _move(layout, phase_id, lambda entry: not entry.is_open, promoted, {})


def _move(
    layout: Layout,
    phase_id: str,
    wanted: Callable[[Entry], bool],
    promoted: Collection[str],
    closed: Mapping[str, Resolution],
) -> int:
    promoted_ids = set(promoted)
    moved: list[Entry] = []
    extracted = 0
    with store.modify(layout, phase_id) as pad:
        moved = [e for e in pad.entries if wanted(e)]
        held = archive.append(layout, phase_id, pad.phase_name, moved, promoted_ids, closed)
        extracted = len(held.promoted_entries()) if held else 0
        if moved:
            pad.entries = [e for e in pad.entries if not wanted(e)]
            pad.renumber()
            pad.record_archive(len(moved), clock.now_iso())
    if not moved:
        return 0
    payload = {"phase_id": phase_id, "entries_archived": len(moved), "entries_promoted": extracted}
    bus.notify(layout, "phase_archived", payload)
    return len(moved)
