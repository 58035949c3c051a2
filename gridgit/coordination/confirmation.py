"""Confirming an entry: another agent's validation (the spec's "HIGH relevance + 3+ validations -> L4").

An agent that met what an entry says confirms it (`gridgit confirm ID [--note TEXT]`). The
confirmation is recorded on the entry, one `**Validated:** TIMESTAMP by AGENT[: note]` line per
agent, and as an `entry_confirmed` event; promotion counts them (gridgit.phases.promotion). An
agent confirms an entry once (again changes nothing) and never one it wrote (its author or a
contributor of a merged entry); a heartbeat is no knowledge to confirm. The entry is named by
its number in the phase's scratchpad (`5`, `02-core#5`) or by its stable id, which also finds it
in the archive of a phase still open (an auto-archive moved it there); the entries of a
completed phase were settled when it closed, and are refused.
"""

from __future__ import annotations

from gridgit.errors import BadInput, NotFound
from gridgit.events import bus
from gridgit.model import permissions, state
from gridgit.phases import order
from gridgit.scratchpad import archive, store
from gridgit.scratchpad.entry import Entry, Validation, parse_ref
from gridgit.store import clock, ids, usertext
from gridgit.store.layout import Layout
from gridgit.store.record import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class ConfirmResult(Record):
    """The entry confirmed (where, what, whose) and every validation it has now; ALREADY: this agent's was there."""

    FIELDS = ("phase_id", "entry_id", "uid", "category", "topic", "author", "archived", "already", "validations")
    __slots__ = FIELDS

    def __init__(
        self,
        phase_id: str,
        entry_id: int,
        uid: str,
        category: str,
        topic: str,
        author: str,
        archived: bool,
        already: bool,
        validations: list[dict[str, Any]],
    ) -> None:
        self.phase_id = phase_id
        self.entry_id = entry_id
        self.uid = uid
        self.category = category
        self.topic = topic
        self.author = author
        self.archived = archived
        self.already = already
        self.validations = validations

    @property
    def entry_ref(self) -> str:
        return f"{self.phase_id}{' archive' if self.archived else ''}#{self.entry_id}"

    def to_dict(self) -> dict[str, Any]:
        return {**self.fields(), "entry_ref": self.entry_ref}


def confirm(layout: Layout, ref: str, agent_id: str, phase_id: str | None = None, note: str = "") -> ConfirmResult:
    """AGENT_ID confirms entry REF (its number in PHASE_ID, default the current phase, or its stable id)."""
    layout.require()
    permissions.check_scratchpad_writer(permissions.check_agent_id(agent_id))
    note = usertext.clean(" ".join(usertext.check_size(note or "", "note").split()), "note", one_line=True)
    ref = str(ref).strip()
    ref_phase, number = parse_ref(ref)
    if number is None and not ids.is_id(ref):  # a name of nothing there is, as `resolve` says it
        raise NotFound(f"no entry {ref!r}: name it by its number (5, 02-core#5) or its stable id (the **Id:** line)")
    if ref_phase and phase_id and ref_phase != phase_id:
        raise BadInput(f"{ref} names phase {ref_phase}, but --phase is {phase_id}")
    phase = state.resolve_phase(layout, ref_phase or phase_id)

    def wanted(entry: Entry) -> bool:
        return entry.id == number if number is not None else entry.uid == ref

    with store.modify(layout, phase) as pad:
        found = next((e for e in pad.entries if wanted(e)), None)
        result = _confirm(found, phase, agent_id, note, archived=False) if found else None
    if result is None and number is None:  # a stable id may name an entry an auto-archive moved
        if order.is_complete(state.read(layout), phase):
            raise BadInput(f"phase {phase} is complete: its entries were promoted or archived when it closed")
        with archive.modify(layout, phase) as held:
            found = next((e for e in held.entries if wanted(e)), None) if held else None
            result = _confirm(found, phase, agent_id, note, archived=True) if found else None
    if result is None:
        hint = " (an archived entry is named by its stable id: the **Id:** line)" if number is not None else ""
        raise NotFound(f"phase {phase} has no entry [{ref}]{hint}")
    if not result.already:
        payload = {
            "phase_id": phase, "entry_id": result.entry_id, "entry_uid": result.uid, "category": result.category,
            "topic": result.topic, "entry_agent": result.author, "agent": agent_id, "note": note,
            "validations": len(result.validations),
        }  # fmt: skip
        bus.notify(layout, "entry_confirmed", payload)
    return result


def _confirm(entry: Entry, phase_id: str, agent_id: str, note: str, archived: bool) -> ConfirmResult:
    """Add AGENT_ID's validation to ENTRY (in memory, under its file's lock); refused for its own or a heartbeat."""
    if entry.category == "heartbeat":
        raise BadInput(f"entry [{entry.id}] is a heartbeat: confirm what an agent found, decided or warned of")
    if agent_id in (entry.agent_id, *entry.contributors):
        raise BadInput(f"entry [{entry.id}] is {agent_id}'s own: a validation is another agent's confirmation")
    already = agent_id in entry.validated_by()
    if not already:
        entry.validations = [*entry.validations, Validation(clock.now_iso(), agent_id, note)]
    return ConfirmResult(
        phase_id, entry.id, entry.uid, entry.category, entry.topic, entry.agent_id, archived, already,
        [v.fields() for v in entry.validations],
    )  # fmt: skip
