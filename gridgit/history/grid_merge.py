"""The three-way merge of a whole Blackboard (`gridgit sync`): trees of `.grid/` files in, one tree out.

`merge_grid(base, ours, theirs)` takes each version as {path inside .grid/ (posix): bytes}
and returns the merged tree and the paths it could not merge cleanly. It never writes
conflict markers: where two versions cannot be merged it keeps a deterministic choice
(the same whichever side is "ours") and names the path in `conflicts`.

Each file is merged by gridgit.history.merge's per-file merge (scratchpads and archives by
entry id, STATE field-wise, LEARNINGS by learning id, event logs by event id), other text
by lines, JSON by keys. Then the invariants no single file can keep are enforced across
files: an entry a phase's archive holds is not also in its scratchpad (the archived copy
takes the other side's changes), and an event is in one event file only.

The result does not depend on which side is ours: the two versions of a file are put in a
canonical order before they are merged.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import TypeVar

from gridgit.errors import BadInput
from gridgit.history import items, merge
from gridgit.history.entry_merge import merge_entry
from gridgit.history.textmerge import merge_lines
from gridgit.history.threeway import MISSING, CannotMerge, merge_mapping
from gridgit.scratchpad.archive import Archive
from gridgit.scratchpad.document import Scratchpad

T = TypeVar("T")


@dataclass
class GridMerge:
    """The merged tree ({path: bytes}; a path absent is deleted) and the paths merged by a choice."""

    files: dict[str, bytes] = field(default_factory=dict)
    conflicts: list[str] = field(default_factory=list)


def _canonical(ours: bytes, theirs: bytes) -> tuple[bytes, bytes]:
    """The two versions in an order that depends on their content only (so the merge is symmetric)."""
    if hashlib.sha256(ours).digest() >= hashlib.sha256(theirs).digest():
        return ours, theirs
    return theirs, ours


def _merge_json(base: str, lead: str, other: str) -> tuple[str, bool] | None:
    """Key by key (LEAD's value where both changed one: not clean), or None when one is not a JSON object."""
    try:
        b, o, t = (json.loads(text) if text.strip() else {} for text in (base, lead, other))
    except ValueError:
        return None
    if not (isinstance(b, dict) and isinstance(o, dict) and isinstance(t, dict)):
        return None
    both_changed: list[object] = []

    def pick(mine: object, theirs: object) -> object:
        both_changed.append(mine)
        return mine

    merged = merge_mapping(b, o, t, pick)
    return json.dumps(merged, indent=2, ensure_ascii=False) + "\n", not both_changed


def merge_file(path: str, base: bytes | None, ours: bytes | None, theirs: bytes | None) -> tuple[bytes | None, bool]:
    """(merged bytes or None for deleted, clean) for one path of the tree.

    A file one side lacks is not deleted by the merge (only operations remove, and no gridgit
    operation deletes a file but event retention, `items.may_leave`): the other side's
    version stays, so no clone's damage deletes anything in another. (Both sides lack a file
    their snapshots took out of the history on purpose: it is ignored by .grid/.gitignore.)
    """
    if (ours is None) != (theirs is None) and not items.may_leave(path):
        return ours if theirs is None else theirs, True
    if ours == theirs:
        return ours, True
    if ours == base:
        return theirs, True
    if theirs == base:
        return ours, True
    if ours is None or theirs is None:
        return ours if theirs is None else theirs, False  # a segment pruned on one side, grown on the other
    lead, other = _canonical(ours, theirs)
    try:
        texts = [(data or b"").decode("utf-8") for data in (base, lead, other)]
    except UnicodeDecodeError:
        return lead, False
    merger = merge.merger_for(path)
    merged: str | None = None
    clean = True
    if merger is not None:
        with contextlib.suppress(CannotMerge, BadInput):  # unmergeable: the choice below
            merged = merger(texts[0], texts[1], texts[2], path)
    else:
        merged = merge_lines(*texts)
        if merged is None and path.endswith(".json") and (by_keys := _merge_json(*texts)) is not None:
            merged, clean = by_keys
    if merged is None:
        return lead, False
    return merged.encode("utf-8"), clean


def merge_grid(base: dict[str, bytes], ours: dict[str, bytes], theirs: dict[str, bytes]) -> GridMerge:
    """The merge of two versions of a Blackboard against their common BASE (see the module docstring)."""
    result = GridMerge()
    for path in sorted(set(base) | set(ours) | set(theirs)):
        merged, clean = merge_file(path, base.get(path), ours.get(path), theirs.get(path))
        if merged is not None:
            result.files[path] = merged
        if not clean:
            result.conflicts.append(path)
    changed = {p for p in set(ours) | set(theirs) if ours.get(p) != theirs.get(p)}
    _items_kept(result, [ours, theirs, base], changed)
    _archived_once(result, base, changed)
    _events_once(result, changed)
    return result


# ---- invariants across files -----------------------------------------------------------------


def _items_kept(result: GridMerge, versions: list[dict[str, bytes]], changed: set[str]) -> None:
    """Union minus recorded removals: an entry or learning any version held stays in its group.

    Such an item leaves a file only by moving within its group (an entry into its phase's
    archive), so one that no merged file of its group holds was lost on one side by damage (or
    by an earlier gridgit): it comes back from the first version of VERSIONS that has it,
    into the file that held it there.
    """
    groups = {items.group(p) for p in changed} - {None}
    if not groups:
        return
    merged = {p: d for p, d in result.files.items() if items.group(p) in groups}
    for version in versions:
        mine = {p: d for p, d in version.items() if items.group(p) in groups}
        for path, wanted in items.lost(mine, merged).items():
            if path in merged:
                with contextlib.suppress(BadInput, UnicodeDecodeError):
                    merged[path] = items.with_items(path, merged[path], mine[path], wanted)
            else:
                merged[path] = mine[path]
    result.files.update(merged)


def _phase_files(paths: set[str]) -> dict[str, tuple[str, str]]:
    """Phase folder -> (scratchpad path, archive path) for every phase a path of PATHS belongs to."""
    phases = {}
    for path in paths:
        parts = PurePosixPath(path).parts
        if len(parts) == 3 and parts[0] == "phases":
            folder = f"phases/{parts[1]}"
            phases[parts[1]] = (f"{folder}/scratchpad.md", f"{folder}/scratchpad_archived.md")
    return phases


def _parsed(files: dict[str, bytes], path: str, parse: Callable[[str, str], T]) -> T | None:
    """PATH of FILES parsed, or None when it is missing or unreadable (a file merged by a choice is reported)."""
    try:
        return parse(files[path].decode("utf-8"), path)
    except (KeyError, BadInput, UnicodeDecodeError):
        return None


def _archived_once(result: GridMerge, base: dict[str, bytes], changed: set[str]) -> None:
    """An entry a phase's archive holds leaves its scratchpad; the archived copy takes the scratchpad copy's changes."""
    for pad_path, archive_path in _phase_files(changed).values():
        if pad_path not in result.files or archive_path not in result.files:
            continue
        pad = _parsed(result.files, pad_path, Scratchpad.parse)
        archived = _parsed(result.files, archive_path, Archive.parse)
        if pad is None or archived is None:
            continue
        held = {e.uid: i for i, e in enumerate(archived.entries)}
        moved = [e for e in pad.entries if e.uid in held]
        if not moved:
            continue
        old_pad, old_archive = _parsed(base, pad_path, Scratchpad.parse), _parsed(base, archive_path, Archive.parse)
        old = {e.uid: e for e in [*(old_archive.entries if old_archive else []), *(old_pad.entries if old_pad else [])]}
        for entry in moved:
            kept = archived.entries[held[entry.uid]]
            archived.entries[held[entry.uid]] = merge_entry(old.get(entry.uid, MISSING), kept, entry)
            archived.entries[held[entry.uid]].id = kept.id
        pad.entries = [e for e in pad.entries if e.uid not in held]
        pad.renumber()
        result.files[pad_path] = pad.render().encode("utf-8")
        result.files[archive_path] = archived.render().encode("utf-8")


def _event_ids(data: bytes) -> list[tuple[str, bytes]]:
    found = []
    for line in data.splitlines():
        if not line.strip():
            continue
        try:
            event_id = json.loads(line)["id"]
        except (ValueError, KeyError, TypeError):
            event_id = None
        found.append((str(event_id) if event_id is not None else "", line))
    return found


def _events_once(result: GridMerge, changed: set[str]) -> None:
    """An event is in one event file: the first archived segment that holds it, else the live log."""
    logs = sorted(p for p in result.files if p.startswith("events/") and p.endswith(".jsonl"))
    live = [p for p in logs if PurePosixPath(p).parent == PurePosixPath("events")]
    if len(live) == len(logs) or not any(p in changed for p in logs):
        return  # one log file: its own merge already holds each event once
    seen: set[str] = set()
    for path in [*(p for p in logs if p not in live), *live]:
        lines = _event_ids(result.files[path])
        kept = [line for event_id, line in lines if not event_id or event_id not in seen]
        seen.update(event_id for event_id, _ in lines if event_id)
        if len(kept) != len(lines):
            result.files[path] = b"".join(line + b"\n" for line in kept)
