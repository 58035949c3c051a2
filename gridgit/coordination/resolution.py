"""Resolving open work: blocker, question, warning and handoff entries, and STATE blockers.

A resolution is recorded where the item lives: in the entry's metadata (`**Resolved:**
TIMESTAMP by AGENT`, `**Resolution:** note`, `**Answer:** answer`, see
gridgit.scratchpad.entry.Resolution), in its phase's scratchpad or archive, or in the STATE
blocker (`resolved_at`, `resolved_by`, `resolution`). A blocker entry and the STATE blocker it
added (gridgit.scratchpad.state_links) are resolved together. A handoff is resolved when its
recipient takes it. A resolved item is not open in `status` or `context`, is not carried
into the next phase, and the entry's author hears of it (`entry_resolved`, the inbox).
Resolving twice changes nothing and emits nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

from gridgit.errors import BadInput, NotFound
from gridgit.events import bus
from gridgit.model import permissions, state, state_lists
from gridgit.scratchpad import archive, state_links, store
from gridgit.scratchpad.entry import OPEN_CATEGORIES, Entry, Resolution, parse_ref
from gridgit.store import clock, ids, usertext
from gridgit.store.layout import PHASE_ID_RE, Layout, check_phase_id

RESOLVABLE = OPEN_CATEGORIES


@dataclass
class ResolutionResult:
    """What was resolved: an entry (`source` scratchpad or archive) or a STATE blocker (`source` STATE).

    UID is the entry's stable id; STATE_ID the STATE blocker resolved with it.
    """

    source: str
    id: int | str
    category: str
    author: str | None
    resolution: dict[str, str]
    phase_id: str | None = None
    topic: str | None = None
    already: bool = False  # it was resolved before: nothing changed
    uid: str | None = None
    state_id: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @property
    def entry_ref(self) -> str | None:
        """The entry as `gridgit status` names it (`01-foundation#5`, `01-foundation archive#3`); None for STATE's."""
        if not self.phase_id:
            return None
        return f"{self.phase_id}{' archive' if self.source == 'archive' else ''}#{self.id}"


def _one_line(text: str | None) -> str:
    """A note or answer as stored: redacted, whitespace (line breaks too) folded to single spaces."""
    return usertext.clean(" ".join(usertext.check_size(text or "", "note").split()), "note", one_line=True)


def resolve(
    layout: Layout,
    ref: str,
    agent_id: str,
    phase_id: str | None = None,
    note: str = "",
    answer: str = "",
) -> ResolutionResult:
    """Resolve the entry REF (its number in PHASE_ID, default the current phase) or the STATE blocker REF.

    ANSWER is for questions. Already resolved: `already` is True and nothing is written.
    """
    layout.require()
    permissions.check_agent_id(agent_id)
    note, answer = _one_line(note), _one_line(answer)
    usertext.check_size(ref, "name", "the entry or blocker id")  # a name that long is malformed (1), not unknown (7)
    ref_phase, number = parse_ref(ref)
    if number is None and "#" in ref:
        raise BadInput(f"{ref.strip()!r}: not an entry's name (5, 02-core#5, or its id)")
    if number is None and ids.is_id(ref.strip()):  # an entry's stable id, which no renumbering changes
        uid = ref.strip()
        phase = state.resolve_phase(layout, phase_id)
        return resolve_entries(layout, phase, lambda e: e.uid == uid, agent_id, note, answer, ref=uid)[0]
    if number is None:
        return _resolve_state_blocker(layout, ref.strip(), agent_id, note, answer)
    if ref_phase and phase_id and ref_phase != phase_id:
        raise BadInput(f"{ref} names phase {ref_phase}, but --phase is {phase_id}")
    phase = state.resolve_phase(layout, ref_phase or phase_id)
    return resolve_entries(layout, phase, lambda e: e.id == number, agent_id, note, answer, ref=str(number))[0]


