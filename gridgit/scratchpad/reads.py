"""Reading a scratchpad through its index (spec 5.2) and the lookup helpers of spec 5.3.

Reads take no lock (writes are atomic renames). The index picks which entry chunks to
parse; when it has drifted from the body (a hand edit not yet re-indexed), the whole body
is parsed instead, so a read never misses an entry the body holds.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path

from gridgit.errors import BadInput
from gridgit.scratchpad import entry as entry_mod
from gridgit.scratchpad import entry_markdown
from gridgit.scratchpad.entry import (
    CATEGORIES,
    OPEN_CATEGORIES,
    RELEVANCES,
    ArchivedEntry,
    Entry,
    relevance_rank,
)
from gridgit.store import fileio, frontmatter
from gridgit.store.layout import Layout, check_phase_id

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def _header_index(chunks: list[tuple[int, str]]) -> tuple[list[int], dict[str, list[int]], dict[str, list[int]]]:
    """(ids, by_topic, by_category) from the entry header lines alone."""
    ids: list[int] = []
    by_topic: dict[str, list[int]] = {}
    by_category: dict[str, list[int]] = {c: [] for c in CATEGORIES}
    for _, chunk in chunks:
        match = entry_markdown.HEADER_RE.match(chunk)
        if match is None or match.group(4) not in by_category:
            return [], {}, {}
        entry_id = int(match.group(1))
        ids.append(entry_id)
        by_topic.setdefault(match.group(5).strip(), []).append(entry_id)
        by_category[match.group(4)].append(entry_id)
    return ids, by_topic, by_category


def _chunk_id(chunk: str) -> int:
    match = entry_markdown.HEADER_RE.match(chunk)
    return int(match.group(1)) if match else -1


def _index_matches(index: Any, chunks: list[tuple[int, str]]) -> bool:
    """True when the stored index agrees with what the headers say (cheap drift check)."""
    if not isinstance(index, dict) or index.get("entry_count") != len(chunks):
        return False
    ids, by_topic, by_category = _header_index(chunks)
    if len(ids) != len(chunks) or len(set(ids)) != len(ids):
        return False
    by_relevance = index.get("by_relevance")
    if not isinstance(by_relevance, dict) or not isinstance(index.get("by_agent"), dict):
        return False
    ranked = sorted(i for r in RELEVANCES for i in by_relevance.get(r) or [])
    return bool(index.get("by_topic") == by_topic and index.get("by_category") == by_category and ranked == sorted(ids))


def _selected_ids(
    index: dict[str, Any], topic: str | None, category: str | None, relevance: str | None, agent_id: str | None
) -> set[int]:
    selected = {i for ids in index["by_category"].values() for i in ids}
    if topic is not None:
        selected &= set(index["by_topic"].get(topic) or [])
    if category is not None:
        selected &= set(index["by_category"].get(category) or [])
    if agent_id is not None:
        selected &= set(index["by_agent"].get(agent_id) or [])
    if relevance is not None:
        wanted = [r for r in RELEVANCES if relevance_rank(r) >= relevance_rank(relevance)]
        selected &= {i for r in wanted for i in index["by_relevance"].get(r) or []}
    return selected


def _matches(
    entry: Entry, topic: str | None, category: str | None, relevance: str | None, agent_id: str | None
) -> bool:
    return (
        (topic is None or entry.topic == topic)
        and (category is None or entry.category == category)
        and (agent_id is None or agent_id == entry.agent_id or agent_id in entry.contributors)
        and (relevance is None or relevance_rank(entry.relevance) >= relevance_rank(relevance))
    )


def _checked_filters(
    phase_id: str, topic: str | None, category: str | None, relevance: str | None, limit: int | None
) -> tuple[str | None, str | None, str | None]:
    """The filters of a read, normalised (topic) and checked; bad input raises before any I/O."""
    check_phase_id(phase_id)
    if limit is not None and limit < 0:
        raise BadInput(f"limit must be >= 0, not {limit}")
    return (
        entry_mod.normalise_topic(topic) if topic is not None else None,
        entry_mod.check_category(category) if category is not None else None,
        entry_mod.check_relevance(relevance) if relevance is not None else None,
    )


def read_entries(
    layout: Layout,
    phase_id: str,
    topic: str | None = None,
    category: str | None = None,
    relevance: str | None = None,
    agent_id: str | None = None,
    limit: int | None = None,
) -> list[Entry]:
    """Entries of the phase, newest first; RELEVANCE is a minimum (MEDIUM = HIGH + MEDIUM).

    AGENT_ID matches the author and the contributors of merged entries. A phase without a
    scratchpad has no entries.
    """
    topic, category, relevance = _checked_filters(phase_id, topic, category, relevance, limit)
    layout.require()
    path = layout.scratchpad(phase_id)
    if not path.exists() and not path.is_symlink():
        return []
    meta, body, body_line, chunks = _split(path)
    index = meta.get("index")
    if _index_matches(index, chunks):
        assert isinstance(index, dict)
        wanted = _selected_ids(index, topic, category, relevance, agent_id)
        entries = _parse(path, meta, body, body_line, chunks, lambda chunk: _chunk_id(chunk) in wanted)
    else:
        entries = _parse(path, meta, body, body_line, chunks, None)
    return _newest_first(entries, topic, category, relevance, agent_id, limit)


def _split(path: Path) -> tuple[dict[str, Any], str, int, list[tuple[int, str]]]:
    """(frontmatter, body, the body's first line, [(offset, entry chunk)]) of the scratchpad or archive at PATH."""
    text = fileio.read_text(path)
    meta, body = frontmatter.parse(text, str(path))
    body_line = frontmatter.body_line(text, body)
    return meta, body, body_line, entry_markdown.split_body(body, str(path), body_line)[1]


def _parse(
    path: Path,
    meta: dict[str, Any],
    body: str,
    body_line: int,
    chunks: list[tuple[int, str]],
    wanted: Callable[[str], bool] | None,
) -> list[Entry]:
    """The entries of the CHUNKS that WANTED picks (None: all), parsed with their line numbers.

    An entry of an earlier gridgit has no uid line: its derived uid needs the whole file, so
    then every entry is returned (callers filter what they read).
    """
    entries = []
    if wanted is not None:
        line = body_line + body.count("\n", 0, chunks[0][0]) if chunks else body_line
        for _, chunk in chunks:  # a running line count: each chunk's newlines are counted once
            if wanted(chunk):
                entries.append(entry_markdown.parse_entry(chunk, line, str(path)))
            line += chunk.count("\n")
    if wanted is None or any(not e.uid for e in entries):
        entries = entry_markdown.parse_entries(
            body, str(path), body_line, str(meta.get("phase_id") or path.parent.name)
        )[1]
    return entries


def _open_category(chunk: str) -> bool:
    match = entry_markdown.HEADER_RE.match(chunk)
    return match is not None and match.group(4) in OPEN_CATEGORIES


def archived_open(layout: Layout, phase_id: str, live: Iterable[Entry] = ()) -> list[ArchivedEntry]:
    """The open entries of the phase's archive, oldest first, but those also LIVE (a crash can leave one in both).

    Open work stays live when a scratchpad is archived; an archive holds some only from a
    phase completed without a next phase, an earlier gridgit or a clone running one. Only the
    entries of open categories are parsed: an archive is mostly settled work.
    """
    path = layout.scratchpad_archive(check_phase_id(phase_id))
    if not path.exists() and not path.is_symlink():
        return []
    found = _parse(path, *_split(path), _open_category)
    shown = {e.uid for e in live}
    return [ArchivedEntry.of(e) for e in found if e.is_open and e.uid not in shown]


def read_live(
    layout: Layout,
    phase_id: str,
    topic: str | None = None,
    category: str | None = None,
    relevance: str | None = None,
    agent_id: str | None = None,
    limit: int | None = None,
) -> list[Entry]:
    """read_entries, then the phase's open work that only its archive holds (ArchivedEntry, newest first).

    What `gridgit read` shows: every open item of the phase, wherever it lives.
    """
    entries = read_entries(layout, phase_id, topic, category, relevance, agent_id, limit)
    if limit is not None and len(entries) >= limit:
        return entries
    topic, category, relevance = _checked_filters(phase_id, topic, category, relevance, limit)
    # Under the limit, ENTRIES holds every live match: an entry also archived is shown once, live.
    found: list[Entry] = list(archived_open(layout, phase_id, entries))
    rest = None if limit is None else limit - len(entries)
    return entries + _newest_first(found, topic, category, relevance, agent_id, rest)


def _newest_first(
    entries: list[Entry],
    topic: str | None,
    category: str | None,
    relevance: str | None,
    agent_id: str | None,
    limit: int | None,
) -> list[Entry]:
    found = [e for e in entries if _matches(e, topic, category, relevance, agent_id)]
    found.sort(key=lambda e: e.id, reverse=True)
    return found[:limit] if limit is not None else found


def read_archived(
    layout: Layout,
    phase_id: str,
    topic: str | None = None,
    category: str | None = None,
    relevance: str | None = None,
    agent_id: str | None = None,
    limit: int | None = None,
) -> list[Entry]:
    """Entries of the phase's archive (ids in archive numbering), newest first, same filters."""
    from gridgit.scratchpad import archive

    topic, category, relevance = _checked_filters(phase_id, topic, category, relevance, limit)
    layout.require()
    return _newest_first(archive.read(layout, phase_id), topic, category, relevance, agent_id, limit)


# ---- spec 5.3 lookup helpers ------------------------------------------------------------


def lookup_by_topic(layout: Layout, phase_id: str, topic: str) -> list[Entry]:
    return read_entries(layout, phase_id, topic=topic)


def lookup_by_category(layout: Layout, phase_id: str, category: str) -> list[Entry]:
    return read_entries(layout, phase_id, category=category)


def get_recent_entries(layout: Layout, phase_id: str, count: int = 10) -> list[Entry]:
    return read_entries(layout, phase_id, limit=count)


def get_high_relevance(layout: Layout, phase_id: str) -> list[Entry]:
    return read_entries(layout, phase_id, relevance="HIGH")


def get_agent_entries(layout: Layout, phase_id: str, agent_id: str) -> list[Entry]:
    return read_entries(layout, phase_id, agent_id=agent_id)


def get_blockers(layout: Layout, phase_id: str) -> list[Entry]:
    return read_entries(layout, phase_id, category="blocker")


def get_handoffs(layout: Layout, phase_id: str) -> list[Entry]:
    return read_entries(layout, phase_id, category="handoff")
