"""Reads and writes of `.grid/memory/`: a phase's completion, a rebuild from the truth, `compress`,
a memory agent's rewrite of a compressed phase, and `show`.

Every write holds the lock of `.grid/memory` (`.grid/.locks/memory.lock`; after any phase,
STATE, scratchpad and LEARNINGS lock: the memory files are among "the other files" of the
lock order), writes a file only when its
text changed (so a snapshot records what moved), and emits one `memory_updated` event after.

A compressed phase a memory agent rewrote (`written_by` is not gridgit) is kept by a rebuild
while it is valid and the phase still holds the entries it was made from (its `source`);
`compress` replaces it with gridgit's own. Everything else is gridgit's, rebuilt every time.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gridgit.errors import BadInput, NotFound
from gridgit.events import bus
from gridgit.memory import compress, files, index, knowledge, rules, stack
from gridgit.memory.budget import estimate_tokens
from gridgit.memory.index import LEARNINGS_BLOCK, PHASE_BLOCK, Row
from gridgit.model import learnings, state
from gridgit.model.permissions import check_memory_writer
from gridgit.phases import promotion
from gridgit.scratchpad import archive, store
from gridgit.scratchpad.entry import Entry
from gridgit.store import config as config_mod
from gridgit.store import fileio, frontmatter, locks, usertext
from gridgit.store.layout import PHASE_ID_RE, Layout, check_phase_id, default_phase_name

MIN_BUDGET = 100  # tokens of a compressed phase at least: its frontmatter alone is ~80


@dataclass
class MemoryResult:
    """What a memory operation wrote (paths inside .grid/), and the agents' rewrites it kept."""

    written: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    phase_id: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"written": self.written, "kept": self.kept, "phase_id": self.phase_id}


def budget(layout: Layout) -> int:
    """A compressed phase's budget in tokens: config.json `memory.compressed_tokens`."""
    value: int = config_mod.current(layout)["memory"]["compressed_tokens"]
    return value


def require_phase(layout: Layout, phase_id: str) -> str:
    """PHASE_ID when it is well formed (else bad input) and the Blackboard knows it (else NotFound)."""
    check_phase_id(phase_id)
    if layout.phase_dir(phase_id).is_dir():
        return phase_id
    definitions = (state.read(layout).get("phases") or {}).get("definitions") or []
    if any(isinstance(d, dict) and d.get("id") == phase_id for d in definitions):
        return phase_id
    raise NotFound(f"no phase {phase_id}: not in STATE.md and no .grid/phases/{phase_id}/")


def _phase_name(layout: Layout, phase_id: str) -> str:
    found = archive.load(layout, phase_id) or store.load_if_any(layout, phase_id)
    return found.phase_name if found is not None else default_phase_name(phase_id)


def _rel(layout: Layout, phase_id: str) -> str:
    return files.compressed_name(phase_id, layout.phase_ids())


def path_of(layout: Layout, name: str) -> str:
    """A memory file's path inside memory/ from a user's NAME: a file name (see files.resolve) or a phase id."""
    if PHASE_ID_RE.match(name.strip()):
        return _rel(layout, require_phase(layout, name.strip()))
    return files.resolve(name)


def _write(layout: Layout, rel: str, text: str, result: MemoryResult, durable: bool = False) -> None:
    """Replace memory file REL with TEXT when it differs; DURABLE for what only an agent wrote (a derived file
    is made again from the truth, so a power cut may cost it, never a write someone made)."""
    path = layout.memory_dir / rel
    if path.is_file() and not path.is_symlink() and fileio.read_text(path) == text:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    fileio.atomic_write(path, text, durable=durable)
    result.written.append(f"memory/{rel}")


def _read(layout: Layout, rel: str) -> str | None:
    path = layout.memory_dir / rel
    return fileio.read_text(path) if path.is_file() and not path.is_symlink() else None


def _kept_rewrite(text: str | None, rel: str, entries: list[Entry]) -> bool:
    """TEXT is a memory agent's valid rewrite of compressed REL made from these ENTRIES."""
    if text is None:
        return False
    try:
        meta, _ = frontmatter.parse(text, rel)
        valid = not rules.problems(rel, text, rel)
    except BadInput:
        return False
    return valid and meta.get("written_by") != compress.GRIDGIT and meta.get("source") == compress.fingerprint(entries)


def _compress(layout: Layout, phase_id: str, result: MemoryResult, force: bool, tokens: int | None = None) -> str:
    """Write the phase's compressed file (an agent's valid rewrite kept unless FORCE); returns its text."""
    rel = _rel(layout, phase_id)
    entries = promotion.phase_entries(layout, phase_id)
    current = _read(layout, rel)
    if not force and current is not None and _kept_rewrite(current, rel, entries):
        result.kept.append(f"memory/{rel}")
        return current
    text = compress.compress(phase_id, _phase_name(layout, phase_id), entries, tokens or budget(layout))
    _write(layout, rel, text, result)
    return text


