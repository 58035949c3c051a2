"""`patterns.md`, `gotchas.md`, `decisions.md` and `tech-context.md` (pure functions of learnings).

A topic file holds the learnings of one LEARNINGS.md section across phases, one per origin
(the entry it was promoted from), newest first, each with its evidence and a staleness marker
derived from the Blackboard's own files, so every clone that holds the same files writes the
same text (git's judgement of cited lines, which depends on the checkout, is `gridgit evidence
check --learnings`):

- `superseded? a newer learning cites FILE`: a learning promoted later cites one of its files;
- `unverified: no evidence cited`, `unpinned: its evidence names no commit`, `pinned at HASH`;
- and how old it is: the phases since the one it came from (`written by hand` without one).

tech-context.md lists STATE's `persistent.tech_stack` and, under each of its names and values,
the learnings and archived discoveries whose tags or topic name it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from gridgit.memory.index import LEARNINGS_BLOCK, Row
from gridgit.model import learnings as learnings_mod
from gridgit.model.learnings import Learning
from gridgit.scratchpad.citations import Citation, citations
from gridgit.store import frontmatter

CONTENT_CHARS = 600


def unique(found: Iterable[Learning]) -> list[Learning]:
    """One learning per origin (per id when it has none), the first in file order."""
    seen: set[str] = set()
    kept = []
    for learning in found:
        key = learning.origin or learning.id
        if key not in seen:
            seen.add(key)
            kept.append(learning)
    return kept


def newest_first(found: list[Learning]) -> list[Learning]:
    """By the time of the entry (else of the promotion); later in the file first among equals."""
    return sorted(reversed(found), key=lambda item: item.timestamp or item.promoted_at, reverse=True)


def cited_by(every: list[Learning]) -> dict[str, list[Citation]]:
    """Learning id -> what its Evidence items and content cite."""
    return {item.id: citations(item.cited_text()) for item in every}


def staleness(
    learning: Learning, every: list[Learning], cites: dict[str, list[Citation]], newest_phase: str | None
) -> str:
    """The marker of LEARNING among EVERY learning (CITES: see cited_by; the module docstring says what it means)."""
    cited = cites[learning.id]
    files = {c.path for c in cited}
    when = learning.timestamp or learning.promoted_at
    newer = [
        (other, path)
        for other in every
        if other.id != learning.id and (other.timestamp or other.promoted_at) > when
        for path in sorted(files & {c.path for c in cites[other.id]})
    ]
    if newer:
        other, path = min(newer, key=lambda pair: pair[0].timestamp or pair[0].promoted_at)
        marker = f'superseded? a newer learning cites {path}: "{other.title}" [{other.id}]'
    elif not learning.evidence and not cited:
        marker = "unverified: no evidence cited"
    elif not any(c.commit for c in cited):
        marker = "unpinned: its evidence names no commit"
    else:
        marker = "pinned at " + ", ".join(dict.fromkeys(c.commit for c in cited if c.commit))
    if not learning.phase_id:
        return f"{marker}; written by hand"
    age = int(newest_phase[:2]) - int(learning.phase_id[:2]) if newest_phase else 0
    ago = "the newest phase" if age <= 0 else f"{age} phase{'s' if age > 1 else ''} ago"
    return f"{marker}; from {learning.phase_id}, {ago}"


def _item(learning: Learning, every: list[Learning], cites: dict[str, list[Citation]], newest_phase: str | None) -> str:
    lines = [f"### {' '.join(learning.title.split()) or 'Learning'}", ""]
    content = learning.content.strip()
    if content:
        shown = content if len(content) <= CONTENT_CHARS else content[:CONTENT_CHARS].rstrip() + " …"
        lines += [learnings_mod.escape(shown), ""]
    lines.append(f"- **Id:** {learning.id}")
    if learning.origin:
        lines.append(
            f"- **Origin:** {learning.origin} ({learning.phase_id} [{learning.entry_id or 0}], "
            f"{learning.agent_id or '-'}, {learning.timestamp or '-'})"
        )
    if learning.tags:
        lines.append(f"- **Tags:** {', '.join(learning.tags)}")
    lines.append("- **Evidence:** " + ("; ".join(learning.evidence) or "none"))
    lines.append(f"- **Staleness:** {staleness(learning, every, cites, newest_phase)}")
    return "\n".join(lines) + "\n"


def topic_file(section: str, every: list[Learning], newest_phase: str | None) -> str:
    """The topic file of LEARNINGS.md section SECTION (`gotchas`, ...) among EVERY learning."""
    chosen = newest_first(unique(item for item in every if item.category == section))
    intro = (
        f"\n# {section.capitalize()}\n\nThe `{section}` learnings of LEARNINGS.md across phases, newest first, "
        "one per origin, each with its evidence and a staleness marker. Rebuilt by gridgit "
        "(`gridgit memory rebuild`): promote or edit learnings in LEARNINGS.md, not here. "
        "`gridgit evidence check --learnings` says whether the cited lines changed since.\n"
    )
    cites = cited_by(every)
    body = intro + "".join("\n" + _item(item, every, cites, newest_phase) for item in chosen)
    return frontmatter.render({"kind": section, "learnings": len(chosen)}, body)


def _terms(stack: Any, prefix: str = "") -> list[tuple[str, str]]:
    """(name, value) of each leaf of STATE's tech_stack; nested names joined with dots."""
    if isinstance(stack, dict):
        return [pair for key, value in stack.items() for pair in _terms(value, f"{prefix}{key}.")]
    if isinstance(stack, list):
        return [pair for value in stack for pair in _terms(value, prefix)]
    return [(prefix.rstrip("."), " ".join(str(stack).split()))] if str(stack).strip() else []


def tech_context(stack: Any, every: list[Learning], index: dict[str, list[Row]]) -> str:
    """tech-context.md: the stack, then per name or value the learnings and discoveries tagged with it."""
    pairs = _terms(stack if isinstance(stack, dict) else {})
    terms = list(dict.fromkeys(t.lower() for name, value in pairs for t in (name.rsplit(".", 1)[-1], value) if t))
    rows = [
        row
        for name, block in sorted(index.items())
        if name != LEARNINGS_BLOCK
        for row in block
        if row.kind == "discovery"
    ]
    learned = newest_first(unique(every))
    sections = []
    counted = {"learnings": 0, "discoveries": 0}
    for term in terms:
        lines = [
            f"- learning/{item.category}: {' '.join(item.title.split())} [{item.id}]"
            for item in learned
            if term in {t.lower() for t in item.tags} | {item.topic.lower()}
        ]
        counted["learnings"] += len(lines)
        found = [f"- discovery {row.where}: {row.title} [{row.id}]" for row in rows
                 if term in {t.lower() for t in row.tags} | {row.topic.lower()}]  # fmt: skip
        counted["discoveries"] += len(found)
        if lines or found:
            sections.append(f"\n## {term}\n\n" + "".join(line + "\n" for line in lines + found))
    stack_lines = "".join(f"- {name}: {value}\n" for name, value in pairs) or "None recorded yet.\n"
    body = (
        "\n# Tech context\n\nSTATE's tech stack (`persistent.tech_stack`), and under each of its names and values "
        "the learnings and archived discoveries whose tags or topic name it. Rebuilt by gridgit "
        "(`gridgit memory rebuild`); change the stack with `gridgit state update`.\n"
        f"\n## Stack\n\n{stack_lines}" + "".join(sections)
    )
    meta = {"kind": "tech-context", "stack": len(pairs), **counted}
    return frontmatter.render(meta, body)
