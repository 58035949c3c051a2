"""LEARNINGS.md (L4): sections of `###` learnings, parsed and rendered back losslessly.

The file is split into raw pieces (preamble, `## section` headings, `### learning` chunks)
whose concatenation is the original text, so anything a user wrote by hand survives every
gridgit write byte for byte; new learnings are only ever appended to their section, and a
learning without an `- **Id:**` line gets one (its derived id, see assign_ids).

Every learning has an id: a promoted one's is derived from the entry it came from (its
origin, that entry's uid), so two clones promoting one entry make one learning; one
written by hand gets an id derived from its section and text when gridgit first writes
the file.
"""

from __future__ import annotations

import re

from gridgit.errors import BadInput
from gridgit.model import categories
from gridgit.model.permissions import check_learnings_writer
from gridgit.store import clock, fileio, ids, journal, locks, usertext
from gridgit.store.escaping import LineEscaper
from gridgit.store.layout import Layout, read_template
from gridgit.store.record import Record

TYPE_CHECKING = False  # typing costs a hook's start ~2.5 ms (see gridgit.store.record)
if TYPE_CHECKING:
    from typing import Any

SECTIONS = ("user_preferences", "decisions", "gotchas", "patterns", "discoveries")

_HEADING_RE = re.compile(r"^(#{2,3})[ \t]+(.*?)[ \t]*$", re.MULTILINE)
_META_FIELDS = ("Id", "Origin", "From", "Tags", "Evidence", "Promoted")
_META_RE = re.compile(r"^- \*\*(" + "|".join(_META_FIELDS) + r"):\*\*[ ]?(.*)$")
_SUB_ITEM_RE = re.compile(r"^  - (.*)$")
# Content lines that would read as structure (a section, a learning, a metadata line) get
# one more backslash, so content is escaped, never dropped, and the escape is undone exactly.
_STRUCTURE = r"(?:#{2,3}[ \t]|- \*\*(?:" + "|".join(_META_FIELDS) + r"):\*\*)"
_ESCAPER = LineEscaper(_STRUCTURE, ("##", "- **"))
_FROM_RE = re.compile(r"^(\S+) \[(\d+)\] (\S+) (\S+) \| (\S+) \| (\S+)$")
_PROMOTED_RE = re.compile(r"^(\S+) by (\S+)$")
_CARRY_PREFIX_RE = re.compile(r"^\s*\[(?:Carried|Context) from [^\]\n]+\]\s*")
# The origin an earlier gridgit wrote: `phase@timestamp/agent/category/topic`.
_LEGACY_ORIGIN_RE = re.compile(r"^(\d{2}-[a-z0-9][a-z0-9-]*)@([^/\s]+)/([^/\s]+)/([^/\s]+)/(\S+)$")


class Learning(Record):
    """One L4 learning and, when it was promoted, the scratchpad entry it came from."""

    FIELDS = (
        "category", "title", "content", "id", "origin", "phase_id", "entry_id", "agent_id", "timestamp",
        "entry_category", "topic", "tags", "evidence", "promoted_by", "promoted_at",
    )  # fmt: skip
    __slots__ = FIELDS

    def __init__(
        self,
        category: str,
        title: str,
        content: str,
        id: str = "",
        origin: str = "",  # the uid of the entry it was promoted from
        phase_id: str = "",
        entry_id: int | None = None,
        agent_id: str = "",
        timestamp: str = "",
        entry_category: str = "",
        topic: str = "",
        tags: list[str] | None = None,
        evidence: list[str] | None = None,
        promoted_by: str = "",
        promoted_at: str = "",
    ) -> None:
        self.category = category
        self.title = title
        self.content = content
        self.id = id
        self.origin = origin
        self.phase_id = phase_id
        self.entry_id = entry_id
        self.agent_id = agent_id
        self.timestamp = timestamp
        self.entry_category = entry_category
        self.topic = topic
        self.tags = tags if tags is not None else []
        self.evidence = evidence if evidence is not None else []
        self.promoted_by = promoted_by
        self.promoted_at = promoted_at

    def to_dict(self) -> dict[str, Any]:
        """Its fields, the lists copied (as dataclasses.asdict did): the dict shares nothing that changes."""
        return {**self.fields(), "tags": list(self.tags), "evidence": list(self.evidence)}

    def normalised(self) -> str:
        return normalise(self.content or self.title)

    def cited_text(self) -> str:
        """Its Evidence items as an Evidence list, then its content: where the files it cites are read from."""
        return "\n".join(f"- {item}" for item in self.evidence) + "\n\n" + self.content


