"""`memory/INDEX.md`: the fast lookup index, one line per learning, compressed phase and archived
entry that matters (pure functions of rows).

    - 01KFR6JVJ0KYS4J4C0WE0J0MHM | decision | auth | architectural | src/auth.py | phases/01-foundation/scratchpad_archived.md [2]: Use signed cookies

Fields: id (an entry's or learning's uid; a phase id for a compressed phase) | kind (an entry's
category, `learning/<section>`, `compressed`) | topic | tags | files cited | where it lives,
then its title. `-` stands for an empty field. The index has a block per source, `## Learnings`
and `## Phase <id>`, so a phase's completion rewrites its own block and keeps the others.
"""

from __future__ import annotations

from typing import NamedTuple

from gridgit.errors import BadInput
from gridgit.memory.compress import group_of
from gridgit.model.learnings import Learning
from gridgit.scratchpad.citations import cited_files
from gridgit.scratchpad.entry import Entry, clip, headline
from gridgit.store import frontmatter, ids
from gridgit.store.layout import PHASE_ID_RE

LEARNINGS_BLOCK = "Learnings"
PHASE_BLOCK = "Phase "
TITLE_CHARS = 100
_INTRO = """
# Memory index

One line per learning, compressed phase and archived entry that matters (heartbeats and
superseded entries left out): `id | kind | topic | tags | files | where: title`, `-` for
none. Grep it, then read what it names. Rebuilt by gridgit from LEARNINGS.md, the phases'
archives and memory/compressed/ (`gridgit memory rebuild`); do not edit it by hand.
"""


class Row(NamedTuple):
    id: str
    kind: str
    topic: str
    tags: tuple[str, ...]
    files: tuple[str, ...]
    where: str
    title: str

    def render(self) -> str:
        cells = [self.id, self.kind, self.topic, ", ".join(self.tags), ", ".join(self.files)]
        return "- " + " | ".join(_cell(c) for c in cells) + f" | {_cell(self.where)}: {_cell(self.title, '')}"


def _cell(text: str, empty: str = "-") -> str:
    """One field on one line; `|` (the separator) becomes `/`."""
    return " ".join(text.replace("|", "/").split()) or empty


def learning_row(learning: Learning) -> Row:
    files = tuple(cited_files(learning.cited_text()))
    where = f"LEARNINGS.md § {learning.category}"
    return Row(learning.id, f"learning/{learning.category}", learning.topic, tuple(learning.tags), files, where,
               clip(learning.title, TITLE_CHARS))  # fmt: skip


def entry_row(entry: Entry, where: str) -> Row:
    title = headline(entry.content) or entry.title or entry.topic
    return Row(entry.uid, entry.category, entry.topic, tuple(entry.tags), tuple(cited_files(entry.content)),
               f"{where} [{entry.id}]", clip(title, TITLE_CHARS))  # fmt: skip


def compressed_row(phase_id: str, rel: str, entries: int, kept: int) -> Row:
    return Row(phase_id, "compressed", "", (), (), f"memory/{rel}", f"{kept} of {entries} entries kept")


def matters(entry: Entry, restated: set[str]) -> bool:
    """An archived entry worth a line: neither a heartbeat nor restated by a later one."""
    return group_of(entry) is not None and entry.uid not in restated


def render(blocks: dict[str, list[Row]]) -> str:
    """INDEX.md of BLOCKS (`Learnings`, `Phase 01-foundation`, ...): learnings first, then the phases in order."""
    names = [LEARNINGS_BLOCK, *sorted(n for n in blocks if n != LEARNINGS_BLOCK)]
    parts = [_INTRO]
    for name in names:
        rows = blocks.get(name, [])
        if rows or name == LEARNINGS_BLOCK:
            parts.append(f"\n## {name}\n\n" + ("".join(row.render() + "\n" for row in rows) or "None yet.\n"))
    count = {
        "kind": "index",
        "learnings": len(blocks.get(LEARNINGS_BLOCK, [])),
        "phases": sum(1 for n, rows in blocks.items() if n.startswith(PHASE_BLOCK) and rows),
        "lines": sum(len(rows) for rows in blocks.values()),
    }
    return frontmatter.render(count, "".join(parts))


def parse_row(text: str, where: str) -> Row:
    """One `- ...` line of the index; bad input naming WHERE when it has not the six fields."""
    cells = text[2:].split(" | ", 5)
    if len(cells) != 6 or ": " not in cells[5]:
        raise BadInput(f"{where}: expected `- id | kind | topic | tags | files | where: title`")

    def listed(cell: str) -> tuple[str, ...]:
        return () if cell == "-" else tuple(c.strip() for c in cell.split(",") if c.strip())

    if not (ids.is_id(cells[0]) or PHASE_ID_RE.match(cells[0])):
        raise BadInput(f"{where}: {cells[0][:40]!r} is neither an entry's or learning's id nor a phase id")
    place, _, title = cells[5].partition(": ")
    return Row(cells[0], cells[1], "" if cells[2] == "-" else cells[2], listed(cells[3]), listed(cells[4]),
               place, title)  # fmt: skip


def parse(text: str, source: str) -> dict[str, list[Row]]:
    """The blocks of INDEX.md TEXT; bad input naming SOURCE and the line for anything gridgit did not write."""
    meta, body = frontmatter.parse(text, source)
    if meta.get("kind") != "index":
        raise BadInput(f"{source} line 2: expected `kind: index` in the frontmatter")
    first = frontmatter.body_line(text, body)
    blocks: dict[str, list[Row]] = {}
    current: list[Row] | None = None
    for number, line in enumerate(body.split("\n"), start=first):
        if line.startswith("## "):
            name = line[3:].strip()
            if name != LEARNINGS_BLOCK and not name.startswith(PHASE_BLOCK):
                raise BadInput(f"{source} line {number}: unknown block {name!r} (Learnings, or Phase <id>)")
            current = blocks.setdefault(name, [])
        elif line.startswith("- "):
            if current is None:
                raise BadInput(f"{source} line {number}: a line before the first block")
            current.append(parse_row(line, f"{source} line {number}"))
    return blocks
