"""The scratchpad on disk: create, load, locked append of an entry, indexed reads."""

from __future__ import annotations

from pathlib import Path

from gridgit import clock, events, storage
from gridgit.errors import NotInitialised
from gridgit.layout import Layout
from gridgit.scratchpad import entry as entry_mod
from gridgit.scratchpad.document import Scratchpad
from gridgit.scratchpad.entry import Entry
from gridgit.scratchpad.index import DEFAULT_MAX_ENTRIES


def default_phase_name(phase_id: str) -> str:
    return phase_id.split("-", 1)[1].replace("-", " ").title()


def create(
    layout: Layout, phase_id: str, phase_name: str | None = None, max_entries: int = DEFAULT_MAX_ENTRIES
) -> bool:
    """Create the phase directory and an empty scratchpad; False when it already exists."""
    path = layout.scratchpad(phase_id)
    path.parent.mkdir(parents=True, exist_ok=True)
    with storage.locked(path):
        if path.exists():
            return False
        pad = Scratchpad.new(phase_id, phase_name or default_phase_name(phase_id), clock.now_iso(), max_entries)
        storage.atomic_write(path, pad.render())
    return True


def load_path(path: Path) -> Scratchpad:
    return Scratchpad.parse(storage.read_text(path), str(path))


def load(layout: Layout, phase_id: str) -> Scratchpad:
    path = layout.scratchpad(phase_id)
    if not path.exists():
        raise NotInitialised(f"phase {phase_id} has no scratchpad: run `gridgit phase start {phase_id}`")
    return load_path(path)


def write_entry(
    layout: Layout,
    phase_id: str,
    agent_id: str,
    category: str,
    topic: str,
    content: str,
    tags: list[str],
    relevance: str,
    block_id: str,
) -> Entry:
    """Append one entry under the scratchpad lock, index rebuilt; emits `entry_written`."""
    path = layout.scratchpad(phase_id)
    new = Entry(
        id=0,
        timestamp="",
        agent_id=entry_mod.check_agent_id(agent_id),
        category=entry_mod.check_category(category),
        topic=entry_mod.normalise_topic(topic),
        tags=entry_mod.check_tags(tags),
        relevance=entry_mod.check_relevance(relevance),
        block_id=block_id,
        content=entry_mod.check_content(content),
    )
    if not path.exists():
        create(layout, phase_id)
    with storage.locked(path):
        pad = load_path(path)
        new.id = pad.next_id()
        new.timestamp = clock.now_iso()
        pad.entries.append(new)
        pad.meta["last_updated"] = new.timestamp
        storage.atomic_write(path, pad.render())
    events.emit(
        layout,
        "entry_written",
        {
            "phase_id": phase_id,
            "entry_id": new.id,
            "topic": new.topic,
            "relevance": new.relevance,
            "agent": new.agent_id,
            "category": new.category,
        },
    )
    return new
