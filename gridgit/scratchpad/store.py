"""The scratchpad on disk: create, the one locked write path, modify, reindex.

Every change has the same shape: validate, take the scratchpad lock, parse once, change the
value in memory, render once (index rebuilt from the body), one atomic write, release, then
emit events (the events lock is a leaf of the lock order).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

from gridgit.errors import BadInput, GridError, NotFound
from gridgit.events import bus
from gridgit.model import permissions
from gridgit.scratchpad import categories, index, merge
from gridgit.scratchpad import entry as entry_mod
from gridgit.scratchpad.document import HEADER, Scratchpad
from gridgit.scratchpad.entry import Entry, relevance_rank
from gridgit.store import clock, fileio, frontmatter, ids, journal, locks, notices, usertext
from gridgit.store import config as config_mod
from gridgit.store.layout import Layout, check_phase_id, default_phase_name
from gridgit.store.record import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def create(layout: Layout, phase_id: str, phase_name: str | None = None) -> bool:
    """Create the phase directory and an empty scratchpad (config `scratchpad.max_entries`); False when it exists."""
    path = layout.scratchpad(phase_id)
    max_entries = int(config_mod.value(layout, "scratchpad.max_entries"))
    fileio.make_folder(path.parent)
    with locks.locked(path):
        if path.exists():
            return False
        name = usertext.clean_name(phase_name) or default_phase_name(phase_id)
        pad = Scratchpad.new(phase_id, name, clock.now_iso(), max_entries)
        journal.write(layout, path, pad.render())
    return True


def load_path(path: Path) -> Scratchpad:
    return Scratchpad.parse(fileio.read_text(path), str(path))


def existing_path(layout: Layout, phase_id: str) -> Path:
    """The scratchpad of PHASE_ID; NotFound when the phase has none."""
    layout.require()
    path = layout.scratchpad(phase_id)
    if not path.exists() and not path.is_symlink():
        raise NotFound(f"phase {phase_id} has no scratchpad: run `gridgit phase start {phase_id}`")
    return path


def load(layout: Layout, phase_id: str) -> Scratchpad:
    return load_path(existing_path(layout, phase_id))


def load_if_any(layout: Layout, phase_id: str) -> Scratchpad | None:
    """The phase's scratchpad, or None when the phase has none (a symlink is refused, not skipped)."""
    path = layout.scratchpad(phase_id)
    return load_path(path) if path.exists() or path.is_symlink() else None


@contextlib.contextmanager
def modify(layout: Layout, phase_id: str) -> Iterator[Scratchpad]:
    """Yield the parsed scratchpad under its lock; write it back (index rebuilt) if it changed.

    An exception inside the block leaves the file untouched.
    """
    path = existing_path(layout, phase_id)
    with locks.locked(path):
        pad = load_path(path)
        before = pad.render()
        yield pad
        after = pad.render()
        if after != before:
            journal.write(layout, path, after)


def reindex(layout: Layout, phase_id: str) -> bool:
    """Rebuild the index from the body, with config.json's `scratchpad.max_entries`; True when the file changed.

    The body is kept byte for byte (a hand edit is indexed, not reformatted); a body that
    does not parse raises BadInput naming the file and line, and nothing is written.
    """
    path = existing_path(layout, phase_id)
    limit = int(config_mod.value(layout, "scratchpad.max_entries"))  # a changed setting reaches the phase
    with locks.locked(path):
        text = fileio.read_text(path)
        pad = Scratchpad.parse(text, str(path))
        rebuilt = index.rebuild(pad.entries, limit)
        if pad.meta.get("index") == rebuilt:
            return False
        meta = dict(pad.meta)
        meta["index"] = rebuilt
        fileio.atomic_write(path, frontmatter.render(meta, frontmatter.split(text)[1], HEADER))
    bus.notify(layout, "scratchpad_reindexed", {"phase_id": phase_id})
    return True


class _Settings:
    """Config values the write path needs, loaded only when a write needs one (a file read)."""

    def __init__(self, layout: Layout, loaded: dict[str, Any] | None = None) -> None:
        self.layout = layout
        self.loaded = loaded

    def get(self, dotted: str) -> int:
        if self.loaded is None:
            self.loaded = config_mod.current(self.layout)
        return int(config_mod.get(self.loaded, dotted))

    def flag(self, dotted: str) -> bool:
        return self.get(dotted) != 0