def normalise(text: str) -> str:
    """The text two learnings are compared by: carry-forward prefixes, case and spacing ignored."""
    previous = None
    while previous != text:
        previous, text = text, _CARRY_PREFIX_RE.sub("", text, count=1)
    return " ".join(text.split()).casefold()


def section_name(heading: str) -> str:
    """`## User Preferences` and `## user-preferences` both name the user_preferences section."""
    return re.sub(r"[\s-]+", "_", heading.strip().lower())


def check_category(category: str) -> str:
    """CATEGORY as a section of LEARNINGS.md (`gotcha` is `gotchas`), or BadInput."""
    category = categories.section(category)
    if category not in SECTIONS:
        raise BadInput(f"unknown learnings category {category!r} (one of: {', '.join(SECTIONS)})")
    return category


def _one_line(text: str) -> str:
    return " ".join(text.split())


escape = _ESCAPER.escape
unescape = _ESCAPER.unescape


# ---- one learning --------------------------------------------------------------------------


def format_learning(learning: Learning) -> str:
    """The markdown of LEARNING: heading, content, origin metadata, and a closing blank line."""
    title = _one_line(learning.title) or _one_line(learning.topic) or "Learning"
    parts = [f"### {title}\n\n"]
    content = learning.content.strip()
    if content:
        parts.append(escape(content) + "\n\n")
    meta: list[str] = []
    if learning.id:
        meta.append(f"- **Id:** {_one_line(learning.id)}")
    if learning.origin:
        meta.append(f"- **Origin:** {_one_line(learning.origin)}")
    if learning.phase_id:
        meta.append(
            f"- **From:** {learning.phase_id} [{learning.entry_id or 0}] {learning.timestamp or '-'} "
            f"{learning.agent_id or '-'} | {learning.entry_category or '-'} | {learning.topic or '-'}"
        )
    if learning.tags:
        meta.append(f"- **Tags:** {', '.join(_one_line(t) for t in learning.tags)}")
    if learning.evidence:
        meta.append("- **Evidence:**")
        meta.extend(f"  - {_one_line(item)}" for item in learning.evidence)
    if learning.promoted_at or learning.promoted_by:
        meta.append(f"- **Promoted:** {learning.promoted_at or '-'} by {learning.promoted_by or '-'}")
    if meta:
        parts.append("\n".join(meta) + "\n\n")
    return "".join(parts)


def parse_learning(chunk: str, category: str) -> Learning:
    """Parse one `### ...` chunk; hand-written learnings simply have no origin metadata."""
    heading, _, rest = chunk.partition("\n")
    lines = rest.split("\n")
    meta_start = next((i for i, line in enumerate(lines) if _META_RE.match(line)), len(lines))
    learning = Learning(
        category=category,
        title=heading.lstrip("#").strip(),
        content=unescape("\n".join(lines[:meta_start]).strip()),
    )
    current = ""
    for line in lines[meta_start:]:
        if match := _META_RE.match(line):
            current, value = match.group(1), match.group(2).strip()
            _apply_meta(learning, current, value)
        elif (sub := _SUB_ITEM_RE.match(line)) and current == "Evidence":
            learning.evidence.append(sub.group(1).strip())
    return learning


def _apply_meta(learning: Learning, name: str, value: str) -> None:
    if name == "Id":
        learning.id = value
    elif name == "Origin":
        learning.origin = value
        if legacy := _LEGACY_ORIGIN_RE.match(value):  # an earlier gridgit's origin: the entry's derived uid
            phase_id, timestamp, agent_id, category, topic = legacy.groups()
            learning.origin = ids.legacy_entry_id(phase_id, timestamp, agent_id, category, topic)
    elif name == "Tags":
        learning.tags = [t.strip() for t in value.split(",") if t.strip()]
    elif name == "From" and (match := _FROM_RE.match(value)):
        phase_id, entry_id, timestamp, agent_id, entry_category, topic = match.groups()
        learning.phase_id, learning.entry_id = phase_id, int(entry_id) or None
        learning.timestamp, learning.agent_id = (
            ("" if timestamp == "-" else timestamp),
            ("" if agent_id == "-" else agent_id),
        )
        learning.entry_category = "" if entry_category == "-" else entry_category
        learning.topic = "" if topic == "-" else topic
    elif name == "Promoted" and (match := _PROMOTED_RE.match(value)):
        at, by = match.groups()
        learning.promoted_at, learning.promoted_by = ("" if at == "-" else at), ("" if by == "-" else by)


