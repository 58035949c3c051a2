"""Promotion of scratchpad entries (L2) to LEARNINGS.md (L4): spec 8.7's mapping, and promoting what its
rules take (gridgit.scratchpad.promotable: HIGH findings once confirmed by other agents)."""

from __future__ import annotations

import re
from collections.abc import Iterable

from gridgit.errors import BadInput, NotFound, PermissionDenied
from gridgit.events import bus
from gridgit.model import categories, learnings
from gridgit.model.learnings import Learning
from gridgit.model.permissions import SYSTEM_AGENT, agent_type, check_agent_id, check_learnings_writer
from gridgit.scratchpad import archive, store
from gridgit.scratchpad.entry import Entry, clip, default_title, headline
from gridgit.scratchpad.promotable import (
    field_of,
    min_validations,
    should_promote_to_learnings,
    validated,
    waits_for_validations,
)
from gridgit.store.layout import Layout, check_phase_id
from gridgit.store.record import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# `- File: src/a.ts`, `Line: 23-45`, `* Commit: abc123` (the spec's Evidence lines).
_EVIDENCE_RE = re.compile(r"^\s*(?:[-*+]\s+)?(File|Files|Line|Lines|Commit|Commits)\s*:\s*(\S.*?)\s*$", re.IGNORECASE)
_EVIDENCE_HEAD_RE = re.compile(r"^\s*\**Evidence\**\s*:\**\s*(.*?)\s*$", re.IGNORECASE)
_LABEL_RE = re.compile(
    r"^(?:Found|Finding|Discovery|Decision|Gotcha|Pattern|Warning|Blocker|Question|Handoff)\s*:\s*", re.IGNORECASE
)
_TITLE_MAX = 100


def learning_category(entry: Entry | dict[str, Any]) -> str:
    """The LEARNINGS.md section an entry goes to (spec 8.7 extract_to_learnings)."""
    if "user_preference" in (field_of(entry, "tags", []) or []):
        return "user_preferences"
    return categories.SECTION_OF.get(field_of(entry, "category", ""), "discoveries")


def evidence(content: str) -> list[str]:
    """The File/Line/Commit lines of an entry's content (and an inline `Evidence: ...`)."""
    found: list[str] = []
    for line in content.splitlines():
        if match := _EVIDENCE_RE.match(line):
            found.append(f"{match.group(1).capitalize()}: {match.group(2)}")
        elif (head := _EVIDENCE_HEAD_RE.match(line)) and head.group(1):
            found.append(head.group(1))
    return list(dict.fromkeys(found))


def title(entry: Entry) -> str:
    """`Topic title: first line of the content`, markdown and a leading `Gotcha:` label removed."""
    topic_title = entry.title or default_title(entry.topic)
    text = clip(_LABEL_RE.sub("", headline(entry.content)).strip(), _TITLE_MAX)
    return f"{topic_title}: {text}" if text else topic_title


def learning_content(entry: Entry) -> str:
    """The entry's content, and a resolved question's answer after it: the answer is the knowledge."""
    resolution = entry.resolution
    if resolution is None or not resolution.answer:
        return entry.content
    return f"{entry.content}\n\nAnswer ({resolution.by}, {resolution.at}): {resolution.answer}"


def to_learning(phase_id: str, entry: Entry) -> Learning:
    return Learning(
        category=learning_category(entry),
        title=title(entry),
        content=learning_content(entry),
        # The entry's uid never changes (archive, renumbering, merges), and the learning's id
        # follows from it: no entry is promoted twice, in any clone.
        id=learnings.learning_id(entry.uid, entry.timestamp),
        origin=entry.uid,
        phase_id=phase_id,
        entry_id=entry.id,
        agent_id=entry.agent_id,
        timestamp=entry.timestamp,
        entry_category=entry.category,
        topic=entry.topic,
        tags=list(entry.tags),
        evidence=evidence(entry.content),
    )


def combine(archived: Iterable[Entry], current: Iterable[Entry]) -> list[Entry]:
    """Archived entries then current ones, each uid once.

    A crash between the archive write and the scratchpad reset can leave an entry in both.
    """
    seen: set[str] = set()
    found: list[Entry] = []
    for entry in [*archived, *current]:
        key = entry.uid
        if key not in seen:
            seen.add(key)
            found.append(entry)
    return found


def phase_entries(layout: Layout, phase_id: str) -> list[Entry]:
    """Every entry of the phase: its archive and its scratchpad."""
    pad = store.load_if_any(layout, phase_id)
    return combine(archive.read(layout, phase_id), pad.entries if pad else [])


def candidates(phase_id: str, entries: Iterable[Entry], min_validations: int = 0) -> list[Learning]:
    return [to_learning(phase_id, e) for e in entries if should_promote_to_learnings(e, min_validations)]