class WriteOutcome(Record):
    """What one write did to the scratchpad, for the events it owes (see emit_write)."""

    FIELDS = ("entry", "merged_from", "archived", "subscribers")
    __slots__ = FIELDS

    def __init__(
        self, entry: Entry, merged_from: str | None = None, archived: int = 0, subscribers: list[str] | None = None
    ) -> None:
        self.entry = entry
        self.merged_from = merged_from
        self.archived = archived
        self.subscribers = subscribers if subscribers is not None else []


def _ensure_scratchpad(layout: Layout, phase_id: str) -> Path:
    """The scratchpad to write to; a phase that STATE defines gets one on its first write."""
    layout.require()
    path = layout.scratchpad(phase_id)
    if path.exists() or path.is_symlink():
        return path
    from gridgit.model import state  # only on a phase's first write: STATE is read for its name

    current = state.read(layout)
    names = {d.get("id"): d.get("name") for d in current.get("phases", {}).get("definitions", [])}
    if phase_id not in names:  # STATE's position alone (a hand edit) makes no phase: only `phase start` does
        if state.current_phase(current) == phase_id:
            state.check_position(current)
        raise NotFound(f"phase {phase_id} does not exist: `gridgit phase start {phase_id} --agent mc` starts it")
    create(layout, phase_id, names.get(phase_id))
    return path


def _auto_archive(layout: Layout, pad: Scratchpad, settings: _Settings, now: str, new: Entry) -> int:
    """Spec 7.2, keeping open work in sight: when one more settled entry would exceed max_entries,
    archive the settled ones but the newest keep_recent, heartbeats first.

    Open entries (unresolved blockers, questions, warnings, handoffs not taken) stay live and
    count toward neither the limit nor the archive (DESIGN.md invariant 7).
    """
    settled = [e for e in pad.entries if not e.is_open]
    if len(settled) + (0 if new.is_open else 1) <= pad.max_entries:
        return 0
    keep = max(0, min(settings.get("scratchpad.keep_recent"), pad.max_entries - 1))
    # Heartbeats are noise to everyone but the staleness check, which reads the archive too.
    oldest_first = sorted(settled, key=lambda e: e.category != "heartbeat")
    chosen = {id(e) for e in oldest_first[: max(0, len(settled) - keep)]}
    moved = [e for e in pad.entries if id(e) in chosen]
    if not moved:
        return 0
    from gridgit.scratchpad import archive  # only when the scratchpad is full

    # The archive is written first: a crash in between duplicates entries, never loses them.
    archive.append(layout, pad.phase_id, pad.phase_name, moved)
    pad.entries = [e for e in pad.entries if id(e) not in chosen]
    pad.renumber()
    pad.record_archive(len(moved), now)
    return len(moved)


def subscription_matches(subscription: dict[str, Any], topic: str, relevance: str) -> bool:
    """Whether an entry of TOPIC and RELEVANCE is what SUBSCRIPTION asks for (its topics or `*`, its minimum)."""
    topics = subscription.get("topics") or []
    topics = [topics] if isinstance(topics, str) else topics  # a hand edit may write `topics: auth`
    minimum = str(subscription.get("relevance_min") or "LOW").upper()
    return ("*" in topics or topic in topics) and relevance_rank(relevance) >= relevance_rank(minimum)


def subscribers(pad: Scratchpad, entry: Entry, writer: str) -> list[str]:
    """Agents whose subscription in PAD matches ENTRY's topic and relevance (the writer aside)."""
    found = []
    for sub in pad.meta.get("subscriptions") or []:
        if not isinstance(sub, dict) or not sub.get("agent_id") or sub.get("agent_id") == writer:
            continue
        if subscription_matches(sub, entry.topic, entry.relevance):
            found.append(str(sub["agent_id"]))
    return list(dict.fromkeys(found))