def _phase_rows(layout: Layout, phase_id: str) -> list[Row]:
    """The index block of a phase: its compressed file, then each archived entry that matters."""
    rows: list[Row] = []
    rel = _rel(layout, phase_id)
    text = _read(layout, rel)
    if text is not None:
        try:
            meta, _ = frontmatter.parse(text, rel)
            rows.append(index.compressed_row(phase_id, rel, int(meta.get("entries") or 0), int(meta.get("kept") or 0)))
        except (BadInput, ValueError, TypeError):
            pass  # a broken compressed file is validate's to report; the index does without its line
    archived = archive.read(layout, phase_id)
    restated = compress.superseded(archived)
    where = f"phases/{phase_id}/scratchpad_archived.md"
    rows += [index.entry_row(e, where) for e in archived if index.matters(e, restated)]
    return rows


def _all_blocks(layout: Layout) -> dict[str, list[Row]]:
    blocks: dict[str, list[Row]] = {}
    for phase_id in layout.phase_ids():
        rows = _phase_rows(layout, phase_id)
        if rows:
            blocks[PHASE_BLOCK + phase_id] = rows
    return blocks


def _current_blocks(layout: Layout) -> dict[str, list[Row]] | None:
    """INDEX.md's blocks as they are, or None when it is missing or broken (then it is rebuilt whole)."""
    text = _read(layout, files.INDEX)
    if text is None:
        return None
    try:
        return index.parse(text, files.INDEX)
    except BadInput:
        return None


def _derived(layout: Layout, blocks: dict[str, list[Row]], result: MemoryResult) -> None:
    """INDEX.md (with the learnings block made afresh), the topic files and tech-context.md."""
    every = learnings.load(layout).learnings()
    blocks[LEARNINGS_BLOCK] = [index.learning_row(item) for item in knowledge.unique(every)]
    newest = max(layout.phase_ids(), default=None)
    for rel, (section, _) in files.TOPICS.items():
        _write(layout, rel, knowledge.topic_file(section, every, newest), result)
    stack = (state.read(layout).get("persistent") or {}).get("tech_stack")
    _write(layout, files.TECH_CONTEXT, knowledge.tech_context(stack, every, blocks), result)
    _write(layout, files.INDEX, index.render(blocks), result)


def _announce(layout: Layout, result: MemoryResult, agent_id: str) -> MemoryResult:
    if result.written:
        bus.notify(layout, "memory_updated", {"files": result.written, "phase_id": result.phase_id, "agent": agent_id})
    return result


def phase_completed(layout: Layout, phase_id: str, agent_id: str) -> MemoryResult:
    """A phase completed: compress it, and bring INDEX.md, the topic files and tech-context.md up to date.

    Only this phase's block of the index is read afresh from its archive (the others are kept
    as they are), so the cost follows the phase, not the mission. Idempotent.
    """
    result = MemoryResult(phase_id=phase_id)
    stack.refresh(layout, phase_id)  # STATE before the memory lock (the lock order): tech-context.md reads it
    with locks.locked(layout.memory_dir):
        _compress(layout, phase_id, result, force=False)
        blocks = _current_blocks(layout)
        if blocks is None:
            blocks = _all_blocks(layout)
        else:
            blocks[PHASE_BLOCK + phase_id] = _phase_rows(layout, phase_id)
        _derived(layout, blocks, result)
    return _announce(layout, result, agent_id)


def _completed(layout: Layout) -> list[str]:
    st = state.read(layout)
    done = set((st.get("phases") or {}).get("completed") or [])
    done |= {str(d.get("id")) for d in (st.get("phases") or {}).get("definitions") or []
             if isinstance(d, dict) and d.get("status") == "complete"}  # fmt: skip
    return sorted(p for p in done if PHASE_ID_RE.match(p) and layout.phase_dir(p).is_dir())


def rebuild(layout: Layout, agent_id: str) -> MemoryResult:
    """Every memory file from the truth: each completed phase compressed (an agent's valid rewrite
    of the same entries kept), the index read from every archive, the topic files, tech-context."""
    check_memory_writer(agent_id)
    layout.require()
    result = MemoryResult()
    stack.refresh(layout)
    with locks.locked(layout.memory_dir):
        for phase_id in _completed(layout):
            _compress(layout, phase_id, result, force=False)
        _derived(layout, _all_blocks(layout), result)
    return _announce(layout, result, agent_id)


