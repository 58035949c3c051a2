"""Three-way merges of .grid/ files (pure functions of text): base, ours, theirs -> merged.

- scratchpads and their archives: entries united by uid (gridgit.history.entry_merge).
- STATE.md: field-wise three-way merge; lists united (items with an `id` by id), removals
  kept; scalars changed on both sides: the side with the newer `updated_at` wins.
- LEARNINGS.md: learnings united by id within their sections, each origin (the entry a
  learning was promoted from) once; text written by hand kept as it is.
- event logs (*.jsonl): united by event id, in id (time) order.
- messages (`messages/<box>/<id>.md`): one message's two versions differ only in its acks
  (nothing else changes after it is sent): acks united by agent, the earlier time kept.
- memory/ files, made from the files above: INDEX.md's lines united by id, the others one
  version whole (gridgit.memory.merge).
- claims.json: claims by id (gridgit.coordination.claimfile: a release wins, else the later renewal),
  in their total order; `clones/<id>.json`, one clone's own file: edits united by event id, each
  agent's latest sign of work (gridgit.coordination.presence).

A pair of versions that needs a human raises CannotMerge.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import PurePosixPath
from typing import Any

from gridgit.errors import BadInput
from gridgit.history.entry_merge import merge_archive, merge_scratchpad
from gridgit.history.textmerge import merge_lines
from gridgit.history.threeway import MISSING, CannotMerge, merge_items, merge_mapping
from gridgit.memory import merge as memory_merge

# ---- STATE.md ---------------------------------------------------------------------------------


def merge_state(base: str, ours: str, theirs: str, source: str) -> str:
    from gridgit.model import state, state_schema
    from gridgit.store import frontmatter

    o, o_body = state.parse(ours, source)
    t, t_body = state.parse(theirs, source)
    b = state.parse(base, source)[0] if base.strip() else {}
    newer_is_ours = str(o.get("updated_at") or "") >= str(t.get("updated_at") or "")
    merged = merge_mapping(b, o, t, lambda mine, other: mine if newer_is_ours else other)
    merged["updated_at"] = max(str(o.get("updated_at") or ""), str(t.get("updated_at") or ""))
    try:
        state_schema.check(merged, source)
    except BadInput as exc:
        raise CannotMerge(str(exc)) from None
    rows = list(dict.fromkeys([*state.recent_rows(o_body), *state.recent_rows(t_body)]))
    rows.sort(key=lambda row: row.split("|")[1].strip(), reverse=True)
    return frontmatter.render(merged, state.render_body(merged, rows), state.HEADER)


# ---- LEARNINGS.md and event logs ---------------------------------------------------------------


def _identified(doc: Any) -> dict[str, tuple[Any, list[tuple[str, str]]]]:
    """Section name -> (its first Section, [(learning id, raw chunk)] of every section of that name)."""
    ids = iter(learning.id for learning in doc.learnings())
    found: dict[str, tuple[Any, list[tuple[str, str]]]] = {}
    for section in doc.sections:
        found.setdefault(section.name, (section, []))[1].extend((next(ids), chunk) for chunk in section.chunks)
    return found


def _merge_chunk(old: Any, ours: tuple[str, str], theirs: tuple[str, str]) -> tuple[str, str]:
    """One learning both sides changed: by lines, else the version that sorts first (e.g. the earlier promotion)."""
    base = "" if old is MISSING else old[1]
    return ours[0], merge_lines(base, ours[1], theirs[1]) or min(ours[1], theirs[1])


def merge_learnings(base: str, ours: str, theirs: str, source: str) -> str:
    from gridgit.model.learnings import LearningsFile, Section, parse_learning

    o, t = LearningsFile.parse(ours), LearningsFile.parse(theirs)
    b = LearningsFile.parse(base) if base.strip() else LearningsFile(preamble=o.preamble)
    old, mine, other = _identified(b), _identified(o), _identified(t)
    origins: set[str] = set()
    sections = []
    for name in [*mine, *(n for n in other if n not in mine)]:
        section = (mine.get(name) or other[name])[0]
        intro = section.intro
        if name in mine and name in other:
            intro = merge_lines(old[name][0].intro if name in old else "", intro, other[name][0].intro) or intro
        merged = merge_items(old.get(name, (None, []))[1], mine.get(name, (None, []))[1],
                             other.get(name, (None, []))[1], lambda item: item[0], _merge_chunk)  # fmt: skip
        kept = []
        for _, chunk in merged:
            origin = parse_learning(chunk, name).origin
            if origin and origin in origins:
                continue  # promoted twice (by an earlier gridgit): one learning
            origins.add(origin)
            kept.append(chunk if chunk.endswith("\n") else chunk + "\n\n")  # never glued to the next heading
        sections.append(Section(name, section.heading, intro, kept))
    preamble = merge_lines(b.preamble, o.preamble, t.preamble) or o.preamble
    return LearningsFile(preamble, sections).render()


def merge_events(base: str, ours: str, theirs: str, source: str) -> str:
    lines: dict[str, str] = {}
    for text in (base, ours, theirs):
        for number, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                event_id = json.loads(line)["id"]
            except (ValueError, KeyError, TypeError):
                raise CannotMerge(f"{source} line {number}: not an event") from None
            lines.setdefault(str(event_id), line)
    return "".join(lines[k] + "\n" for k in sorted(lines))


def merge_message(base: str, ours: str, theirs: str, source: str) -> str:
    from gridgit.coordination import mailbox

    o, t = mailbox.parse(ours, source), mailbox.parse(theirs, source)
    if (o.id, o.sender, o.to, o.thread, o.content) != (t.id, t.sender, t.to, t.thread, t.content):
        raise CannotMerge(f"{source}: two different messages under one id")
    o.acks = {agent: min(at for at in (o.acks.get(agent), t.acks.get(agent)) if at) for agent in {*o.acks, *t.acks}}
    return mailbox.render(o)


# ---- which merge ---------------------------------------------------------------------------------


def merge_claims(base: str, ours: str, theirs: str, source: str) -> str:
    from gridgit.coordination import claimfile

    try:
        return claimfile.merge(base, ours, theirs, source)
    except BadInput as exc:
        raise CannotMerge(str(exc)) from None


def merge_clone(base: str, ours: str, theirs: str, source: str) -> str:
    from gridgit.coordination import presence

    try:
        return presence.merge(ours, theirs)
    except (ValueError, TypeError, AttributeError) as exc:
        raise CannotMerge(f"{source}: {exc}") from None


def claims_published_first(base: dict[str, bytes], theirs: dict[str, bytes], merged: dict[str, bytes]) -> None:
    """MERGED's claims.json where THEIRS is the remote's grid ref: the claims the remote never saw move after
    every claim it holds (gridgit.coordination.claimfile.sequence_after), whatever the clocks said."""
    from gridgit.coordination import claimfile

    name = "claims.json"
    if name not in merged or name not in theirs:
        return
    try:
        now, was, remote = (files.get(name, b"").decode("utf-8") for files in (merged, base, theirs))
        moved = claimfile.sequence_after(now, was, remote, name)
    except (BadInput, UnicodeDecodeError):
        return  # a file the merge could not read was kept by a choice, and is reported as such
    if moved is not None:
        merged[name] = moved.encode("utf-8")


def merger_for(path: str) -> Callable[[str, str, str, str], str] | None:
    """The merge function for a .grid/ path (git's %P), None for any other file."""
    name = PurePosixPath(path).name
    if path == "claims.json":
        return merge_claims
    if PurePosixPath(path).parts[:1] == ("clones",) and name.endswith(".json"):
        return merge_clone
    if PurePosixPath(path).parts[-3:-2] == ("messages",) and name.endswith(".md"):
        return merge_message
    if "memory" in PurePosixPath(path).parts[:-1]:
        return memory_merge.merge
    if name == "STATE.md":
        return merge_state
    if name == "LEARNINGS.md":
        return merge_learnings
    if name.endswith(".jsonl"):
        return merge_events
    if name.startswith("scratchpad_archive"):
        return merge_archive
    if name.startswith("scratchpad") and name.endswith(".md"):
        return merge_scratchpad
    return _work_merger(name)


def _work_merger(name: str) -> Callable[[str, str, str, str], str] | None:
    """The work files (gridgit.history.work_merge): a block's PLAN by its take, SUMMARY and investigations, budget.json."""
    from gridgit.history import work_merge
    from gridgit.work.blockfile import PLAN_RE, SUMMARY_RE

    if PLAN_RE.match(name):
        return work_merge.merge_plan
    if SUMMARY_RE.match(name) or name == "investigation.md":
        return work_merge.merge_document
    return work_merge.merge_budget if name == "budget.json" else None
