"""Three-way merges of scratchpads and their archives: entries united by uid (pure functions of text).

- An entry added on either side is kept; one removed on one side (archived) and left alone
  on the other stays removed; one changed on one side takes that change; one changed on both
  sides is merged field by field (merge_entry), never refused and never losing a line.
- Entries are ordered by (timestamp, uid) and renumbered 1..N; the index is rebuilt.
- An archive's promoted (extracted) entries are united.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from gridgit.history.textmerge import merge_lines
from gridgit.history.threeway import MISSING, json_key, merge_items, merge_mapping
from gridgit.scratchpad.archive import Archive
from gridgit.scratchpad.document import Scratchpad
from gridgit.scratchpad.entry import Entry, relevance_rank

# Every field but the display number ([N], renumbered) and the uid (what makes it the same entry).
_FIELDS = [name for name in Entry.FIELDS if name not in ("id", "uid")]


def _canonical(entry: Entry) -> str:
    data = entry.to_dict()
    data.pop("id")
    return json.dumps(data, sort_keys=True)


def _merge_content(old: str, first: str, second: str) -> str:
    """Content both sides changed: by lines where they changed different lines, else FIRST plus SECOND's other lines."""
    merged = merge_lines(old + "\n", first + "\n", second + "\n")
    if merged is not None:
        return merged[:-1] if merged.endswith("\n") else merged
    have = set(first.split("\n"))
    extra = [line for line in second.split("\n") if line not in have]
    return first.rstrip("\n") + "\n" + "\n".join(extra) if extra else first


def merge_entry(old: Any, ours: Entry, theirs: Entry) -> Entry:
    """One entry both sides changed (OLD: its base version, or MISSING when both added it).

    Field by field, and the same whichever side is ours: a field one side changed takes that
    change; content both changed is merged by lines (see _merge_content); tags and
    contributors are united, validations too (each agent's earliest), relevance is the higher,
    a resolution is kept (the earliest of two); any other field keeps the version that
    comes first in a canonical order.
    """
    first, second = sorted((ours, theirs), key=_canonical)
    merged = copy.deepcopy(first)
    for name in _FIELDS:
        a, b = getattr(first, name), getattr(second, name)
        o = MISSING if old is MISSING else getattr(old, name)
        if a == b or b == o:
            continue
        if a == o:
            value = b
        elif name == "content":
            value = _merge_content("" if o is MISSING else o, a, b)
        elif name == "validations":  # each agent once, its earliest confirmation
            value = sorted({v.by: v for v in sorted([*a, *b], key=lambda v: v.at, reverse=True)}.values(),
                           key=lambda v: (v.at, v.by))  # fmt: skip
        elif isinstance(a, list):
            value = list(dict.fromkeys([*a, *b]))
        elif name == "relevance":
            value = max(a, b, key=relevance_rank)
        elif name == "resolution":  # resolved on both sides (or on one, unresolved on the other): the earliest
            value = min((r for r in (a, b) if r is not None), key=lambda r: r.at)
        else:
            continue
        setattr(merged, name, copy.deepcopy(value))
    return merged


def merge_entries(base: list[Entry], ours: list[Entry], theirs: list[Entry]) -> list[Entry]:
    """United entries (by uid), ordered by (timestamp, uid) and renumbered 1..N."""

    def unnumbered(entries: list[Entry]) -> list[Entry]:  # display numbers differ between versions
        return [e.replace(id=0) for e in entries]

    merged: list[Entry] = merge_items(
        unnumbered(base), unnumbered(ours), unnumbered(theirs), lambda e: e.uid, merge_entry
    )
    merged.sort(key=lambda e: (e.timestamp, e.uid))
    for number, entry in enumerate(merged, start=1):
        entry.id = number
    return merged


def merge_scratchpad(base: str, ours: str, theirs: str, source: str) -> str:
    o = Scratchpad.parse(ours, source)
    t = Scratchpad.parse(theirs, source)
    b = Scratchpad.parse(base, source) if base.strip() else Scratchpad(dict(o.meta), o.preamble, [])
    merged = Scratchpad(copy.deepcopy(o.meta), o.preamble, merge_entries(b.entries, o.entries, t.entries))
    meta = merged.meta
    meta["last_updated"] = max(str(o.meta.get("last_updated") or ""), str(t.meta.get("last_updated") or "")) or None
    subs = merge_items(b.meta.get("subscriptions") or [], o.meta.get("subscriptions") or [],
                       t.meta.get("subscriptions") or [], json_key, lambda _b, mine, _t: mine)  # fmt: skip
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
    o, t = Archive.parse(ours, source), Archive.parse(theirs, source)
    b = Archive.parse(base, source) if base.strip() else Archive(o.phase_id, o.phase_name)
    entries = merge_entries(b.entries, o.entries, t.entries)
    stamps = [s for s in (o.archived_at, t.archived_at) if s]
    merged = Archive(o.phase_id, o.phase_name, max(stamps) if stamps else None, entries)
    merged.extracted = list(dict.fromkeys([*o.extracted, *t.extracted]))
    return merged.render()
