"""Three-way merges of .grid/ files (pure functions of text): base, ours, theirs -> merged.

- scratchpads and their archives: entries united (identity: timestamp, agent, category,
  topic); an entry one side removed (archived) and the other left alone stays removed; one
  changed by one side takes that side's version; ordered by timestamp, renumbered, index rebuilt.
- STATE.md: field-wise three-way merge; lists united (items with an `id` by id), removals
  kept; scalars changed on both sides: the side with the newer `updated_at` wins.
- LEARNINGS.md: sections united, learnings without duplicates.
- event logs (*.jsonl): united by event id, in id (time) order.

A pair of versions that needs a human raises CannotMerge.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import PurePosixPath
from typing import Any

from gridgit.errors import BadInput

_MISSING: Any = object()


class CannotMerge(Exception):
    """This pair of versions needs a human: fall back to conflict markers."""


# ---- three-way helpers -----------------------------------------------------------------------


def _keyed(items: list[Any], key: Callable[[Any], Any]) -> dict[Any, Any]:
    """ITEMS by (key, occurrence): two items with one key stay two."""
    seen: dict[Any, int] = {}
    out: dict[Any, Any] = {}
    for item in items:
        k = key(item)
        n = seen.get(k, 0)
        seen[k] = n + 1
        out[(k, n)] = item
    return out


def merge_items(
    base: list[Any], ours: list[Any], theirs: list[Any], key: Callable[[Any], Any], both: Callable[[Any, Any, Any], Any]
) -> list[Any]:
    """Three-way union of keyed items: additions from both sides, removals honoured, no duplicates.

    BOTH(base_or_MISSING, ours, theirs) resolves an item both sides have and changed differently.
    The result keeps ours' order, then theirs' new items in their order.
    """
    b, o, t = _keyed(base, key), _keyed(ours, key), _keyed(theirs, key)
    result = []
    for k, mine in o.items():
        if k in t:
            other, old = t[k], b.get(k, _MISSING)
            if mine == other or other == old:
                result.append(mine)
            elif mine == old:
                result.append(other)
            else:
                result.append(both(old, mine, other))
        elif k not in b or b[k] != mine:
            result.append(mine)  # ours added it, or changed what theirs removed: nothing is lost
    for k, other in t.items():
        if k not in o and (k not in b or b[k] != other):
            result.append(other)
    return result


# ---- scratchpads and archives ----------------------------------------------------------------


def entry_key(entry: Any) -> tuple[str, str, str, str]:
    return (entry.timestamp, entry.agent_id, entry.category, entry.topic)


def _entry_value(entry: Any) -> Any:
    data = entry.to_dict()
    data.pop("id", None)
    return data


def _merge_entry(old: Any, ours: Any, theirs: Any) -> Any:
    """Both sides changed one entry: keep the one whose lines contain the other's (e.g. an added Commit line)."""
    mine, other = set(ours.content.split("\n")), set(theirs.content.split("\n"))
    if other <= mine:
        return ours
    if mine <= other:
        return theirs
    merged = copy.deepcopy(ours)
    extra = [line for line in theirs.content.split("\n") if line not in mine]
    if old is not _MISSING and not mine >= set(old.content.split("\n")):
        raise CannotMerge(f"entry {entry_key(ours)} was rewritten on both sides")
    merged.content = ours.content.rstrip("\n") + "\n" + "\n".join(extra)
    merged.contributors = list(dict.fromkeys([*ours.contributors, *theirs.contributors]))
    return merged


def fold_entry(kept: Any, other: Any) -> None:
    """Give KEPT the lines of OTHER, another version of the same entry, that it lacks (never fails)."""
    first, second = sorted((kept, other), key=lambda e: json.dumps(_entry_value(e), sort_keys=True))
    try:
        merged = _merge_entry(_MISSING, first, second)
    except CannotMerge:  # pragma: no cover - _merge_entry only refuses when there is a base
        merged = first
    for name, value in vars(copy.deepcopy(merged)).items():
        if name != "id":
            setattr(kept, name, value)