def waiting(phase_id: str, entries: Iterable[Entry], min_validations: int) -> list[dict[str, Any]]:
    """The entries that wait for validations before they are promoted: where, what, how many of how many."""
    return [
        {"phase_id": phase_id, "entry_id": e.id, "uid": e.uid, "title": title(e), "agent": e.agent_id,
         "validations": validated(e), "needed": min_validations}
        for e in entries if waits_for_validations(e, min_validations)
    ]  # fmt: skip


class PromotionResult(Record):
    """What a promotion did: PROMOTED (or, on a dry run, would be), ALREADY in LEARNINGS.md, WAITING for validations."""

    FIELDS = ("phase_id", "dry_run", "candidates", "promoted", "already", "waiting")
    __slots__ = FIELDS

    def __init__(
        self,
        phase_id: str,
        dry_run: bool,
        candidates: int = 0,
        promoted: list[Learning] | None = None,
        already: int = 0,
        waiting: list[dict[str, Any]] | None = None,
    ) -> None:
        self.phase_id = phase_id
        self.dry_run = dry_run
        self.candidates = candidates
        self.promoted = promoted if promoted is not None else []
        self.already = already
        self.waiting = waiting if waiting is not None else []

    def to_dict(self) -> dict[str, Any]:
        return {
            "phase_id": self.phase_id,
            "dry_run": self.dry_run,
            "candidates": self.candidates,
            "promoted": [learning.to_dict() for learning in self.promoted],
            "already_promoted": self.already,
            "waiting_for_validations": self.waiting,
        }


def promote(
    layout: Layout, phase_id: str, agent_id: str, dry_run: bool = False, entries: list[Entry] | None = None
) -> PromotionResult:
    """Promote the phase's qualifying entries (scratchpad and archive) not promoted yet.

    Emits one `learning_extracted` per learning added. Memory agents (and gridgit's own
    `system` during phase completion) only; a dry run writes nothing, so any agent may look
    at what would be promoted. ENTRIES, when given, are the phase's entries already read
    (see phase_entries). What waits for validations (`promotion.min_validations`) is listed in
    the result, never promoted.
    """
    check_phase_id(phase_id)
    if dry_run:
        check_agent_id(agent_id)
    else:
        check_learnings_writer(agent_id)
    layout.require()
    needed = min_validations(layout)
    entries = phase_entries(layout, phase_id) if entries is None else entries
    found = candidates(phase_id, entries, needed)
    if dry_run:
        new = learnings.select_new(learnings.load(layout), found)
    else:
        new = learnings.add(layout, found, agent_id)
        _announce(layout, phase_id, new, agent_id)
    return PromotionResult(
        phase_id, dry_run, len(found), new, len(found) - len(new), waiting(phase_id, entries, needed)
    )


def _announce(layout: Layout, phase_id: str, added: list[Learning], agent_id: str) -> None:
    for learning in added:
        payload = {"from_phase": phase_id, "entry_id": learning.entry_id, "learning_id": learning.id,
                   "category": learning.category, "origin": learning.origin, "agent": agent_id}  # fmt: skip
        bus.notify(layout, "learning_extracted", payload)


def promote_entry(layout: Layout, phase_id: str, ref: str, agent_id: str) -> PromotionResult:
    """Promote one entry of PHASE_ID, chosen by a person or a memory agent, whatever spec 8.7's rules say.

    REF is its number in the scratchpad (`5`, `#5`) or its stable id (scratchpad or archive).
    Master Control chooses; gridgit writes LEARNINGS.md (`system`, as at phase completion), and
    the learning's `promoted_by` names who chose. An entry already promoted changes nothing.
    """
    check_phase_id(phase_id)
    kind = agent_type(check_agent_id(agent_id))
    if kind not in ("memory", "mc", SYSTEM_AGENT):
        raise PermissionDenied(f"only memory agents and Master Control promote an entry (agent {agent_id} is {kind})")
    layout.require()
    wanted = (ref or "").strip().lstrip("#")
    if wanted.isdigit():
        pad = store.load(layout, phase_id)
        entry = next((e for e in pad.entries if e.id == int(wanted)), None)
    else:
        entry = next((e for e in phase_entries(layout, phase_id) if e.uid == wanted), None)
    if entry is None:
        raise NotFound(f"no entry {ref!r} in phase {phase_id} (a number in its scratchpad, or an entry's stable id)")
    if entry.category == "heartbeat":
        raise BadInput(f"entry {phase_id}#{entry.id} is a heartbeat: a progress report is not knowledge to keep")
    learning = to_learning(phase_id, entry)
    learning.promoted_by = agent_id
    new = learnings.add(layout, [learning], SYSTEM_AGENT)
    _announce(layout, phase_id, new, agent_id)
    return PromotionResult(phase_id, False, 1, new, 1 - len(new))
