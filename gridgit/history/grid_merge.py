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
from gridgit.history import merge
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
    """(merged bytes or None for deleted, clean) for one path of the tree."""
    if ours == theirs:
        return ours, True
    if ours == base:
        return theirs, True
    if theirs == base:
        return ours, True
    if ours is None or theirs is None:
        return ours if theirs is None else theirs, False  # deleted on one side, changed on the other: keep the change
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
    _archived_once(result, base, changed)
    _events_once(result, changed)
    return result


# ---- invariants across files -----------------------------------------------------------------


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
