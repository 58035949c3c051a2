"""L2 -> L3: the scratchpad entries STATE.md carries too (the spec's Memory Hierarchy Flow:
"Does it affect MISSION STATE or OTHER phases? YES -> Also update L3").

- A blocker entry adds a STATE blocker: `id: blocker-<entry uid>`, `type` (its `Type:` line),
  `description` (its `Blocker:` line, else its first line), `blocking_thread` (its block),
  `source` (its author), `added_at` (its timestamp), `phase_id` and `entry`: the uid of the
  entry that stands for it, which follows the entry when phase completion carries it. Resolving
  the entry resolves the STATE blocker, and the other way round (gridgit.coordination.resolution).
- A decision tagged `architectural` (`gridgit write --scope mission` tags it), or one whose
  `**Affects Phases:**` (`--affects-phases`) name a phase beyond its own, adds a
  `persistent.decisions` item: `id: dec-<entry uid>`, `decision`, `rationale`, `affects`,
  `affects_phases` (those it names; a mission-scope decision without them: every phase STATE
  defines), `phase_decided`, `source`, `added_at`, `entry`.
- Any other entry tagged `tech` adds a note to STATE's tech stack (`persistent.tech_stack.notes`):
  `id: tech-<entry uid>`, `topic`, `note` (its first line), `phase_id`, `source`, `added_at`,
  `entry` (what agents know of the stack, beside what gridgit.memory.stack reads of the files).

Ids follow from the entry's uid, so a re-run, or a second clone, adds one item. These are
gridgit's bookkeeping on the writer's behalf (no STATE permission of its own needed), written
after the scratchpad lock is released (the lock order puts STATE first).
"""

from __future__ import annotations

from gridgit.model import state, state_lists
from gridgit.scratchpad import categories
from gridgit.scratchpad.entry import Entry, Resolution, clip, headline
from gridgit.store.layout import Layout

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

BLOCKERS, DECISIONS, TECH = "blockers", "persistent.decisions", "persistent.tech_stack.notes"
_TEXT_CHARS = 300  # a STATE line, not the entry: the entry holds the whole text


def reaches_state(entry: Entry, phase_id: str) -> bool:
    """An open blocker, or a decision tagged architectural or bearing on phases beyond PHASE_ID: it belongs in STATE.md too."""
    if entry.category == "blocker":
        return not entry.resolved
    return _a_decision(entry, phase_id) or ("tech" in entry.tags and entry.category != "heartbeat")


def _a_decision(entry: Entry, phase_id: str) -> bool:
    """A decision of the mission: tagged architectural, or bearing on phases beyond PHASE_ID."""
    beyond = set(entry.affects_phases) - {phase_id}
    return entry.category == "decision" and ("architectural" in entry.tags or bool(beyond))


def blocker_id(uid: str) -> str:
    return f"blocker-{uid}"


def _text(entry: Entry, field: str) -> str | None:
    found = categories.field_value(entry.category, field, entry.content)
    return clip(found, _TEXT_CHARS) if found else None


def item_for(phase_id: str, entry: Entry, st: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
    """(STATE list, item) that stands for ENTRY; ST, the STATE it goes into, says which phases "all" are."""
    common = {"source": entry.agent_id, "added_at": entry.timestamp, "phase_id": phase_id, "entry": entry.uid}
    if entry.category != "blocker" and not _a_decision(entry, phase_id):
        note = clip(headline(entry.content) or entry.topic, _TEXT_CHARS)
        return TECH, {"id": f"tech-{entry.uid}", "topic": entry.topic, "note": note, **common}
    if entry.category == "blocker":
        return BLOCKERS, {
            "id": blocker_id(entry.uid),
            "type": _text(entry, "Type") or "blocker",
            "description": _text(entry, "Blocker") or clip(headline(entry.content) or entry.topic, _TEXT_CHARS),
            "blocking_thread": entry.block_id or None,
            **common,
        }
    return DECISIONS, {
        "id": f"dec-{entry.uid}",
        "decision": _text(entry, "Decision") or clip(headline(entry.content) or entry.topic, _TEXT_CHARS),
        "rationale": _text(entry, "Rationale"),
        "affects": _text(entry, "Affects"),
        "affects_phases": entry.affects_phases or sorted({phase_id, *state.defined_phases(st or {})}),
        "phase_decided": phase_id,
        **common,
    }


def _held(st: dict[str, Any], path: str, item_id: str) -> bool:
    return any(state_lists.item_id(i) == item_id for i in state_lists.current_list(st, path))


def record(layout: Layout, phase_id: str, entry: Entry) -> bool:
    """Add the STATE item of ENTRY (see reaches_state) unless STATE has it; True when it was added."""

    def change(st: dict[str, Any]) -> dict[str, Any]:
        path, item = item_for(phase_id, entry, st)
        if _held(st, path, item["id"]):
            return {}
        return state_lists.updates_for(st, [state_lists.ListChange.add(path, item)])

    action = f"{item_for(phase_id, entry)[0]} from {phase_id}#{entry.id}"
    return state.update_with(layout, change, entry.agent_id, action, check_permission=False) is not None


def linked_blocker(st: dict[str, Any], uid: str) -> dict[str, Any] | None:
    """The STATE blocker that entry UID stands for, or None."""
    for item in state_lists.current_list(st, BLOCKERS):
        if isinstance(item, dict) and item.get("entry") == uid:
            return item
    return None


def close_blocker(layout: Layout, uid: str, resolution: Resolution) -> str | None:
    """Mark the STATE blocker that entry UID stands for resolved as RESOLUTION says; its id (None: none).

    Resolved already: nothing is written.
    """
    found: list[str] = []

    def change(st: dict[str, Any]) -> dict[str, Any]:
        item = linked_blocker(st, uid)
        if item is None:
            return {}
        found.append(str(item["id"]))
        if state.is_resolved(item):
            return {}
        fields = {
            "id": item["id"],
            "resolved_at": resolution.at,
            "resolved_by": resolution.by,
            "resolution": resolution.note,
        }
        return state_lists.updates_for(st, [state_lists.ListChange.update(BLOCKERS, fields)])

    state.update_with(layout, change, resolution.by, f"resolve {blocker_id(uid)}", check_permission=False)
    return found[0] if found else None


def follow_carried(st: dict[str, Any], carried: list[tuple[Entry, str]], to_phase: str) -> dict[str, Any]:
    """The STATE updates that move each blocker to the copy that carries its entry into TO_PHASE.

    CARRIED: (source entry, the uid of its carried copy). A carried open blocker STATE has no
    blocker for (written by an earlier gridgit, or a crash before its STATE write) gets one.
    """
    changes = []
    for source, copy_uid in carried:
        if source.category != "blocker" or not source.is_open or linked_blocker(st, copy_uid) is not None:
            continue
        item = linked_blocker(st, source.uid)
        if item is not None:
            fields = {"id": item["id"], "entry": copy_uid, "phase_id": to_phase}
            changes.append(state_lists.ListChange.update(BLOCKERS, fields))
        else:
            changes.append(state_lists.ListChange.add(BLOCKERS, {**item_for(to_phase, source)[1], "entry": copy_uid}))
    return state_lists.updates_for(st, changes) if changes else {}
