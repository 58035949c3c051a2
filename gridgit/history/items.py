"""The identified items of `.grid/` files, and the files that share them (pure functions of bytes).

Entries and learnings have stable ids. Neither ever leaves the Blackboard: an entry only
moves between its phase's scratchpad and archive (the archive is the record of its removal
from the scratchpad), a learning stays in LEARNINGS.md. So a group of files that lacks an id
an earlier version of it held lost that item by damage (a hand edit, a truncation), never
by a gridgit operation; `lost` finds such ids and `with_items` puts the items back, into
the file that held them.

| group | files | item |
|---|---|---|
| `phases/NN` | `scratchpad.md`, `scratchpad_archived.md` | entry, by uid |
| `LEARNINGS.md` | `LEARNINGS.md` | learning, by id |

The event log is a live bus, not such a group: its rotated segments leave by retention
(`events.keep_segments`), and `may_leave` names them, the one kind of file an operation
deletes; merges unite events by id (gridgit.history.merge).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from pathlib import PurePosixPath
from typing import Any

from gridgit.errors import BadInput

_ENTRY_FILES = ("scratchpad.md", "scratchpad_archived.md", "scratchpad_archive.md")


def group(path: str) -> str | None:
    """The group of files whose items PATH (inside .grid/) shares, None for a file without items."""
    parts = PurePosixPath(path).parts
    if len(parts) == 3 and parts[0] == "phases" and parts[2] in _ENTRY_FILES:
        return f"phases/{parts[1]}"
    if parts == ("LEARNINGS.md",):
        return "LEARNINGS.md"
    return None


def may_leave(path: str) -> bool:
    """Whether a gridgit operation deletes PATH: a rotated event segment past `events.keep_segments`."""
    parts = PurePosixPath(path).parts
    return len(parts) == 3 and parts[:2] == ("events", "archive")


def _is_archive(path: str) -> bool:
    return PurePosixPath(path).name.startswith("scratchpad_archive")


@functools.lru_cache(maxsize=16)
def ids(path: str, data: bytes) -> frozenset[str] | None:
    """The ids of the items DATA (the file PATH) holds; None when it does not parse.

    Kept for the last few files: a merge asks about each version of a file several times, and a
    peer's scratchpad of 20,000 entries takes seconds to parse.
    """
    try:
        text = data.decode("utf-8")
        kind = group(path)
        if kind == "LEARNINGS.md":
            from gridgit.model.learnings import LearningsFile

            return frozenset(learning.id for learning in LearningsFile.parse(text).learnings())
        if kind is not None:
            return frozenset(entry.uid for entry in entry_doc(path, text).entries)
    except (BadInput, UnicodeDecodeError, ValueError):
        return None
    return frozenset()


def lost(versions: Mapping[str, bytes], now: Mapping[str, bytes]) -> dict[str, set[str]]:
    """{path: ids} of the items VERSIONS' files held that no file of their group in NOW holds.

    Both map paths inside .grid/ to bytes; a group whose NOW files do not parse loses nothing
    here (such a file is kept whole by its caller).
    """
    held: dict[str, set[str]] = {}
    for path, data in now.items():
        kind = group(path)
        found = ids(path, data) if kind else None
        if kind is not None and found is not None:
            held.setdefault(kind, set()).update(found)
    missing: dict[str, set[str]] = {}
    for path, data in versions.items():
        kind = group(path)
        if kind is None or kind not in held:
            continue
        gone = set(ids(path, data) or ()) - held[kind]
        if gone:
            missing[path] = gone
    return missing


def with_items(path: str, data: bytes, donor: bytes, wanted: set[str]) -> bytes:
    """DATA (the file PATH) with the items of DONOR (another version of it) whose ids are WANTED added."""
    text, other = data.decode("utf-8"), donor.decode("utf-8")
    kind = group(path)
    if kind == "LEARNINGS.md":
        return _learnings_with(text, other, wanted).encode("utf-8")
    from gridgit.history.entry_merge import merge_entries

    doc, source = entry_doc(path, text), entry_doc(path, other)
    doc.entries = merge_entries([], doc.entries, [e for e in source.entries if e.uid in wanted])
    if _is_archive(path):
        doc.extracted = list(dict.fromkeys([*doc.extracted, *(u for u in source.extracted if u in wanted)]))
    return str(doc.render()).encode("utf-8")


def entry_doc(path: str, text: str) -> Any:
    """The Scratchpad or Archive TEXT (the file PATH) holds (BadInput when it does not parse)."""
    from gridgit.scratchpad.archive import Archive
    from gridgit.scratchpad.document import Scratchpad

    return Archive.parse(text, path) if _is_archive(path) else Scratchpad.parse(text, path)


def _learnings_with(text: str, donor: str, wanted: set[str]) -> str:
    """LEARNINGS.md TEXT with DONOR's learnings of ids WANTED appended to their sections."""
    from gridgit.model.learnings import LearningsFile, Section

    doc, source = LearningsFile.parse(text), LearningsFile.parse(donor)
    ids_of = iter(learning.id for learning in source.learnings())
    for section in source.sections:
        for chunk in section.chunks:
            if next(ids_of) not in wanted:
                continue
            target = next((s for s in doc.sections if s.name == section.name), None)
            if target is None:
                target = Section(section.name, section.heading, "\n")
                doc.sections.append(target)
            if target.chunks and not target.chunks[-1].endswith("\n\n"):
                target.chunks[-1] += "\n" if target.chunks[-1].endswith("\n") else "\n\n"
            target.chunks.append(chunk if chunk.endswith("\n") else chunk + "\n")
    return doc.render()