def resolve_entries(
    layout: Layout,
    phase_id: str,
    wanted: Callable[[Entry], bool],
    agent_id: str,
    note: str = "",
    answer: str = "",
    ref: str | None = None,
    check_permission: bool = True,
) -> list[ResolutionResult]:
    """Resolve the entries of PHASE_ID that WANTED picks, in one locked write per file; one event each.

    The scratchpad is looked at first, then the phase's archive (where open work of a phase
    completed without a next one, or of an earlier gridgit, is), except for a REF that is an
    entry number: numbers are the scratchpad's. With REF (one entry asked for) a missing or
    unresolvable entry is bad input; without it, the entries WANTED picks that are resolvable
    and open are resolved (e.g. a conflict's warnings, see gridgit.coordination.conflicts.resolve).
    """
    check_phase_id(phase_id)
    if check_permission and ref is None:
        permissions.check_scratchpad_writer(agent_id)
    if answer and ref is None:
        raise BadInput("an answer is for one question: resolve it by its id")
    by_number = ref is not None and not ids.is_id(ref)
    with store.modify(layout, phase_id) as pad:
        found = [e for e in pad.entries if wanted(e)]
        if ref is not None and (found or by_number):
            _check_one(found, phase_id, ref, answer, layout)  # what does not exist is not found, whoever asks
            if check_permission:
                permissions.check_scratchpad_writer(agent_id)
        results = _close(found, "scratchpad", phase_id, agent_id, note, answer)
    if ref is None or not (found or by_number):  # numbers are the scratchpad's; ids and predicates reach the archive
        results += _resolve_archived(layout, phase_id, wanted, agent_id, note, answer, ref, check_permission)
    for result in results:
        if result.category == "blocker" and result.uid and result.resolution["by"]:
            # L2 -> L3: the STATE blocker the entry added goes with it (a re-run completes a crashed one).
            closed = Resolution(result.resolution["at"], result.resolution["by"], result.resolution["note"])
            result.state_id = state_links.close_blocker(layout, result.uid, closed)
        if not result.already:
            _emit(layout, result, agent_id)
    return results


def _resolve_archived(
    layout: Layout,
    phase_id: str,
    wanted: Callable[[Entry], bool],
    agent_id: str,
    note: str,
    answer: str,
    ref: str | None,
    check_permission: bool,
) -> list[ResolutionResult]:
    """resolve_entries in the phase's archive, recorded there; REF not found there either is reported."""
    found: list[Entry] = []
    results: list[ResolutionResult] = []
    if layout.scratchpad_archive(phase_id).exists():
        with archive.modify(layout, phase_id) as held:
            found = [e for e in held.entries if wanted(e)] if held else []
            if ref is not None and found:
                _check_one(found, phase_id, ref, answer, layout)
                if check_permission:
                    permissions.check_scratchpad_writer(agent_id)
            results = _close(found, "archive", phase_id, agent_id, note, answer)
    if ref is not None and not found:
        _check_one(found, phase_id, ref, answer, layout)
    return results


def _close(
    entries: list[Entry], source: str, phase_id: str, agent_id: str, note: str, answer: str
) -> list[ResolutionResult]:
    """Resolve ENTRIES (in memory) that are resolvable; a result for each, `already` when it was."""
    results = []
    for entry in entries:
        if entry.category not in RESOLVABLE:
            continue
        already = entry.resolved
        if not already:
            entry.resolution = Resolution(clock.now_iso(), agent_id, note, answer)
        shown = (entry.resolution or Resolution("", "")).fields()  # a hand-set `resolved` tag records nothing
        results.append(
            ResolutionResult(
                source, entry.id, entry.category, entry.agent_id, shown, phase_id, entry.topic, already, entry.uid
            )
        )
    return results