def build_entry(
    agent_id: str,
    category: str,
    topic: str,
    content: str,
    tags: list[str],
    relevance: str | None = None,
    block_id: str = "",
    title: str | None = None,
) -> Entry:
    """A validated, redacted entry (id and timestamp not yet assigned): bad input raises here."""
    category = entry_mod.check_category(category)
    topic = entry_mod.normalise_topic(topic)
    clean_tags = entry_mod.check_tags([usertext.clean(t, "tag", one_line=True) for t in tags])
    if relevance:
        relevance = entry_mod.check_relevance(relevance)
    block = entry_mod.check_block(block_id)
    title = entry_mod.check_one_line("title", (title or "").strip())
    return Entry(
        id=0,
        timestamp="",
        agent_id=permissions.check_agent_id(agent_id),
        category=category,
        topic=topic,
        tags=clean_tags,
        relevance=relevance or entry_mod.determine_relevance(category, clean_tags),
        block_id=usertext.clean(block, "block"),
        content=usertext.clean(content, "content"),
        title=usertext.clean(title, "title") or entry_mod.default_title(topic),
    )


def write_entry(
    layout: Layout,
    phase_id: str,
    agent_id: str,
    category: str,
    topic: str,
    content: str,
    tags: list[str],
    relevance: str | None = None,
    block_id: str = "",
    check_permission: bool = True,
    title: str | None = None,
    config: dict[str, Any] | None = None,
    scope: str = "phase",
    supersedes: str = "",
    affects_phases: list[str] | None = None,
) -> Entry:
    """The one write path: append an entry (or merge it into a recent one); returns it.

    RELEVANCE defaults to spec 4.2's determine_relevance; secrets are redacted first. When
    the scratchpad is full its oldest settled entries move to the archive in the same lock.
    Emits `entry_written` (or `entry_merged`), `handoff_posted` for handoffs, and
    `scratchpad_archived` after an auto-archive. A blocker, or a decision of SCOPE mission
    (tagged architectural), is added to STATE too (gridgit.scratchpad.state_links). CONFIG
    is an already loaded config.json. SUPERSEDES names an earlier entry of the phase and topic
    that this one replaces (its number or stable id; a compressed phase leaves it out); such a
    write is never merged. AFFECTS_PHASES are the phases STATE defines that a decision bears
    on (default: its own; one beyond it takes the decision to STATE as a mission scope does).
    """
    check_phase_id(phase_id)
    if check_permission:
        permissions.check_scratchpad_writer(permissions.check_agent_id(agent_id))
    tags = entry_mod.scoped_tags(category, tags, scope)
    new = build_entry(agent_id, category, topic, content, tags, relevance, block_id, title)
    if affects_phases:
        new.affects_phases = _affected(layout, new, affects_phases)
    settings = _Settings(layout, config)
    missing = categories.missing_fields(new.category, new.content)
    if missing and settings.flag("entries.strict"):
        raise BadInput(
            f"a {new.category} entry needs {', '.join(missing)} (entries.strict is on; "
            f"`gridgit write --template {new.category}` shows the spec's template)"
        )
    path = _ensure_scratchpad(layout, phase_id)
    with locks.locked(path):
        pad = load_path(path)
        now = clock.now_iso()
        outcome = WriteOutcome(new)
        if supersedes:
            new.supersedes = _superseded(layout, pad, new, supersedes)
        target = merge.find_target(pad.entries, new, now, lambda: settings.get("scratchpad.merge_window_minutes"))
        if target is not None:
            merge.merge_into(target, new)
            outcome = WriteOutcome(target, merged_from=new.agent_id)
        else:
            outcome.archived = _auto_archive(layout, pad, settings, now, new)
            new.id, new.timestamp, new.uid = pad.next_id(), now, ids.new_id()
            pad.entries.append(new)
        pad.meta["last_updated"] = now
        journal.write(layout, path, pad.render(), finish=False)
        outcome.subscribers = subscribers(pad, outcome.entry, new.agent_id)
    # Durable before the write is reported, but outside the lock the next writer waits for.
    fileio.finish_write(path)
    emit_write(layout, phase_id, outcome, new.agent_id)
    if outcome.entry.category in ("blocker", "decision") or "tech" in outcome.entry.tags:  # L2 -> L3 loads for these
        _record_in_state(layout, phase_id, outcome.entry)
    if missing:
        # A warning, not an exception: the spec's table is advice unless entries.strict says otherwise.
        notices.warn(
            "gridgit.scratchpad",
            f"gridgit: warning: {new.category} entry [{outcome.entry.id}] lacks the spec's {', '.join(missing)} "
            f"(see `gridgit write --template {new.category}`)",
        )
    return outcome.entry