# ---- the whole file ------------------------------------------------------------------------


class Section(Record):
    FIELDS = ("name", "heading", "intro", "chunks")
    __slots__ = FIELDS

    def __init__(
        self,
        name: str,
        heading: str,  # the raw `## ...` line with its newline
        intro: str = "",  # raw text between the heading and the first learning
        chunks: list[str] | None = None,  # raw `### ...` chunks
    ) -> None:
        self.name = name
        self.heading = heading
        self.intro = intro
        self.chunks = chunks if chunks is not None else []

    def text(self) -> str:
        return self.heading + self.intro + "".join(self.chunks)


class LearningsFile(Record):
    FIELDS = ("preamble", "sections")
    __slots__ = FIELDS

    def __init__(self, preamble: str, sections: list[Section] | None = None) -> None:
        self.preamble = preamble
        self.sections = sections if sections is not None else []

    @classmethod
    def parse(cls, text: str) -> LearningsFile:
        doc = cls(preamble="")
        cuts = [(m.start(), len(m.group(1)), m.group(2)) for m in _HEADING_RE.finditer(text)]
        ends = [start for start, _, _ in cuts[1:]] + [len(text)] * bool(cuts)
        doc.preamble = text[: cuts[0][0]] if cuts else text
        for (start, level, title), end in zip(cuts, ends, strict=True):
            piece = text[start:end]
            if level == 2:
                line_end = piece.find("\n") + 1 or len(piece)
                doc.sections.append(Section(section_name(title), piece[:line_end], piece[line_end:]))
            elif doc.sections:
                doc.sections[-1].chunks.append(piece)
            else:  # a learning before any section is kept as preamble text
                doc.preamble += piece
        return doc

    def render(self) -> str:
        return self.preamble + "".join(s.text() for s in self.sections)

    def learnings(self, category: str | None = None) -> list[Learning]:
        """Every learning in file order (of one section), each with its id (derived when it has none)."""
        found = [parse_learning(chunk, section.name) for section in self.sections for chunk in section.chunks]
        derive_ids(found)
        return [learning for learning in found if category is None or learning.category == category]

    def assign_ids(self) -> None:
        """Write its derived id into each learning that has no `- **Id:**` line (gridgit's first write)."""
        derived = iter(self.learnings())
        for section in self.sections:
            for i, chunk in enumerate(section.chunks):
                learning = next(derived)
                if not parse_learning(chunk, section.name).id:
                    section.chunks[i] = _with_id_line(chunk, learning.id)

    def append(self, learning: Learning) -> None:
        """Add LEARNING at the end of its section (created at the end of the file if missing)."""
        section = next((s for s in reversed(self.sections) if s.name == learning.category), None)
        if section is None:
            if self.sections:
                last = self.sections[-1]
                if last.chunks:
                    last.chunks[-1] = _blank_line_after(last.chunks[-1])
                else:
                    last.intro = _blank_line_after(last.heading + last.intro)[len(last.heading) :]
            else:
                self.preamble = _blank_line_after(self.preamble) if self.preamble else ""
            section = Section(learning.category, f"## {learning.category}\n", "\n")
            self.sections.append(section)
        elif section.chunks:
            section.chunks[-1] = _blank_line_after(section.chunks[-1])
        else:
            section.intro = _blank_line_after(section.heading + section.intro)[len(section.heading) :]
        section.chunks.append(format_learning(learning))


def learning_id(origin: str, timestamp: str = "", ordinal: int = 0) -> str:
    """The id of the learning promoted from the entry whose uid is ORIGIN (TIMESTAMP: that entry's)."""
    return ids.child_id(origin, timestamp, "learning", origin, *([str(ordinal)] if ordinal else []))


