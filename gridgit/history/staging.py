"""What a snapshot takes from `.grid/`: each file read once and the tree built from those bytes,
with damage kept out (DESIGN.md invariant 6: only operations remove; damage is never shared).

It runs under the Blackboard's lock held exclusive, so no gridgit writer is half-way through
a file; what else happens to `.grid/` meanwhile (an `rm`, an editor, an agent's own Write
tool) changes nothing here, since every file is read once, with no symlink followed, and the
tree is made of exactly those bytes. Against the last snapshot (the parent tree):

- a file that is missing, or not a regular file (a directory, a symlink, a FIFO), keeps its
  last version: no gridgit operation deletes a file of `.grid/`, so a missing one is damage.
  The ways out of the history are gridgit's own list of machine-local files (the event log
  leaves when `events.commit` goes off: gridgit.store.gitignore, never the `.grid/.gitignore`
  file, which is gridgit's own text in every snapshot) and the retention of rotated event
  segments (`events.keep_segments`);
- a file that does not validate (emptied, truncated, overwritten with prose, a conflict
  marker, bad YAML) keeps its last version, or stays out when it is new;
- entries and learnings that vanished from their group of files (gridgit.history.items:
  an entry leaves a scratchpad only into its phase's archive) are put back into the file
  that held them, so the snapshot holds every item the last one held;
- what looks like a secret typed by hand is redacted in the snapshot (the file on disk is
  left alone); a file whose redaction would break it stays out until the secret is gone.

Each is a Damage the snapshot reports (stderr, `gridgit status`, `gridgit doctor`, an event).
"""

from __future__ import annotations

import os
import stat
from dataclasses import asdict, dataclass, field
from pathlib import PurePosixPath
from typing import Any

from gridgit.history import items
from gridgit.history.boardgit import BoardGit, blob_id, safe_path

MISSING = "missing"
NOT_A_FILE = "not_a_file"
INVALID = "invalid"
LOST_ITEMS = "lost_items"
SECRET = "secret"


@dataclass(frozen=True)
class Damage:
    """One path of .grid/ the snapshot did not take as it is on disk, and why (KIND, MESSAGE)."""

    path: str
    kind: str
    message: str

    def __str__(self) -> str:
        return f".grid/{self.path}: {self.message}"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Staged:
    """The tree a snapshot commits, the damage kept out of it, and the paths redacted in it."""

    tree: str
    damage: list[Damage] = field(default_factory=list)
    redacted: list[str] = field(default_factory=list)


