"""What the search indexes: one line per kind of source file (SOURCES), and the documents each holds.

A document is one entry (of a live scratchpad or an archive), one learning, one item of a
memory file (a `###` section, else a list line), one block plan or summary, or one message
between agents. memory/INDEX.md is left out: each of its lines points at an entry, learning or
compressed phase indexed itself.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import NamedTuple

from gridgit.coordination import mailbox
from gridgit.errors import BadInput
from gridgit.memory import compress, files
from gridgit.model import categories
from gridgit.model.learnings import LearningsFile
from gridgit.scratchpad.archive import Archive
from gridgit.scratchpad.citations import cited_files
from gridgit.scratchpad.document import Scratchpad
from gridgit.scratchpad.entry import Entry
from gridgit.store import frontmatter

# An entry's or learning's id wherever a memory file names it (`[01KF...]`, `- **Id:** 01KF...`).
_ID_RE = re.compile(r"\b[0-9A-HJKMNP-TV-Z]{26}\b")


class Doc(NamedTuple):
    """One searchable document; REFS are the ids (of entries, learnings) it is about."""

    kind: str
    phase: str
    number: int | None
    uid: str
    refs: tuple[str, ...]
    category: str
    topic: str
    agents: tuple[str, ...]
    timestamp: str
    relevance: str
    title: str
    tags: tuple[str, ...]
    files: tuple[str, ...]
    body: str


def _entry_doc(kind: str, phase_id: str, entry: Entry) -> Doc:
    return Doc(kind, phase_id, entry.id, entry.uid, (entry.uid,), entry.category, entry.topic,
               (entry.agent_id, *entry.contributors), entry.timestamp, entry.relevance,
               entry.title or entry.topic, tuple(entry.tags), tuple(cited_files(entry.content)), entry.content)  # fmt: skip


def scratchpad_docs(rel: str, text: str) -> list[Doc]:
    pad = Scratchpad.parse(text, f".grid/{rel}")
    return [_entry_doc("entry", pad.phase_id, e) for e in pad.entries]


def archive_docs(rel: str, text: str) -> list[Doc]:
    archived = Archive.parse(text, f".grid/{rel}")
    return [_entry_doc("archived", archived.phase_id, e) for e in archived.entries]


def learning_docs(rel: str, text: str) -> list[Doc]:
    docs = []
    for item in LearningsFile.parse(text).learnings():
        refs = tuple(r for r in (item.id, item.origin) if r)
        category = item.entry_category or categories.CATEGORY_OF.get(item.category, "")
        agents = (item.agent_id,) if item.agent_id else ()
        docs.append(Doc("learning", item.phase_id, item.entry_id, item.id, refs, category, item.topic, agents,
                        item.timestamp or item.promoted_at, "", item.title, tuple(item.tags),
                        tuple(cited_files(item.cited_text())), item.content))  # fmt: skip
    return docs


def memory_docs(rel: str, text: str) -> list[Doc]:
    """Each `###` section of a memory file, and each list line outside one."""
    inside = rel.removeprefix("memory/")
    if inside == files.INDEX:
        return []
    meta: dict[str, object] = {}
    body = text
    if frontmatter.split(text)[0].strip():
        try:
            meta, body = frontmatter.parse(text, f".grid/{rel}")
        except BadInput:
            body = frontmatter.split(text)[1]
    phase = str(meta.get("phase_id") or "") if files.kind(inside) == "compressed" else ""
    topic_category = files.TOPICS.get(inside, ("", ""))[1]
    docs: list[Doc] = []
    chunk: list[str] = []
    category = topic_category

    def flush() -> None:
        if chunk:
            docs.append(_memory_doc(phase, category, chunk[0], "\n".join(chunk)))
            chunk.clear()

    for line in body.split("\n"):
        if line.startswith("## "):
            flush()
            category = topic_category or compress.HEADING_CATEGORY.get(line[3:].strip(), "")
        elif line.startswith("### "):
            flush()
            chunk.append(line)
        elif chunk:
            chunk.append(line)
        elif line.startswith("- "):
            docs.append(_memory_doc(phase, category, line, line))
    flush()
    return docs


def _memory_doc(phase: str, category: str, head: str, text: str) -> Doc:
    refs = tuple(dict.fromkeys(_ID_RE.findall(text)))
    title = compress.UID_LINK_RE.sub("", head.lstrip("#- ")).strip()
    return Doc("memory", phase, None, "", refs, category, "", (), "", "", title, (),
               tuple(cited_files(text)), text)  # fmt: skip


def block_docs(rel: str, text: str) -> list[Doc]:
    """A block's PLAN or SUMMARY (`phases/01-x/02-PLAN.md`): one document, titled by its first heading."""
    _, body = frontmatter.split(text) if text.startswith("---\n") else ("", text)
    parts = rel.split("/")
    heading = next((line.lstrip("# ").strip() for line in body.split("\n") if line.startswith("#")), parts[-1])
    kind = "plan" if rel.endswith("-PLAN.md") else "summary"
    return [Doc(kind, parts[1], int(parts[-1][:2]), "", (), "", "", (), "", "", heading, (),
                tuple(cited_files(body)), body)]  # fmt: skip


def message_docs(rel: str, text: str) -> list[Doc]:
    """A message (`messages/<box>/<id>.md`): one document, by its sender, titled by whom it went to; its id and its
    thread's are its refs."""
    message = mailbox.parse(text, f".grid/{rel}")
    refs = tuple(dict.fromkeys((message.id, message.thread)))
    return [Doc("message", "", None, message.id, refs, "", "", (message.sender,), message.sent_at, "",
                f"{message.sender} to {message.to}", (), tuple(cited_files(message.content)), message.content)]  # fmt: skip


class Source(NamedTuple):
    kind: str
    pattern: str  # which paths inside .grid/ (fnmatch: `*` spans folders too)
    documents: Callable[[str, str], list[Doc]]  # (path inside .grid/, its text) -> its documents


# Everything the search holds; a new kind of file is one line here.
SOURCES: tuple[Source, ...] = (
    Source("entry", "phases/*/scratchpad.md", scratchpad_docs),
    Source("archived", "phases/*/scratchpad_archived.md", archive_docs),
    Source("learning", "LEARNINGS.md", learning_docs),
    Source("memory", "memory/*.md", memory_docs),
    Source("plan", "phases/*/[0-9][0-9]-PLAN.md", block_docs),
    Source("summary", "phases/*/[0-9][0-9]-SUMMARY.md", block_docs),
    Source("message", "messages/*/*.md", message_docs),
)
KINDS = tuple(dict.fromkeys(source.kind for source in SOURCES))
