"""A phase compressed to a token budget: `memory/compressed/phase-NN.md` (pure functions of entries).

What a later agent needs of a finished phase, in at most BUDGET tokens (default the spec's
500-token "filtered" size): its decisions, gotchas and patterns, the items still open
(blockers, questions and warnings nobody resolved), its handoffs, then, as room allows, its
discoveries and the settled questions with their answers. Heartbeats are dropped, and so is
every superseded entry: one a later entry of its topic, by any agent, says it replaces
(`gridgit write --supersedes ID`). A merged entry keeps every contributor's words on its line.
Each line links to the entry it came from by uid (`[01KF...]`), so the whole entry is one
`gridgit search` or grep of the archive away.

The budget is the whole file's, frontmatter included: what an agent reading it pays. When
the kept entries do not fit, the most valuable go first (by group above, then relevance,
then the newest); what is left out is counted in the frontmatter. The same entries and budget
always give the same text: nothing here reads the clock.

    ---
    kind: compressed
    phase_id: 01-foundation
    phase_name: Foundation
    entries: 15                       # every entry of the phase
    kept: 9                           # lines below
    left_out: {heartbeat: 3, superseded: 1, budget: 2}
    budget: 500
    source: 3f1c0a9b2e7d4c68          # fingerprint of the phase's entries (their uids)
    written_by: gridgit               # or the memory agent that rewrote it
    ---

    # Phase 01-foundation - Foundation (compressed)

    ## Decisions

    - auth: Use signed cookies, not JWT (executor-001; files: src/auth.py) [01KFR6JVJ0KYS4J4C0WE0J0MHM]
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from typing import Any

from gridgit.memory.budget import estimate_tokens
from gridgit.scratchpad.citations import cited_files
from gridgit.scratchpad.entry import Entry, clip, headline, relevance_rank
from gridgit.scratchpad.merge import contributions
from gridgit.store import frontmatter

GRIDGIT = "gridgit"  # written_by of the files gridgit writes itself
OPEN_CATEGORIES = ("blocker", "question", "warning")
# (heading, which entries) in the order the budget is spent on them.
GROUPS: tuple[tuple[str, str], ...] = (
    ("Decisions", "decision"),
    ("Gotchas", "gotcha"),
    ("Patterns", "pattern"),
    ("Open items", "open"),
    ("Handoffs", "handoff"),
    ("Discoveries", "discovery"),
    ("Settled", "settled"),
)
HEADING_CATEGORY = {"Decisions": "decision", "Gotchas": "gotcha", "Patterns": "pattern",
                    "Handoffs": "handoff", "Discoveries": "discovery"}  # fmt: skip
LINE_CHARS = 160  # one entry's text on its line: a compressed phase is many short lines
UID_LINK_RE = re.compile(r"\[([0-9A-HJKMNP-TV-Z]{26})\]")


def group_of(entry: Entry) -> str | None:
    """The group ENTRY is compressed into, or None for a heartbeat."""
    if entry.category == "heartbeat":
        return None
    if entry.category in OPEN_CATEGORIES:
        return "settled" if entry.resolved else "open"
    return entry.category


def superseded(entries: list[Entry]) -> set[str]:
    """Uids of ENTRIES (in time order) that a later entry of the same topic says it supersedes."""
    seen: dict[str, Entry] = {}
    replaced: set[str] = set()
    for entry in entries:
        earlier = seen.get(entry.supersedes) if entry.supersedes else None
        if earlier is not None and earlier.topic == entry.topic:
            replaced.add(earlier.uid)
        seen[entry.uid] = entry
    return replaced


def fingerprint(entries: Iterable[Entry]) -> str:
    """What a compressed file was made from: the phase's entries, by uid (a rewrite stays valid while they do)."""
    return hashlib.sha256("\n".join(e.uid for e in entries).encode("utf-8")).hexdigest()[:16]


