"""The scratchpad archive: `.grid/phases/{id}/scratchpad_archived.md` (spec 7.2 and 7.3).

Contract:
- File format: YAML frontmatter (phase_id, phase_name, archived_at, total_entries,
  high_value_extracted, categories: a count for each of the 9 categories, extracted: the
  archive ids ([N]) of entries promoted to LEARNINGS.md; in memory, their uids), then the body
  "# Phase {id} - {name} - Scratchpad Archive", "## Summary", "## Extracted to LEARNINGS.md"
  (one `- [id] category | topic: title (agent)` line per promoted entry, never an entry
  header) and "## All Entries" followed by every archived entry in `entry_markdown.format_entry`
  form, so `entry_markdown.parse_entries` reads them back. The summary is derived from the
  frontmatter and entries on every write.
- Archive ids run 1..N in archive order: entries appended later get the next ids, so ids
  stay unique however many times the scratchpad is archived. An entry's identity is its
  uid: the archive never holds one uid twice.
- `append` takes the archive's own sidecar lock; callers that also change the scratchpad
  hold the scratchpad lock first (lock order: scratchpad -> archive). The archive is
  written before the scratchpad, so a crash between the two duplicates entries, never
  loses them.
- The phase-end move of a whole scratchpad is gridgit.phases.archiving's.
"""

from __future__ import annotations

import contextlib
from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from gridgit.errors import BadInput
from gridgit.scratchpad.entry import CATEGORIES, Entry, Resolution
from gridgit.scratchpad.entry_markdown import format_entry, parse_entries
from gridgit.store import clock, fileio, frontmatter, journal, locks
from gridgit.store.layout import Layout


@dataclass
class Archive:
    """A whole archive file as a value (pure parse/render)."""

    phase_id: str
    phase_name: str
    archived_at: str | None = None
    entries: list[Entry] = field(default_factory=list)
    extracted: list[str] = field(default_factory=list)  # uids of the entries promoted to LEARNINGS.md

    @classmethod
    def parse(cls, text: str, source: str) -> Archive:
        meta, body = frontmatter.parse(text, source)
        if "phase_id" not in meta:
            raise BadInput(f"{source} line 2: frontmatter has no 'phase_id'")
        phase_id = str(meta["phase_id"])
        _, entries = parse_entries(body, source, frontmatter.body_line(text, body), phase_id)
        extracted = meta.get("extracted") or []
        if not isinstance(extracted, list) or not all(isinstance(i, int) for i in extracted):
            raise BadInput(f"{source} line 2: 'extracted' must be a list of entry ids")
        numbers = set(extracted)
        return cls(
            phase_id=phase_id,
            phase_name=str(meta.get("phase_name") or phase_id),
            archived_at=meta.get("archived_at"),
            entries=entries,
            extracted=[e.uid for e in entries if e.id in numbers],
        )

    def add(self, entries: Sequence[Entry], promoted: Collection[str], timestamp: str) -> list[Entry]:
        """Append copies of ENTRIES with the next archive ids; returns those added.

        PROMOTED holds uids of entries promoted to LEARNINGS.md: those the archive holds are
        marked so (see mark).

        An entry the archive already holds (by uid) is not added again: the archive is written
        before the scratchpad is, so a crash in between leaves entries in both, and the re-run
        that moves them again must not double them.
        """
        held = {e.uid for e in self.entries}
        next_id = max((e.id for e in self.entries), default=0) + 1
        added = []
        for original in entries:
            if original.uid not in held:
                moved = original.copy()
                moved.id, next_id = next_id, next_id + 1
                self.entries.append(moved)
                held.add(moved.uid)
                added.append(moved)
        if added:
            self.archived_at = timestamp
        self.mark(promoted)
        return added

    def mark(self, promoted: Collection[str], closed: Mapping[str, Resolution] | None = None) -> bool:
        """Mark the held entries whose uid is in PROMOTED as promoted to LEARNINGS.md (wherever
        they came from: a mid-phase archive too), and close the open ones CLOSED names (uid ->
        its Resolution, e.g. carried into the next phase). True when anything changed."""
        changed = False
        for entry in self.entries:
            if entry.uid in promoted and entry.uid not in self.extracted:
                self.extracted.append(entry.uid)
                changed = True
            if closed and entry.uid in closed and entry.is_open:
                entry.resolution = closed[entry.uid]
                changed = True
        return changed

    def promoted_entries(self) -> list[Entry]:
        """The entries promoted to LEARNINGS.md, in archive order."""
        promoted = set(self.extracted)
        return [e for e in self.entries if e.uid in promoted]

    def meta(self) -> dict[str, Any]:
        counts = {c: 0 for c in CATEGORIES}
        for entry in self.entries:
            counts[entry.category] += 1
        return {
            "phase_id": self.phase_id,
            "phase_name": self.phase_name,
            "archived_at": self.archived_at,
            "total_entries": len(self.entries),
            "high_value_extracted": len(self.promoted_entries()),
            "categories": counts,
            "extracted": [e.id for e in self.promoted_entries()],
        }

    def render(self) -> str:
        lines = [
            "",
            f"# Phase {self.phase_id} - {self.phase_name} - Scratchpad Archive",
            "",
            "## Summary",
            "",
            f"- **Total Entries:** {len(self.entries)}",
            f"- **High-Value Extracted to LEARNINGS.md:** {len(self.promoted_entries())}",
        ]
        if self.entries:
            lines.append(f"- **Phase Duration:** {self.entries[0].timestamp} to {self.entries[-1].timestamp}")
        lines += ["", "## Extracted to LEARNINGS.md", ""]
        summary = [_summary_line(e) for e in self.promoted_entries()]
        lines += summary or ["None"]
        lines += ["", "## All Entries", "", ""]
        body = "\n".join(lines) + "".join(format_entry(e) for e in self.entries)
        return frontmatter.render(self.meta(), body)