def read_file(full: Any) -> bytes | str:
    """The bytes of a regular file, else why not: `missing`, `symlink`, `directory`, `special`."""
    try:
        fd = os.open(full, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except FileNotFoundError:
        return "missing"
    except OSError:
        return "symlink" if os.path.islink(full) else "directory" if os.path.isdir(full) else "special"
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            return "directory" if stat.S_ISDIR(mode) else "special"
        chunks = []
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


NOT_READ = {
    "symlink": "is a symlink; gridgit does not follow symlinks in .grid/",
    "directory": "is a directory where a file should be",
    "special": "is not a regular file",
}


def _checked(path: str, data: bytes) -> tuple[bytes | None, Damage | None, bool]:
    """(the bytes to commit or None, the damage, whether a secret was redacted) for a file that changed."""
    from gridgit.validation import rules

    problems = rules.validate_bytes(path, data)
    if problems:
        first = problems[0]
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        where = f"line {first.line}: " if first.line else ""
        return None, Damage(path, INVALID, f"{where}{first.message}{more}"), False
    if path.startswith("events/"):
        return data, None, False  # every event was redacted when it was emitted; a log is long
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return data, None, False  # a binary file gridgit does not validate: taken as it is
    from gridgit.store import redaction

    clean = redaction.redact(text)
    if clean == text:
        return data, None, False
    if path.endswith(".json") or rules.validate_text(path, clean):
        clean = _redacted_values(path, text) or clean
    if rules.validate_text(path, clean):
        message = "holds what looks like a secret, and redacting it breaks the file: remove the secret by hand"
        return None, Damage(path, SECRET, message), False
    return clean.encode("utf-8"), None, True


def _redacted_values(path: str, text: str) -> str | None:
    """TEXT redacted value by value (a JSON file, a frontmatter's fields and its body), None when it does not parse.

    Redacting the text whole can break it (a private key's header in a one-line field takes the
    rest of the file with it) or fuse two keys of a JSON object that differ only in their secret
    (budget.json's buckets): each key becomes a distinct name of its own (redaction.distinct_name).
    """
    import json

    from gridgit.errors import BadInput
    from gridgit.store import frontmatter, redaction

    try:
        if path.endswith(".json"):
            data = redaction.redact_obj(json.loads(text), redaction.distinct_name)
            return json.dumps(data, indent=2, ensure_ascii=False) + "\n"
        meta, body = frontmatter.parse(text, path)
    except (BadInput, ValueError, RecursionError):
        return None
    return str(frontmatter.render(redaction.redact_obj(meta, redaction.distinct_name), redaction.redact(body)))


_KEPT = "; its last version is kept on the grid ref"
_JOURNALED = "; its last acknowledged write is kept on the grid ref (from the write journal)"


def stage(bg: BoardGit, parent_tree: str | None, write: bool = True) -> Staged:
    """The tree of .grid/ as it is, damage kept out (see the module docstring).

    WRITE=False only judges: no blob or tree is written, and the Staged has no tree.
    """
    parent = {p: e for p, e in bg.entries(parent_tree).items() if e[0].startswith("100")}
    kept: dict[str, tuple[str, str]] = {}  # {path: (mode, blob)}: unchanged, or the parent's version kept
    new: dict[str, bytes] = {}
    damage: list[Damage] = []
    redacted: list[str] = []

    from gridgit.store import gitignore, journal

    journaled = journal.read(bg.layout)
    latest = {rel: data for _, rel, data in journaled}  # each file's last acknowledged write

    def keep_parent(path: str, kind: str, message: str) -> None:
        taken = _checked(path, latest[path])[0] if path in latest else None
        if taken is not None:  # an acknowledged write no snapshot holds yet beats the last snapshot's version
            new[path] = taken
            damage.append(Damage(path, kind, message + _JOURNALED))
            return
        if path in parent:
            kept[path] = parent[path]
        damage.append(Damage(path, kind, message + (_KEPT if path in parent else "; left out")))

    commit_events = gitignore.commits_events(bg.layout)
    own, extra = gitignore.patterns(commit_events), gitignore.extra(bg.layout)
    ours = gitignore.text(commit_events).encode("utf-8")  # .grid/.gitignore: gridgit's, whatever the file says
    if ".gitignore" in parent and blob_id(ours, parent[".gitignore"][1]) == parent[".gitignore"][1]:
        kept[".gitignore"] = parent[".gitignore"]
    else:
        new[".gitignore"] = ours
    for path in bg.listed(own):
        if path == ".gitignore" or gitignore.machine_local(path, own, extra):
            continue
        data = read_file(bg.layout.grid / path)
        old = parent.get(path)
        if isinstance(data, str):
            if data != "missing":
                keep_parent(path, NOT_A_FILE, NOT_READ[data])
        elif old is not None and blob_id(data, old[1]) == old[1]:
            kept[path] = old
        else:
            taken, found, secret = _checked(path, data)
            if found is not None:
                keep_parent(path, found.kind, found.message)
            elif taken is not None:
                new[path] = taken
                redacted += [path] if secret else []
    on_disk = set(kept) | set(new) | {d.path for d in damage}
    gone = [p for p in parent if p not in on_disk]
    gone += [p for p in latest if p not in parent and p not in on_disk and safe_path(p)]  # written, then lost
    for path in gone:
        if gitignore.machine_local(path, own, extra) or items.may_leave(path) or any(d.path == path for d in damage):
            continue  # machine-local now (the event log when `events.commit` went off), or retention took it
        shape = read_file(bg.layout.grid / path)
        why = shape if isinstance(shape, str) and shape != "missing" else ""
        keep_parent(path, NOT_A_FILE if why else MISSING, NOT_READ[why] if why else "missing")
    _drop_clashes(kept, new, damage)
    _keep_items(bg, parent, kept, new, damage, journaled)
    reported = sorted(damage, key=lambda d: d.path)
    if not write:
        return Staged("", reported, sorted(redacted))
    if not new and kept == parent and parent_tree:
        return Staged(parent_tree, reported, sorted(redacted))  # nothing changed: no tree to write
    blobs = dict(kept)
    blobs.update(zip(new, (("100644", sha) for sha in bg.write_blobs(list(new.values()))), strict=True))
    return Staged(bg.tree_from(blobs), reported, sorted(redacted))


def _drop_clashes(kept: dict[str, tuple[str, str]], new: dict[str, bytes], damage: list[Damage]) -> None:
    """Leave out a new path that a kept file stands in the way of (`STATE.md/sub/keep` beside `STATE.md`)."""
    folders = {str(p) for path in kept for p in PurePosixPath(path).parents if str(p) != "."}
    for path in list(new):
        above = [str(p) for p in PurePosixPath(path).parents if str(p) != "."]
        if path in folders or any(a in kept for a in above):
            del new[path]
            if not any(d.path in above for d in damage):
                damage.append(Damage(path, NOT_A_FILE, "stands where the history has a folder or a file; left out"))


def _keep_items(
    bg: BoardGit, parent: dict[str, tuple[str, str]], kept: dict[str, tuple[str, str]], new: dict[str, bytes],
    damage: list[Damage], journaled: list[tuple[float, str, bytes]],
) -> None:  # fmt: skip
    """Put back into NEW's files the items their group lost since the parent, or since any journaled version
    of them (an entry written after the last snapshot, then lost with its file: see gridgit.history.items)."""
    touched = {items.group(p) for p in new} - {None}
    if not touched:
        return
    from gridgit.store import gitcmd

    before_paths = [p for p in parent if items.group(p) in touched]
    kept_paths = [p for p in kept if items.group(p) in touched]
    blobs = gitcmd.read_blobs(bg.layout.root, [parent[p][1] for p in before_paths] + [kept[p][1] for p in kept_paths])
    now = {**dict(zip(kept_paths, blobs[len(before_paths) :], strict=True)), **new}
    versions = [dict(zip(before_paths, blobs[: len(before_paths)], strict=True))]
    versions += [{rel: data} for _, rel, data in reversed(journaled) if items.group(rel) in touched]
    restored: dict[str, int] = {}
    for before in versions:
        for path, wanted in items.lost(before, now).items():
            if path not in new:
                continue
            new[path] = now[path] = items.with_items(path, new[path], before[path], wanted)
            restored[path] = restored.get(path, 0) + len(wanted)
    for path, count in restored.items():
        noun = "learning(s)" if items.group(path) == "LEARNINGS.md" else "entry(ies)"
        damage.append(Damage(path, LOST_ITEMS, f"{count} {noun} gone without a gridgit operation" + _KEPT))
