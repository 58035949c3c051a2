"""A whole scratchpad file as a value: frontmatter, preamble, entries (pure parse/render)."""

from __future__ import annotations

from gridgit.errors import BadInput
from gridgit.scratchpad import index
from gridgit.scratchpad.entry import Entry
from gridgit.scratchpad.entry_markdown import format_entry, parse_entries
from gridgit.store import frontmatter
from gridgit.store.layout import PHASE_ID_RE
from gridgit.store.record import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

HEADER = (
    "# ═══════════════════════════════════════════════════════════════════\n"
    "# PHASE SCRATCHPAD - Inter-Agent Communication\n"
    "# ═══════════════════════════════════════════════════════════════════\n"
)


def empty_meta(phase_id: str, phase_name: str, timestamp: str, max_entries: int) -> dict[str, Any]:
    """The spec's default frontmatter (section 2.2)."""
    return {
        "phase_id": phase_id,
        "phase_name": phase_name,
        "created_at": timestamp,
        "last_updated": timestamp,
        "index": index.rebuild([], max_entries),
        "subscriptions": [],
        "archive": {
            "archived_count": 0,
            "last_archive": None,
            "archive_file": f".grid/phases/{phase_id}/scratchpad_archived.md",
        },
    }


def default_preamble(phase_name: str) -> str:
    return f"\n# Phase Scratchpad: {phase_name}\n\n## Entries\n\n"


class Scratchpad(Record):
    FIELDS = ("meta", "preamble", "entries")
    __slots__ = FIELDS

    def __init__(self, meta: dict[str, Any], preamble: str, entries: list[Entry] | None = None) -> None:
        self.meta = meta
        self.preamble = preamble
        self.entries = entries if entries is not None else []

    @classmethod
    def new(cls, phase_id: str, phase_name: str, timestamp: str, max_entries: int) -> Scratchpad:
        return cls(empty_meta(phase_id, phase_name, timestamp, max_entries), default_preamble(phase_name))

    @classmethod
    def parse(cls, text: str, source: str) -> Scratchpad:
        """Parse a scratchpad; errors name SOURCE and the line."""
        meta, body = frontmatter.parse(text, source)
        for key in ("phase_id", "phase_name", "index"):
            if key not in meta:
                raise BadInput(f"{source} line 2: frontmatter has no {key!r}")
        if not PHASE_ID_RE.match(str(meta["phase_id"])):
            raise BadInput(f"{source} line 2: phase_id {meta['phase_id']!r} is not NN-slug")
        if not isinstance(meta["index"], dict):
            raise BadInput(f"{source} line 2: index must be a mapping")
        preamble, entries = parse_entries(body, source, frontmatter.body_line(text, body), str(meta["phase_id"]))
        return cls(meta, preamble, entries)

    @property
    def phase_id(self) -> str:
        return str(self.meta["phase_id"])

    @property
    def phase_name(self) -> str:
        return str(self.meta.get("phase_name") or self.phase_id)

    @property
    def max_entries(self) -> int:
        value = self.meta.get("index", {}).get("max_entries", index.DEFAULT_MAX_ENTRIES)
        return value if isinstance(value, int) and value > 0 else index.DEFAULT_MAX_ENTRIES

    def rebuilt_index(self) -> dict[str, Any]:
        return index.rebuild(self.entries, self.max_entries)

    def index_is_current(self) -> bool:
        return bool(self.meta.get("index") == self.rebuilt_index())

    def next_id(self) -> int:
        return max((e.id for e in self.entries), default=0) + 1

    def renumber(self) -> None:
        """Ids 1..N in file order (after entries were archived away)."""
        for number, entry in enumerate(self.entries, start=1):
            entry.id = number

    def record_archive(self, count: int, timestamp: str) -> None:
        """Add COUNT to the frontmatter's archive counters."""
        info = self.meta.get("archive")
        if not isinstance(info, dict):
            info = {"archive_file": f".grid/phases/{self.phase_id}/scratchpad_archived.md"}
            self.meta["archive"] = info
        previous = info.get("archived_count")
        info["archived_count"] = (previous if isinstance(previous, int) else 0) + count
        info["last_archive"] = timestamp

    def render(self) -> str:
        """The file text, with the index rebuilt from the entries (the body is the truth)."""
        meta = dict(self.meta)
        meta["index"] = self.rebuilt_index()
        body = self.preamble + "".join(format_entry(e) for e in self.entries)
        return frontmatter.render(meta, body, HEADER)