def _summary_line(entry: Entry) -> str:
    title = entry.title or entry.topic
    return f"- [{entry.id}] {entry.category} | {entry.topic}: {title} ({entry.agent_id})"


def load(layout: Layout, phase_id: str) -> Archive | None:
    """The phase's archive, or None when nothing was archived yet."""
    path = layout.scratchpad_archive(phase_id)
    if not path.exists() and not path.is_symlink():
        return None
    return Archive.parse(fileio.read_text(path), str(path))


def read(layout: Layout, phase_id: str) -> list[Entry]:
    """Every archived entry of the phase, in archive order (ids 1..N)."""
    found = load(layout, phase_id)
    return found.entries if found else []


@contextlib.contextmanager
def modify(layout: Layout, phase_id: str) -> Iterator[Archive | None]:
    """Yield the phase's archive (None when there is none) under its lock; written back if it changed."""
    path = layout.scratchpad_archive(phase_id)
    with locks.locked(path):
        archive = load(layout, phase_id)
        before = archive.render() if archive else None
        yield archive
        if archive is not None and archive.render() != before:
            journal.write(layout, path, archive.render())


def append(
    layout: Layout,
    phase_id: str,
    phase_name: str,
    entries: Sequence[Entry],
    promoted: Collection[str] = (),
    closed: Mapping[str, Resolution] | None = None,
) -> Archive | None:
    """Append ENTRIES to the archive under its lock, then mark (see Archive.mark); the archive as written.

    PROMOTED holds uids of entries promoted to LEARNINGS.md: they are counted in
    high_value_extracted and listed in the summary. None when there was no archive and
    nothing to add.
    """
    path = layout.scratchpad_archive(phase_id)
    with locks.locked(path):
        found = load(layout, phase_id)
        if found is None and not entries:
            return None
        archive = found or Archive(phase_id, phase_name)
        extracted = list(archive.extracted)
        added = archive.add(entries, set(promoted), clock.now_iso())
        if archive.mark((), closed) or added or archive.extracted != extracted:
            journal.write(layout, path, archive.render())
    return archive
