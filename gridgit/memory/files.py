"""The files of `.grid/memory/` (spec 5, File Structure) and the names a user gives them.

memory/INDEX.md             one line per learning, compressed phase and archived entry that matters
memory/patterns.md          the `patterns` learnings across phases, newest first
memory/gotchas.md           the `gotchas` learnings
memory/decisions.md         the `decisions` learnings
memory/tech-context.md      STATE's tech stack, and the learnings and discoveries tagged with it
memory/compressed/phase-NN.md   a completed phase compressed to its token budget
"""

from __future__ import annotations

import re

from gridgit.errors import BadInput

INDEX = "INDEX.md"
TECH_CONTEXT = "tech-context.md"
# File -> the LEARNINGS.md section it gathers, and the entry category of that section.
TOPICS: dict[str, tuple[str, str]] = {
    "patterns.md": ("patterns", "pattern"),
    "gotchas.md": ("gotchas", "gotcha"),
    "decisions.md": ("decisions", "decision"),
}
DERIVED = (INDEX, *TOPICS, TECH_CONTEXT)
COMPRESSED_DIR = "compressed"
# `compressed/phase-01.md`; `compressed/phase-01-core.md` when two phases share a number.
_COMPRESSED_RE = re.compile(r"^compressed/phase-(\d{2}(?:-[a-z0-9][a-z0-9-]{0,60})?)\.md$")


def compressed_name(phase_id: str, phase_ids: list[str]) -> str:
    """The compressed file of PHASE_ID: `compressed/phase-NN.md` by its number, as the spec lays
    it out; a later phase with the number of an earlier one (PHASE_IDS, sorted) gets its whole id."""
    number = phase_id[:2]
    first = next((p for p in sorted(phase_ids) if p[:2] == number), phase_id)
    return f"{COMPRESSED_DIR}/phase-{number if first >= phase_id else phase_id}.md"


def compressed_key(rel: str) -> str | None:
    """`compressed/phase-01.md` -> `01`, `compressed/phase-01-core.md` -> `01-core`; None for other names."""
    match = _COMPRESSED_RE.match(rel)
    return match.group(1) if match else None


def names_phase(rel: str, phase_id: str) -> bool:
    """True when compressed file REL may hold PHASE_ID (its number, or its whole id)."""
    key = compressed_key(rel)
    return key is not None and key in (phase_id[:2], phase_id)


def kind(rel: str) -> str | None:
    """What memory file REL (inside memory/) is: `index`, `topic`, `tech`, `compressed`; None for others."""
    if rel == INDEX:
        return "index"
    if rel in TOPICS:
        return "topic"
    if rel == TECH_CONTEXT:
        return "tech"
    return "compressed" if compressed_key(rel) else None


def resolve(name: str) -> str:
    """A name a user gives (`INDEX`, `gotchas`, `gotchas.md`, `phase-01`, `compressed/phase-01.md`,
    `memory/INDEX.md`) as the file's path inside memory/; anything else is bad input.

    A phase id (`01-foundation`) names its compressed file: see workspace.path_of."""
    text = name.strip()
    text = text[len("memory/") :] if text.startswith("memory/") else text
    candidates = [text, f"{text}.md", f"{COMPRESSED_DIR}/{text}", f"{COMPRESSED_DIR}/{text}.md"]
    if text.upper() in ("INDEX", "INDEX.MD"):
        return INDEX
    for candidate in candidates:
        if kind(candidate) is not None:
            return candidate
    known = ", ".join([*DERIVED, "compressed/phase-NN.md"])
    raise BadInput(f"{name[:80]!r} is not a memory file (one of: {known})")