def compress_phase(layout: Layout, phase_id: str, agent_id: str, tokens: int | None = None) -> MemoryResult:
    """`gridgit memory compress PHASE`: gridgit's compression of the phase (replacing an agent's), index updated."""
    check_memory_writer(agent_id)
    layout.require()
    require_phase(layout, phase_id)
    if tokens is not None and tokens < MIN_BUDGET:
        raise BadInput(f"--budget must be {MIN_BUDGET} tokens or more, got {tokens}")
    result = MemoryResult(phase_id=phase_id)
    with locks.locked(layout.memory_dir):
        _compress(layout, phase_id, result, force=True, tokens=tokens)
        blocks = _current_blocks(layout) or _all_blocks(layout)
        blocks[PHASE_BLOCK + phase_id] = _phase_rows(layout, phase_id)
        _derived(layout, blocks, result)
    return _announce(layout, result, agent_id)


def write(layout: Layout, name: str, text: str, agent_id: str) -> MemoryResult:
    """A memory agent's own compressed phase (NAME: `compressed/phase-01.md` or the phase id).

    TEXT is the markdown body (a frontmatter in it is read for its phase_id and dropped: gridgit
    writes its own). Refused unless every list item links to an entry of the phase by uid and
    the file fits the budget (`memory.compressed_tokens`). The other memory files are rebuilt
    from LEARNINGS.md, the archives and STATE: write those instead.
    """
    check_memory_writer(agent_id)
    layout.require()
    rel = path_of(layout, name)
    if files.kind(rel) != "compressed":
        raise BadInput(
            f"memory/{rel} is rebuilt by gridgit from LEARNINGS.md, the archives and STATE.md "
            "(promote or edit learnings, then `gridgit memory rebuild`); memory agents write compressed/phase-NN.md"
        )
    body = usertext.clean(text, "content", "the compressed phase")
    given: dict[str, Any] = {}
    offset = 0  # lines of TEXT before the body, so an error names TEXT's line
    if frontmatter.split(body)[0].strip():
        given, rest = frontmatter.parse(body, f"memory/{rel}")
        offset, body = frontmatter.body_line(body, rest) - 1, rest
    phase_id = _phase_of(layout, rel, given.get("phase_id"))
    if not body.strip():
        raise BadInput(f"memory/{rel}: the compressed phase is empty")
    entries = promotion.phase_entries(layout, phase_id)
    held = {e.uid for e in entries}
    for number, _, item, uids in compress.items(body):
        stray = [uid for uid in uids if uid not in held]
        if stray:
            where = f"memory/{rel} line {number + offset}"
            raise BadInput(f"{where}: {stray[0]} is no entry of phase {phase_id} ({item[:60]!r})")
    tokens = budget(layout)
    meta = {
        "kind": "compressed",
        "phase_id": phase_id,
        "phase_name": _phase_name(layout, phase_id),
        "entries": len(entries),
        "kept": len({uid for _, _, _, uids in compress.items(body) for uid in uids}),
        "left_out": {},
        "budget": tokens,
        "source": compress.fingerprint(entries),
        "written_by": agent_id,
    }
    final = frontmatter.render(meta, body if body.startswith("\n") else "\n" + body)
    found = rules.problems(rel, final, f"memory/{rel}")
    if found:
        line, message = found[0]
        raise BadInput(f"memory/{rel} line {line}: {message}")
    if estimate_tokens(final) > tokens:
        raise BadInput(
            f"memory/{rel} would be {estimate_tokens(final)} tokens; the budget is {tokens} "
            "(config.json memory.compressed_tokens)"
        )
    result = MemoryResult(phase_id=phase_id)
    with locks.locked(layout.memory_dir):
        _write(layout, rel, final, result, durable=True)
        blocks = _current_blocks(layout) or _all_blocks(layout)
        blocks[PHASE_BLOCK + phase_id] = _phase_rows(layout, phase_id)
        _derived(layout, blocks, result)
    return _announce(layout, result, agent_id)


def _phase_of(layout: Layout, rel: str, given: Any) -> str:
    """The phase compressed file REL holds: GIVEN (its frontmatter's phase_id) or the phase its name names."""
    if given is not None:
        phase_id = require_phase(layout, str(given))
        if _rel(layout, phase_id) != rel:
            raise BadInput(f"phase_id {phase_id} belongs in memory/{_rel(layout, phase_id)}, not memory/{rel}")
        return phase_id
    for phase_id in layout.phase_ids():
        if _rel(layout, phase_id) == rel:
            return phase_id
    raise NotFound(f"no phase for memory/{rel}: no phase folder has number {files.compressed_key(rel)}")


def show(layout: Layout, name: str | None = None) -> tuple[str, str]:
    """(path inside .grid/, text) of memory file NAME (default INDEX.md)."""
    layout.require()
    rel = path_of(layout, name) if name else files.INDEX
    text = _read(layout, rel)
    if text is None:
        raise NotFound(
            f"no .grid/memory/{rel} yet: it is written when a phase completes, or by `gridgit memory rebuild`"
        )
    return f"memory/{rel}", text
