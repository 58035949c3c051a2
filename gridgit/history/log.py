"""The Blackboard's history at a glance: `gridgit log` and `gridgit diff`.

Pull-request diffs no longer show the Blackboard, so `log` reads the grid ref and says, for
each snapshot or merge, who wrote, archived, resolved and promoted what, when and from which
clone (entries and learnings compared by id with the commit's first parent). `diff` is git's
diff of `.grid/` between a commit of the grid ref and the files as they are now.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gridgit.errors import BadInput, GridError
from gridgit.history.boardgit import BoardGit
from gridgit.history.staging import stage
from gridgit.store import gitcmd
from gridgit.store.layout import Layout

_FORMAT = "--format=%x1e%H%x1f%aI%x1f%s%x1f%(trailers:key=Grid-Agent,valueonly)%x1f%(trailers:key=Grid-Clone,valueonly)"


@dataclass
class Change:
    """One thing a commit did: KIND (wrote, updated, archived, resolved, promoted, state), by AGENT."""

    kind: str
    agent: str
    what: str
    phase: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "agent": self.agent, "what": self.what, "phase": self.phase}


@dataclass
class LogItem:
    commit: str
    date: str
    subject: str
    agent: str
    clone: str
    changes: list[Change] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "commit": self.commit,
            "date": self.date,
            "subject": self.subject,
            "agent": self.agent,
            "clone": self.clone,
            "changes": [c.to_dict() for c in self.changes],
        }


def _entries(text: bytes, path: str) -> dict[str, Any]:
    from gridgit.scratchpad.archive import Archive
    from gridgit.scratchpad.document import Scratchpad

    if not text:
        return {}
    parse = Archive.parse if "archive" in path else Scratchpad.parse
    try:
        return {e.uid: e for e in parse(text.decode("utf-8"), path).entries}
    except (BadInput, UnicodeDecodeError):
        return {}


def _learnings(text: bytes) -> dict[str, Any]:
    from gridgit.model.learnings import LearningsFile

    if not text:
        return {}
    try:
        return {item.id: item for item in LearningsFile.parse(text.decode("utf-8")).learnings()}
    except (BadInput, UnicodeDecodeError):
        return {}


def _changes(path: str, before: bytes, after: bytes) -> list[Change]:
    parts = path.split("/")
    if path == "LEARNINGS.md":
        old, new = _learnings(before), _learnings(after)
        return [
            Change("promoted", item.promoted_by or item.agent_id, f"{item.category}: {item.title}", item.phase_id)
            for uid, item in new.items()
            if uid not in old
        ]
    if path == "STATE.md":
        return [Change("state", "", "STATE.md updated")]
    from gridgit.work import logged

    work = logged.changes(path, before, after)
    if work is not None:
        return [Change(*found) for found in work]
    if len(parts) != 3 or parts[0] != "phases" or not parts[2].startswith("scratchpad"):
        return []
    phase, archived = parts[1], "archive" in parts[2]
    old, new = _entries(before, path), _entries(after, path)
    found = []
    for uid, entry in new.items():
        what = f"[{entry.category}] {entry.topic}"
        if uid not in old:
            found.append(Change("archived" if archived else "wrote", entry.agent_id, what, phase))
        elif entry.resolved and not old[uid].resolved:
            by = entry.resolution.by if entry.resolution else entry.agent_id
            found.append(Change("resolved", by, what, phase))
        elif entry.content != old[uid].content and not archived:
            found.append(Change("updated", entry.agent_id, what, phase))
    return found


def log(
    layout: Layout, ref: str | None, limit: int = 20, phase: str | None = None, agent: str | None = None
) -> list[LogItem]:
    """The grid ref's last LIMIT commits, newest first, with what each did (of PHASE, by AGENT)."""
    bg = BoardGit.open(layout, ref)
    if bg.resolve(bg.ref) is None:
        raise GridError(f"no snapshot yet ({bg.ref} does not exist): `gridgit sync` or a commit makes one")
    where = ["--", f"phases/{phase}", "LEARNINGS.md"] if phase else []
    out = bg.git(
        "log", _FORMAT, "--name-only", "-z", "--diff-merges=first-parent", f"--max-count={limit}", bg.ref, *where
    )
    items: list[tuple[LogItem, list[str]]] = []
    for record in out.split("\x1e")[1:]:
        header, _, rest = record.partition("\0")
        sha, date, subject, who, clone = [*header.split("\x1f"), "", "", "", ""][:5]
        paths = [p for p in rest.lstrip("\n").split("\0") if p.strip()]
        items.append((LogItem(sha[:10], date, subject, who.strip(), clone.strip()), paths))
    specs = [f"{item.commit}{side}:{path}" for item, paths in items for path in paths for side in ("^", "")]
    blobs = iter(gitcmd.read_blobs(layout.root, specs))
    for item, paths in items:
        for path in paths:
            before, after = next(blobs), next(blobs)
            item.changes += [
                c
                for c in _changes(path, before, after)
                if (not phase or c.phase == phase) and (not agent or c.agent == agent)
            ]
    if not phase and not agent:
        return [item for item, _ in items]
    return [item for item, _ in items if item.changes or (agent and not phase and item.agent == agent)]


def diff(layout: Layout, ref: str | None, rev: str | None = None, stat: bool = False) -> str:
    """git's diff of .grid/ from REV (default: the grid ref) to the files as they are now (machine-local ones aside)."""
    from gridgit.history import snapshot

    bg = BoardGit.open(layout, ref)
    start = bg.resolve(rev or bg.ref)
    if start is None:
        raise BadInput(f"{rev or bg.ref}: not a commit of this repository")
    with snapshot.locked(layout):
        tree = stage(bg, bg.tree_of(start)).tree
    return bg.git("diff", "--stat" if stat else "--patch", "--no-color", bg.tree_of(start) or "", tree)