def derive_ids(found: list[Learning]) -> None:
    """Give each learning without an id its derived one: from its origin, else from its section and text.

    Learnings of one file with the same origin (or text) are told apart by their order.
    """
    seen: dict[tuple[str, ...], int] = {}
    for learning in found:
        if learning.id:
            continue
        key = ("origin", learning.origin) if learning.origin else ("text", learning.category, learning.normalised())
        seen[key] = ordinal = seen.get(key, -1) + 1
        if learning.origin:
            learning.id = learning_id(learning.origin, learning.timestamp, ordinal)
        else:
            learning.id = ids.derived_id("", "learning", *key[1:], *([str(ordinal)] if ordinal else []))


def _with_id_line(chunk: str, learning_id: str) -> str:
    """CHUNK with `- **Id:** LEARNING_ID` as its first metadata line (after the content when it has none)."""
    line = f"- **Id:** {learning_id}"
    lines = chunk.split("\n")
    at = next((i for i, text in enumerate(lines) if i and _META_RE.match(text)), None)
    if at is not None:
        return "\n".join([*lines[:at], line, *lines[at:]])
    body = chunk.rstrip("\n")
    return f"{body}\n\n{line}\n" + chunk[len(body) + 1 :]


def _blank_line_after(text: str) -> str:
    """TEXT ending in an empty line, so a heading appended after it starts a new block."""
    if text.endswith("\n\n"):
        return text
    return text + ("\n" if text.endswith("\n") else "\n\n")


def template() -> str:
    return read_template("LEARNINGS.md")


def load(layout: Layout) -> LearningsFile:
    """The parsed LEARNINGS.md; a missing file reads as the empty template."""
    path = layout.learnings
    return LearningsFile.parse(fileio.read_text(path) if path.exists() else template())


def read(layout: Layout, category: str | None = None) -> list[Learning]:
    """Every learning in file order, optionally of one section."""
    layout.require()
    if category is not None:
        category = check_category(category)
    return load(layout).learnings(category)


def select_new(doc: LearningsFile, learnings: list[Learning]) -> list[Learning]:
    """The LEARNINGS not in DOC yet (nor earlier in the list).

    A learning is already there when one with the same id or origin exists (an entry is
    never promoted twice), or one in the same section with the same normalised text.
    """
    existing = doc.learnings()
    known_ids = {item.id for item in existing}
    origins = {item.origin for item in existing if item.origin}
    texts = {(item.category, item.normalised()) for item in existing}
    new: list[Learning] = []
    for learning in learnings:
        key = (learning.category, learning.normalised())
        if (
            (learning.id and learning.id in known_ids)
            or (learning.origin and learning.origin in origins)
            or key in texts
        ):
            continue
        known_ids.add(learning.id)
        origins.add(learning.origin)
        texts.add(key)
        new.append(learning)
    return new


def _redacted(learning: Learning) -> Learning:
    """LEARNING with secrets redacted: nothing reaches a .grid file unredacted."""
    # scrub, not clean: a learning is derived from entries already within their limits.
    learning.title = usertext.scrub(learning.title, one_line=True)
    learning.content = usertext.scrub(learning.content)
    learning.tags = [usertext.scrub(t, one_line=True) for t in learning.tags]
    learning.evidence = [usertext.scrub(e, one_line=True) for e in learning.evidence]
    return learning


def add(layout: Layout, learnings: list[Learning], agent_id: str) -> list[Learning]:
    """Append the LEARNINGS that are not there yet (see select_new); returns those added.

    Memory agents (and gridgit's `system` workflows) only. Added learnings get
    promoted_by/promoted_at filled in, and an id when they have none (derived from their
    origin, else a new one); learnings already in the file get theirs written.
    """
    check_learnings_writer(agent_id)
    layout.require()
    for learning in learnings:
        check_category(learning.category)
    learnings = [_redacted(learning) for learning in learnings]
    with locks.locked(layout.learnings):
        doc = load(layout)
        added = select_new(doc, learnings)
        now = clock.now_iso()
        if added:
            doc.assign_ids()
        for learning in added:
            learning.id = learning.id or (
                learning_id(learning.origin, learning.timestamp) if learning.origin else ids.new_id()
            )
            learning.promoted_by = learning.promoted_by or agent_id
            learning.promoted_at = learning.promoted_at or now
            doc.append(learning)
        if added:
            journal.write(layout, layout.learnings, doc.render())
    return added