def _check_one(found: list[Entry], phase_id: str, ref: str, answer: str, layout: Layout) -> None:
    if not found:
        hint = ""
        if layout.scratchpad_archive(phase_id).exists() and not ids.is_id(ref):
            hint = " (an archived entry is resolved by its id: the **Id:** line of `gridgit read --archived`)"
        raise NotFound(f"phase {phase_id} has no entry [{ref}]{hint}")
    entry = found[0]
    if entry.category not in RESOLVABLE:
        raise BadInput(
            f"entry [{ref}] is a {entry.category}: only blockers, questions, warnings and handoffs are resolved"
        )
    if answer and entry.category != "question":
        raise BadInput(f"entry [{ref}] is a {entry.category}: --answer is for questions (use --note)")


def _resolve_state_blocker(layout: Layout, blocker_id: str, agent_id: str, note: str, answer: str) -> ResolutionResult:
    if not blocker_id:
        raise BadInput("give the id of an entry or of a STATE blocker")
    if answer:
        raise BadInput("--answer is for questions; a STATE blocker takes --note")

    def blocker(st: dict[str, Any]) -> dict[str, Any]:
        blockers = state_lists.current_list(st, "blockers")
        item = next((b for b in blockers if state_lists.item_id(b) == blocker_id), None)
        if not isinstance(item, dict):
            raise NotFound(
                f"no entry or STATE blocker with id {blocker_id!r} (entries are named by number: 5, 02-core#5)"
            )
        return item

    linked = blocker(state.read(layout))  # what does not exist is not found, whoever asks
    permissions.check_state_fields(agent_id, ["blockers"])
    if isinstance(linked, dict) and _entry_exists(layout, linked.get("phase_id"), linked.get("entry")):
        # A blocker entry's STATE blocker (L2 -> L3): resolved with its entry, one event.
        uid = str(linked["entry"])
        return resolve_entries(
            layout, str(linked["phase_id"]), lambda e: e.uid == uid, agent_id, note, ref=uid, check_permission=False
        )[0]
    found: list[dict[str, Any]] = []

    def change(st: dict[str, Any]) -> dict[str, Any]:
        item = blocker(st)
        found.append(item)
        if state.is_resolved(item):
            return {}
        fields = {"id": item["id"], "resolved_at": clock.now_iso(), "resolved_by": agent_id, "resolution": note}
        found[0] = {**item, **fields}
        return state_lists.updates_for(st, [state_lists.ListChange.update("blockers", fields)])

    written = state.update_with(layout, change, agent_id, f"resolve {blocker_id}") is not None
    item = found[0]
    resolution = {
        "at": str(item.get("resolved_at")),
        "by": str(item.get("resolved_by")),
        "note": str(item.get("resolution") or ""),
        "answer": "",
    }
    author = item.get("source") or item.get("agent")
    result = ResolutionResult(
        "STATE", blocker_id, "blocker", str(author) if author else None, resolution, already=not written
    )
    if written:
        _emit(layout, result, agent_id)
    return result


def _entry_exists(layout: Layout, phase_id: Any, uid: Any) -> bool:
    """Whether entry UID is in PHASE_ID's scratchpad or archive (a hand-edited STATE may name anything)."""
    if not isinstance(uid, str) or not isinstance(phase_id, str) or not PHASE_ID_RE.match(phase_id):
        return False
    pad = store.load_if_any(layout, phase_id)
    return any(e.uid == uid for e in [*(pad.entries if pad else []), *archive.read(layout, phase_id)])


def _emit(layout: Layout, result: ResolutionResult, agent_id: str) -> None:
    bus.notify(
        layout,
        "entry_resolved",
        {
            "source": result.source,
            "phase_id": result.phase_id,
            "entry_id": result.id,
            "category": result.category,
            "topic": result.topic,
            "entry_agent": result.author,
            "agent": agent_id,
            "note": result.resolution.get("note", ""),
            "answer": result.resolution.get("answer", ""),
            "entry_uid": result.uid,
            "state_id": result.state_id,
        },
    )