def merge_entries(base: list[Any], ours: list[Any], theirs: list[Any]) -> list[Any]:
    """United entries ordered by timestamp and renumbered 1..N."""

    class _Cmp:  # entries compare by value without their ids, which differ between branches
        def __init__(self, entry: Any) -> None:
            self.entry = entry

        def __eq__(self, other: object) -> bool:
            return isinstance(other, _Cmp) and _entry_value(self.entry) == _entry_value(other.entry)

        __hash__ = None  # type: ignore[assignment]

    def both(old: Any, mine: Any, other: Any) -> Any:
        return _Cmp(_merge_entry(old.entry if old is not _MISSING else _MISSING, mine.entry, other.entry))

    wrapped = merge_items(
        [_Cmp(e) for e in base], [_Cmp(e) for e in ours], [_Cmp(e) for e in theirs], lambda c: entry_key(c.entry), both
    )
    entries = sorted((c.entry for c in wrapped), key=lambda e: e.timestamp)
    for number, entry in enumerate(entries, start=1):
        entry.id = number
    return entries


def merge_scratchpad(base: str, ours: str, theirs: str, source: str) -> str:
    from gridgit.scratchpad.document import Scratchpad

    o = Scratchpad.parse(ours, source)
    t = Scratchpad.parse(theirs, source)
    b = Scratchpad.parse(base, source) if base.strip() else Scratchpad(dict(o.meta), o.preamble, [])
    merged = Scratchpad(copy.deepcopy(o.meta), o.preamble, merge_entries(b.entries, o.entries, t.entries))
    meta = merged.meta
    meta["last_updated"] = max(str(o.meta.get("last_updated") or ""), str(t.meta.get("last_updated") or "")) or None
    subs = merge_items(b.meta.get("subscriptions") or [], o.meta.get("subscriptions") or [],
                       t.meta.get("subscriptions") or [], _json_key, lambda _b, mine, _t: mine)  # fmt: skip
    meta["subscriptions"] = subs
    arch_o, arch_t = o.meta.get("archive"), t.meta.get("archive")
    if isinstance(arch_o, dict) and isinstance(arch_t, dict):
        meta["archive"] = merge_mapping(b.meta.get("archive") or {}, arch_o, arch_t, lambda mine, _t: mine)
        counts: list[int] = [a["archived_count"] for a in (arch_o, arch_t) if isinstance(a.get("archived_count"), int)]
        if counts:
            meta["archive"]["archived_count"] = max(counts)
        stamps = [str(a.get("last_archive")) for a in (arch_o, arch_t) if a.get("last_archive")]
        meta["archive"]["last_archive"] = max(stamps) if stamps else None
    return merged.render()


def merge_archive(base: str, ours: str, theirs: str, source: str) -> str:
    from gridgit.scratchpad.archive import Archive

    o, t = Archive.parse(ours, source), Archive.parse(theirs, source)
    b = Archive.parse(base, source) if base.strip() else Archive(o.phase_id, o.phase_name)
    extracted = {entry_key(e) for a in (o, t) for e in a.entries if e.id in a.extracted}
    entries = merge_entries(b.entries, o.entries, t.entries)
    stamps = [s for s in (o.archived_at, t.archived_at) if s]
    merged = Archive(o.phase_id, o.phase_name, max(stamps) if stamps else None, entries)
    merged.extracted = [e.id for e in entries if entry_key(e) in extracted]
    return merged.render()


# ---- STATE.md ---------------------------------------------------------------------------------


def _json_key(item: Any) -> str:
    if isinstance(item, dict) and "id" in item:
        return "id:" + json.dumps(item["id"], sort_keys=True, default=str)
    return json.dumps(item, sort_keys=True, default=str)


Pick = Callable[[Any, Any], Any]  # (ours, theirs) -> the value kept where both changed a scalar


def _merge_value(base: Any, ours: Any, theirs: Any, pick: Pick) -> Any:
    if ours == theirs or theirs == base:
        return ours
    if ours == base:
        return theirs
    if isinstance(ours, dict) and isinstance(theirs, dict):
        return merge_mapping(base if isinstance(base, dict) else {}, ours, theirs, pick)
    if isinstance(ours, list) and isinstance(theirs, list):
        return merge_items(
            base if isinstance(base, list) else [], ours, theirs, _json_key,
            lambda b, mine, other: _merge_value(b if b is not _MISSING else None, mine, other, pick),
        )  # fmt: skip
    return pick(ours, theirs)