def _affected(layout: Layout, new: Entry, phases: list[str]) -> list[str]:
    """PHASES a decision bears on, each a phase STATE defines (or with a folder), in order, once."""
    if new.category != "decision":
        raise BadInput(f"a {new.category} affects no phases: --affects-phases is for decisions")
    from gridgit.model import state

    current = state.read(layout)
    return sorted({state.check_known_phase(layout, p.strip(), current) for p in phases if p.strip()})


def _superseded(layout: Layout, pad: Scratchpad, new: Entry, ref: str) -> str:
    """The uid of the entry REF (a number in PAD, or a stable id there or in its archive) that NEW replaces."""
    ref_phase, number = entry_mod.parse_ref(ref)
    if number is None and not ids.is_id(ref.strip()):
        raise BadInput(f"--supersedes {ref!r}: give the entry's number (5) or its stable id")
    if ref_phase and ref_phase != pad.phase_id:
        raise BadInput(f"--supersedes {ref}: an entry replaces one of its own phase ({pad.phase_id})")
    found = next((e for e in pad.entries if (e.id == number if number is not None else e.uid == ref.strip())), None)
    if found is None and number is None:
        from gridgit.scratchpad import archive

        found = next((e for e in archive.read(layout, pad.phase_id) if e.uid == ref.strip()), None)
    if found is None:
        raise NotFound(f"--supersedes {ref}: phase {pad.phase_id} has no such entry")
    if found.topic != new.topic:
        raise BadInput(
            f"--supersedes {ref}: that entry's topic is {found.topic}, not {new.topic}: one replaces its own topic"
        )
    return found.uid


def _record_in_state(layout: Layout, phase_id: str, entry: Entry) -> None:
    """L2 -> L3 for ENTRY when it reaches STATE; the entry is written already, so a failure is a warning."""
    from gridgit.scratchpad import state_links

    if not state_links.reaches_state(entry, phase_id):
        return
    try:
        state_links.record(layout, phase_id, entry)
    except GridError as exc:
        notices.warn(
            "gridgit.scratchpad", f"gridgit: warning: {entry.category} [{entry.id}] is not in STATE.md ({exc})"
        )


def emit_write(layout: Layout, phase_id: str, outcome: WriteOutcome, writer: str) -> None:
    """The events of one scratchpad write, after its lock is released (events are a leaf)."""
    entry = outcome.entry
    if outcome.archived:
        bus.notify(
            layout,
            "scratchpad_archived",
            {"phase_id": phase_id, "entries_archived": outcome.archived, "kept": entry.id - 1},
        )
    target = handoff_target(entry.block_id) if entry.category == "handoff" else {}
    payload = {
        "phase_id": phase_id,
        "entry_id": entry.id,
        "entry_uid": entry.uid,
        "topic": entry.topic,
        "relevance": entry.relevance,
        "agent": writer,
        "category": entry.category,
        "block": entry.block_id,
        "summary": entry_mod.clip(categories.summary(entry.category, entry.content), SUMMARY_CHARS),
        "subscribers": outcome.subscribers,
        **target,
    }
    if outcome.merged_from:
        bus.notify(layout, "entry_merged", {**payload, "merged_from": outcome.merged_from})
    else:
        bus.notify(layout, "entry_written", payload)
    if entry.category == "handoff":
        bus.notify(
            layout,
            "handoff_posted",
            {
                "from_agent": writer,
                **target,
                "entry_id": entry.id,
                "entry_uid": entry.uid,
                "phase_id": phase_id,
                "topic": entry.topic,
            },
        )


SUMMARY_CHARS = 160


def handoff_target(block_id: str) -> dict[str, str | None]:
    """Where a handoff goes, from its `**Block:**` (spec: `01-02 -> 01-03`).

    {from_block, to_block, to_agent}: the part after `->` is an agent when it is an agent id
    (`01-02 -> executor-003`), else a block; without an arrow the handoff stays in its block.
    """
    source, arrow, target = (part.strip() for part in block_id.partition("->"))
    if not arrow:
        return {"from_block": source or None, "to_block": source or None, "to_agent": None}
    try:
        permissions.agent_type(permissions.check_agent_id(target))
    except BadInput:
        return {"from_block": source or None, "to_block": target or None, "to_agent": None}
    return {"from_block": source or None, "to_block": None, "to_agent": target}
