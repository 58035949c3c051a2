"""Carry-forward (spec 9.3): what a completed phase hands to the next one.

Every open item (unresolved blockers, questions and warnings, handoffs not taken) and the last
five handoffs are written into the next phase's scratchpad by agent `system`, with the phase's
subscriptions, in one locked write; a re-run skips what is already there. A carried entry records the uid it was carried from
(`**Carried From:**`), and its own uid is derived from that and the phase, so two clones
completing one phase carry it as one entry.
"""

from __future__ import annotations

from typing import Any

from gridgit.model import state
from gridgit.model.permissions import SYSTEM_AGENT as SYSTEM
from gridgit.phases import promotion
from gridgit.scratchpad import archive, state_links, store, subscriptions
from gridgit.scratchpad.entry import MAX_CONTENT_BYTES, OPEN_CATEGORIES, Entry, Resolution
from gridgit.store import clock, ids
from gridgit.store.layout import Layout

HANDOFFS_CARRIED = 5


def carry_items(from_phase: str, to_phase: str, entries: list[Entry]) -> list[tuple[Entry, dict[str, Any]]]:
    """Spec 9.3, with every open item: what goes to the next phase.

    Every unresolved blocker, question and warning, every handoff not taken yet, and the last 5
    handoffs as context (one already taken goes as such: its copy is not open work again).
    (source entry, the write_entry arguments of its carried copy) for each.
    """
    ordered = sorted(entries, key=lambda e: e.timestamp)  # stable: archive order breaks ties
    recent = {id(e) for e in [e for e in ordered if e.category == "handoff"][-HANDOFFS_CARRIED:]}
    order = {category: n for n, category in enumerate(OPEN_CATEGORIES)}
    chosen = [e for e in ordered if e.is_open or id(e) in recent]
    chosen.sort(key=lambda e: order[e.category])  # blockers first, as the spec lists them
    block_id = f"{to_phase.split('-', 1)[0]}-01"
    items = []
    for entry in chosen:
        handoff = entry.category == "handoff"
        prefix = f"[Context from {from_phase}]" if handoff else f"[Carried from {from_phase}]"
        extra = "context" if handoff else "carried_forward"
        items.append((
            entry,
            {
                "category": entry.category,
                "topic": entry.topic,
                "content": _fit(f"{prefix}\n\n{entry.content}", from_phase),
                "tags": list(dict.fromkeys([*entry.tags, extra])),
                "relevance": {"blocker": "HIGH", "handoff": "MEDIUM"}.get(entry.category, entry.relevance),
                "block_id": block_id,
                "title": entry.title or None,
            },
        ))  # fmt: skip
    return items


def closed_by_carrying(from_phase: str, to_phase: str, entries: list[Entry]) -> dict[str, Resolution]:
    """uid -> how each open entry of ENTRIES that is carried into TO_PHASE is archived: closed, by the carry.

    Its open copy in TO_PHASE is the one to resolve; the original, closed, is no open work of
    the completed phase any more.
    """
    now = clock.now_iso()
    return {
        source.uid: Resolution(now, SYSTEM, f"carried into {to_phase}")
        for source, _ in carry_items(from_phase, to_phase, entries)
        if source.is_open
    }


def carried_uid(to_phase: str, source: Entry) -> str:
    """The uid of SOURCE carried into TO_PHASE: the same in every clone that carries it."""
    return ids.child_id(source.uid, source.timestamp, "carried", to_phase, source.uid)


def _fit(content: str, from_phase: str) -> str:
    """CONTENT cut to the entry size limit: a carried entry must never fail half-way."""
    if len(content.encode("utf-8")) <= MAX_CONTENT_BYTES:
        return content
    note = f"\n\n[... cut; the whole entry is in {from_phase}'s scratchpad_archived.md]"
    room = MAX_CONTENT_BYTES - len(note.encode("utf-8"))
    return content.encode("utf-8")[:room].decode("utf-8", errors="ignore") + note


def carry_forward(
    layout: Layout,
    from_phase: str,
    to_phase: str,
    entries: list[Entry] | None = None,
    subscribed: list[dict[str, Any]] | None = None,
) -> list[Entry]:
    """Write the carry items of FROM_PHASE's ENTRIES into TO_PHASE as `system`; returns them.

    One locked write for all of them and for the SUBSCRIBED list (FROM_PHASE's subscriptions);
    an entry already carried into TO_PHASE (its uid or the uid it was carried from is there, in
    the scratchpad or the archive) is skipped.
    """
    if entries is None:
        entries = promotion.phase_entries(layout, from_phase)
    built: list[Entry] = []
    carried: list[Entry] = []
    for source, item in carry_items(from_phase, to_phase, entries):
        carried.append(source)
        entry = store.build_entry(SYSTEM, **item)
        entry.carried_from, entry.uid = source.uid, carried_uid(to_phase, source)
        entry.resolution = source.resolution  # a handoff already taken is carried as context, taken
        built.append(entry)
    if not built and not subscribed:
        return []
    archived = archive.read(layout, to_phase)
    written: list[Entry] = []
    with store.modify(layout, to_phase) as pad:
        subscriptions.carry(subscribed or [], pad)
        present = [*archived, *pad.entries]
        uids, sources = {e.uid for e in present}, {e.carried_from for e in present}
        now = clock.now_iso()
        for entry in built:
            if entry.uid in uids or entry.carried_from in sources or _carried_before(entry, present):
                continue
            entry.id, entry.timestamp = pad.next_id(), now
            pad.entries.append(entry)
            written.append(entry)
        if written:
            pad.meta["last_updated"] = now
        subscribers = {entry.id: store.subscribers(pad, entry, SYSTEM) for entry in written}
    for entry in written:
        store.emit_write(layout, to_phase, store.WriteOutcome(entry, subscribers=subscribers[entry.id]), SYSTEM)
    # STATE's blockers follow their entries (L2 -> L3): resolving the carried copy resolves them.
    pairs = [(source, entry.uid) for source, entry in zip(carried, built, strict=True)]
    if any(source.category == "blocker" for source in carried):
        action = f"blockers carried into {to_phase}"
        state.update_with(
            layout, lambda st: state_links.follow_carried(st, pairs, to_phase), SYSTEM, action, check_permission=False
        )
    return written


def _carried_before(entry: Entry, present: list[Entry]) -> bool:
    """ENTRY was carried by an earlier gridgit, which wrote no `Carried From:` line.

    Matched by containment, since a carried entry may have been merged with another since.
    """
    return any(
        not e.carried_from and e.category == entry.category and e.topic == entry.topic and entry.content in e.content
        for e in present
    )