def merge_mapping(base: dict[str, Any], ours: dict[str, Any], theirs: dict[str, Any], pick: Pick) -> dict[str, Any]:
    """Key-wise three-way merge of mappings (lists united, see merge_items); PICK settles scalars both changed."""
    merged: dict[str, Any] = {}
    for key in [*ours, *(k for k in theirs if k not in ours)]:
        o, t, b = ours.get(key, _MISSING), theirs.get(key, _MISSING), base.get(key, _MISSING)
        if o is _MISSING:
            if b is _MISSING or b != t:
                merged[key] = t  # theirs added or changed it (ours' removal of a changed field loses to the change)
            continue
        if t is _MISSING:
            if b is _MISSING or b != o:
                merged[key] = o
            continue
        merged[key] = _merge_value(None if b is _MISSING else b, o, t, pick)
    return merged


def merge_state(base: str, ours: str, theirs: str, source: str) -> str:
    from gridgit.model import state
    from gridgit.store import frontmatter

    o, o_body = state.parse(ours, source)
    t, t_body = state.parse(theirs, source)
    b = state.parse(base, source)[0] if base.strip() else {}
    newer_is_ours = str(o.get("updated_at") or "") >= str(t.get("updated_at") or "")
    merged = merge_mapping(b, o, t, lambda mine, other: mine if newer_is_ours else other)
    merged["updated_at"] = max(str(o.get("updated_at") or ""), str(t.get("updated_at") or ""))
    try:
        state.check(merged, source)
    except BadInput as exc:
        raise CannotMerge(str(exc)) from None
    rows = list(dict.fromkeys([*state.recent_rows(o_body), *state.recent_rows(t_body)]))
    rows.sort(key=lambda row: row.split("|")[1].strip(), reverse=True)
    return frontmatter.render(merged, state.render_body(merged, rows), state.HEADER)


# ---- LEARNINGS.md and event logs ---------------------------------------------------------------


def merge_learnings(base: str, ours: str, theirs: str, source: str) -> str:
    from gridgit.model.learnings import LearningsFile, Section

    o, t = LearningsFile.parse(ours), LearningsFile.parse(theirs)
    b = LearningsFile.parse(base) if base.strip() else LearningsFile(preamble=o.preamble)
    by_name = {s.name: s for s in b.sections}
    theirs_by_name = {s.name: s for s in t.sections}
    sections = []
    for section in o.sections:
        other = theirs_by_name.pop(section.name, Section(section.name, section.heading))
        old = by_name.get(section.name, Section(section.name, section.heading))
        chunks = merge_items(old.chunks, section.chunks, other.chunks, _chunk_key, lambda _b, mine, _t: mine)
        sections.append(Section(section.name, section.heading, section.intro, chunks))
    sections.extend(theirs_by_name.values())
    return LearningsFile(o.preamble, sections).render()


def _chunk_key(chunk: str) -> str:
    """A learning's identity: its text without spacing and case differences (and a missing final newline)."""
    return " ".join(chunk.split()).casefold()


def merge_events(base: str, ours: str, theirs: str, source: str) -> str:
    lines: dict[str, str] = {}
    for text in (base, ours, theirs):
        for number, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                event_id = json.loads(line)["id"]
            except (ValueError, KeyError, TypeError):
                raise CannotMerge(f"{source} line {number}: not an event") from None
            lines.setdefault(str(event_id), line)
    return "".join(lines[k] + "\n" for k in sorted(lines))


# ---- which merge ---------------------------------------------------------------------------------


def merger_for(path: str) -> Callable[[str, str, str, str], str] | None:
    """The merge function for a .grid/ path (git's %P), None for any other file."""
    name = PurePosixPath(path).name
    if name == "STATE.md":
        return merge_state
    if name == "LEARNINGS.md":
        return merge_learnings
    if name.endswith(".jsonl"):
        return merge_events
    if name.startswith("scratchpad_archive"):
        return merge_archive
    if name.startswith("scratchpad") and name.endswith(".md"):
        return merge_scratchpad
    return None
