"""The phase-end archive: a whole scratchpad moved into its archive file (spec 7.3).

`archive_phase` moves every current entry into `scratchpad_archived.md` and empties the
scratchpad (subscriptions and preamble kept, archive counters updated). On an empty
scratchpad it changes nothing and emits nothing: completing a phase twice is safe.
"""

from __future__ import annotations

from collections.abc import Collection

from gridgit.events import bus
from gridgit.scratchpad import archive, store
from gridgit.scratchpad.entry import Entry
from gridgit.store import clock
from gridgit.store.layout import Layout


def archive_phase(layout: Layout, phase_id: str, promoted: Collection[str] = ()) -> int:
    """Phase end: move every current entry to the archive; returns how many moved.

    PROMOTED are uids of entries already promoted to LEARNINGS.md. Idempotent: an empty
    scratchpad is left as it is and no event is emitted.
    """
    promoted_ids = set(promoted)
    moved: list[Entry] = []
    with store.modify(layout, phase_id) as pad:
        if pad.entries:
            moved = list(pad.entries)
            archive.append(layout, phase_id, pad.phase_name, moved, promoted_ids)
            pad.entries = []
            pad.record_archive(len(moved), clock.now_iso())
    if not moved:
        return 0
    bus.notify(
        layout,
        "phase_archived",
        {
            "phase_id": phase_id,
            "entries_archived": len(moved),
            "entries_promoted": len([e for e in moved if e.uid in promoted_ids]),
        },
    )
    return len(moved)
