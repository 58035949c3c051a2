"""Debug sessions (spec section 5): `.grid/debug/<session_id>/investigation.md`.

An investigation has a hypothesis, what was tried and the result, each a section of notes
(`- [time] agent: text`) under a small frontmatter (title, status, who opened it, phase,
times). Closing it with its root cause writes that cause as a gotcha entry in the current
phase's scratchpad (HIGH: once other agents confirm it, phase completion promotes it to
LEARNINGS.md), its evidence the files given and the investigation itself: the next agent meets
the trap before falling in.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Any

from gridgit.errors import BadInput, NotFound
from gridgit.events import bus
from gridgit.model import state
from gridgit.store import clock, fileio, frontmatter, journal, locks, usertext
from gridgit.store.layout import PHASE_ID_RE, Layout
from gridgit.store.lazyre import lazy
from gridgit.work.blockfile import is_time, schema_problems
from gridgit.work.blocks import check_worker

SESSION_RE = lazy(r"^\d{8}-[a-z0-9][a-z0-9-]{0,40}-[0-9a-f]{4}$")
SECTIONS = ("hypothesis", "tried", "result")
STATUSES = ("open", "closed")
_HEADING_RE = lazy(r"^## (Hypothesis|Tried|Result)[ \t]*$", re.MULTILINE)


_optional_str = lambda v: v is None or isinstance(v, str)  # noqa: E731
SCHEMA: dict[str, tuple[Any, str]] = {
    "session_id": (lambda v: isinstance(v, str) and bool(SESSION_RE.match(v)), "a session id YYYYMMDD-slug-hhhh"),
    "title": (lambda v: isinstance(v, str) and bool(v), "a title"),
    "status": (lambda v: v in STATUSES, "open or closed"),
    "agent": (lambda v: isinstance(v, str), "an agent id"),
    "phase_id": (lambda v: v is None or (isinstance(v, str) and bool(PHASE_ID_RE.match(v))), "a phase id or null"),
    "opened_at": (is_time, "an ISO 8601 time"),
    "closed_at": (lambda v: v is None or is_time(v), "an ISO 8601 time or null"),
    "closed_by": (_optional_str, "an agent id or null"),
    "root_cause": (_optional_str, "a text or null"),
    "gotcha": (_optional_str, "an entry reference or null"),
}


def problems(meta: dict[str, Any], folder: str) -> list[tuple[str, str]]:
    found = schema_problems(meta, SCHEMA, ("session_id", "title", "status", "agent", "opened_at"))
    if isinstance(meta.get("session_id"), str) and meta["session_id"] != folder:
        found.append(("session_id", f"session_id {meta['session_id']!r} does not match its folder {folder!r}"))
    return found


@dataclass
class Investigation:
    meta: dict[str, Any]
    body: str

    @property
    def session_id(self) -> str:
        return str(self.meta["session_id"])

    def section(self, name: str) -> str:
        """The text of section NAME (hypothesis, tried, result)."""
        parts = _HEADING_RE.split(self.body)
        for i in range(1, len(parts) - 1, 2):
            if parts[i].lower() == name:
                return parts[i + 1].strip("\n")
        return ""

    def to_dict(self) -> dict[str, Any]:
        return {**self.meta, **{name: self.section(name) for name in SECTIONS}}


def check_session_id(session_id: str) -> str:
    if not isinstance(session_id, str) or not SESSION_RE.match(session_id):
        raise BadInput(
            f"invalid debug session id {session_id[:60]!r}: expected YYYYMMDD-slug-hhhh (`gridgit debug list`)"
        )
    return session_id


def _path(layout: Layout, session_id: str) -> Any:
    return layout.grid / "debug" / check_session_id(session_id) / "investigation.md"


def read(layout: Layout, session_id: str) -> Investigation:
    path = _path(layout, session_id)
    if not path.exists():
        raise NotFound(f"no debug session {session_id} (`gridgit debug list`)")
    meta, body = frontmatter.parse(fileio.read_text(path), str(path))
    found = problems(meta, session_id)
    if found:
        raise BadInput(f"{path}: {found[0][1]}")
    return Investigation(meta, body)


def _slug(title: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")[:40].strip("-")
    return slug or "session"


def _note_line(agent: str, text: str) -> str:
    return f"- [{clock.now_iso()}] {agent}: {text}"


def _render(meta: dict[str, Any], sections: dict[str, list[str]]) -> str:
    parts = [f"\n# Debug: {meta['title']}\n"]
    for name in SECTIONS:
        lines = sections.get(name) or ["(nothing yet)"]
        parts.append(f"## {name.capitalize()}\n\n" + "\n".join(lines) + "\n")
    return frontmatter.render(meta, "\n".join(parts))


def _notes(inv: Investigation) -> dict[str, list[str]]:
    return {name: [line for line in inv.section(name).split("\n") if line and line != "(nothing yet)"]
            for name in SECTIONS}  # fmt: skip


def start(layout: Layout, agent: str, title: str, hypothesis: str | None = None) -> Investigation:
    """Open a debug session titled TITLE (a first HYPOTHESIS optional); its id is YYYYMMDD-slug-hhhh."""
    check_worker(agent)
    name = usertext.clean_name(title, "a debug session's title")
    if not name:
        raise BadInput("a debug session needs a title")
    first = usertext.clean(hypothesis.strip(), "note", "a hypothesis") if hypothesis and hypothesis.strip() else None
    layout.require()
    now = clock.now_iso()
    session_id = f"{now[:10].replace('-', '')}-{_slug(name)}-{os.urandom(2).hex()}"
    meta = {"session_id": session_id, "title": name, "status": "open", "agent": agent,
            "phase_id": state.current_phase(state.read(layout)), "opened_at": now, "closed_at": None,
            "closed_by": None, "root_cause": None, "gotcha": None}  # fmt: skip
    path = _path(layout, session_id)
    path.parent.mkdir(parents=True, exist_ok=True)
    with locks.locked(path):
        journal.write(layout, path, _render(meta, {"hypothesis": [_note_line(agent, first)] if first else []}))
    bus.notify(layout, "debug_started", {"session_id": session_id, "title": name, "agent": agent})
    return read(layout, session_id)


def note(layout: Layout, session_id: str, agent: str, text: str, section: str = "tried") -> Investigation:
    """Add a note to SECTION (hypothesis, tried or result) of an open session."""
    check_worker(agent)
    if section not in SECTIONS:
        raise BadInput(f"unknown section {section!r} (one of: {', '.join(SECTIONS)})")
    said = usertext.clean((text or "").strip(), "note", "a debug note")
    if not said:
        raise BadInput("the note is empty")
    layout.require()
    path = _path(layout, session_id)
    read(layout, session_id)  # a session that does not exist gets no folder for its lock
    with locks.locked(path):
        inv = read(layout, session_id)
        if inv.meta["status"] == "closed":
            raise BadInput(f"debug session {session_id} is closed")
        notes = _notes(inv)
        notes[section].append(_note_line(agent, said.replace("\n", "\n  ")))
        journal.write(layout, path, _render(inv.meta, notes))
    bus.notify(layout, "debug_noted", {"session_id": session_id, "section": section, "agent": agent})
    return read(layout, session_id)


def gotcha_content(inv: Investigation, root_cause: str, fix: str | None, evidence: list[str]) -> str:
    """The gotcha a closed session leaves: the cause, how it showed, the fix, and where the evidence is."""
    tried = [line for line in _notes(inv)["tried"]][-3:]
    lines = [
        f"Gotcha: {root_cause}",
        f"First Hit: debug session {inv.session_id} ({inv.meta['title']})",
        f"Fix: {fix or 'see the investigation'}",
        "",
        "Evidence:",
        *[f"- File: {path}" for path in evidence],
        f"- Debug session: .grid/debug/{inv.session_id}/investigation.md",
    ]
    if tried:
        lines += ["", "Tried:", *tried]
    return "\n".join(lines)


def close(
    layout: Layout,
    session_id: str,
    agent: str,
    root_cause: str,
    fix: str | None = None,
    evidence: list[str] | None = None,
) -> tuple[Investigation, Any]:
    """Close a session with its ROOT_CAUSE, written first as a gotcha entry of the current phase; (session, entry)."""
    from gridgit.coordination.claims import normalise_pattern
    from gridgit.scratchpad import store

    check_worker(agent)
    cause = usertext.clean((root_cause or "").strip(), "note", "a root cause")
    if not cause:
        raise BadInput("--root-cause is empty: say what caused it")
    fix_text = usertext.clean(fix.strip(), "note", "a fix") if fix and fix.strip() else None
    files = [normalise_pattern(layout, p) for p in evidence or []]
    inv = read(layout, session_id)
    if inv.meta["status"] == "closed":
        raise BadInput(f"debug session {session_id} is already closed (gotcha {inv.meta.get('gotcha')})")
    phase = state.resolve_phase(layout, None)
    topic = _slug(str(inv.meta["title"]))
    entry = store.write_entry(layout, phase, agent, "gotcha", topic, gotcha_content(inv, cause, fix_text, files),
                              ["debug", topic], relevance="HIGH", title=str(inv.meta["title"])[:200])  # fmt: skip
    path = _path(layout, session_id)
    with locks.locked(path):
        inv = read(layout, session_id)
        notes = _notes(inv)
        reference = f"{phase}#{entry.id} ({entry.uid})"
        notes["result"].append(_note_line(agent, f"root cause: {cause}" + (f"; fix: {fix_text}" if fix_text else "")))
        notes["result"].append(f"- gotcha written: {reference}")
        meta = {**inv.meta, "status": "closed", "closed_at": clock.now_iso(), "closed_by": agent,
                "root_cause": cause, "gotcha": reference}  # fmt: skip
        journal.write(layout, path, _render(meta, notes))
    payload = {
        "session_id": session_id,
        "title": meta["title"],
        "phase_id": phase,
        "entry_id": entry.id,
        "agent": agent,
    }
    bus.notify(layout, "debug_closed", payload)
    return read(layout, session_id), entry


def sessions(layout: Layout, status: str | None = None) -> list[dict[str, Any]]:
    """Every debug session's frontmatter (of STATUS, when given), newest first; a broken one says so."""
    folder = layout.require().grid / "debug"
    if not folder.is_dir():
        return []
    found = []
    for name in (p.name for p in folder.iterdir() if SESSION_RE.match(p.name)):
        try:
            meta = read(layout, name).meta
        except (BadInput, NotFound) as exc:
            meta = {"session_id": name, "status": "broken", "title": str(exc), "opened_at": ""}
        if status is None or meta.get("status") == status:
            found.append(meta)
    return sorted(found, key=lambda m: (str(m.get("opened_at")), m["session_id"]), reverse=True)