def said(entry: Entry) -> str:
    """What ENTRY says in a line: the first line of each contributor's words, the author's first."""
    parts = contributions(entry)
    share = max(LINE_CHARS // len(parts), 40)
    first = headline(parts[0][1]) or entry.title or entry.topic
    texts = [clip(" ".join(first.split()), share)]
    texts += [f"{agent}: {clip(' '.join(headline(words).split()), share)}" for agent, words in parts[1:]]
    return "; ".join(texts)


def line(entry: Entry) -> str:
    """One entry as a line: topic, what it says (and a question's answer), who, the files it cites, its uid."""
    text = said(entry)
    if entry.category in OPEN_CATEGORIES:
        text = f"{entry.category}: {text}"
    resolution = entry.resolution
    if resolution is not None and (resolution.answer or resolution.note):
        text += f" -> {clip(resolution.answer or resolution.note, LINE_CHARS)}"
    about = entry.agent_id
    files = cited_files(entry.content)
    if files:
        about += "; files: " + ", ".join(files[:3]) + (" ..." if len(files) > 3 else "")
    return f"- {entry.topic}: {' '.join(text.split())} ({about}) [{entry.uid}]"


def _priority(entry: Entry, group: str, position: int) -> tuple[int, int, int]:
    order = [g for _, g in GROUPS].index(group)
    return (order, -relevance_rank(entry.relevance), -position)


def compress(phase_id: str, phase_name: str, entries: list[Entry], budget: int, written_by: str = GRIDGIT) -> str:
    """The compressed file of a phase whose ENTRIES (archive then scratchpad, in time order) are given."""
    dropped: dict[str, int] = {"heartbeat": 0, "superseded": 0, "budget": 0}
    restated = superseded(entries)
    candidates: list[tuple[tuple[int, int, int], int, str, Entry]] = []
    for position, entry in enumerate(entries):
        group = group_of(entry)
        if group is None:
            dropped["heartbeat"] += 1
        elif entry.uid in restated:
            dropped["superseded"] += 1
        else:
            candidates.append((_priority(entry, group, position), position, group, entry))
    chosen: dict[str, list[tuple[int, str]]] = {}
    added: list[str] = []  # groups in the order lines were added: the last is the first to go
    used = estimate_tokens(_render(_meta(phase_id, phase_name, entries, budget, written_by, 0, dropped), chosen))
    for _, position, group, entry in sorted(candidates, key=lambda c: c[0]):
        text = line(entry)
        heading = 0 if group in chosen else estimate_tokens(f"\n## {_heading(group)}\n\n")
        cost = estimate_tokens(text + "\n") + heading
        if used + cost > budget:
            dropped["budget"] += 1
            continue
        chosen.setdefault(group, []).append((position, text))
        added.append(group)
        used += cost
    while True:  # the estimate above is per line; the whole file (its counts too) is what must fit
        kept = len(added)
        text = _render(_meta(phase_id, phase_name, entries, budget, written_by, kept, dropped), chosen)
        if estimate_tokens(text) <= budget or not added:
            return text
        group = added.pop()
        chosen[group].pop()
        if not chosen[group]:
            del chosen[group]
        dropped["budget"] += 1


def _heading(group: str) -> str:
    return next(heading for heading, g in GROUPS if g == group)


def _meta(
    phase_id: str, phase_name: str, entries: list[Entry], budget: int, written_by: str, kept: int,
    dropped: dict[str, int],
) -> dict[str, Any]:  # fmt: skip
    return {
        "kind": "compressed",
        "phase_id": phase_id,
        "phase_name": phase_name,
        "entries": len(entries),
        "kept": kept,
        "left_out": dict(dropped),
        "budget": budget,
        "source": fingerprint(entries),
        "written_by": written_by,
    }


def title(phase_id: str, phase_name: str) -> str:
    return f"# Phase {phase_id} - {phase_name} (compressed)\n"


def _render(meta: dict[str, Any], chosen: dict[str, list[tuple[int, str]]]) -> str:
    parts = ["\n", title(meta["phase_id"], meta["phase_name"])]
    for heading, group in GROUPS:
        if group in chosen:
            parts.append(f"\n## {heading}\n\n" + "".join(text + "\n" for _, text in sorted(chosen[group])))
    if not chosen:
        parts.append("\nNothing to keep: the phase's entries were heartbeats or restated later.\n")
    return frontmatter.render(meta, "".join(parts))


def items(body: str) -> list[tuple[int, str, str, list[str]]]:
    """(line number in BODY, category from its section, text, linked uids) of every list item of a compressed body."""
    found = []
    category = ""
    for number, text in enumerate(body.split("\n"), start=1):
        if text.startswith("## "):
            category = HEADING_CATEGORY.get(text[3:].strip(), "")
        elif text.startswith("- "):
            found.append((number, category, text[2:], UID_LINK_RE.findall(text)))
    return found
