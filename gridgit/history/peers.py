"""The gate of what arrives from a peer: a fetched grid commit passes the checks of a local write
before anything of it reaches `.grid/` (DESIGN.md "Security").

Each file the peer's commit changed since the merge base is checked as gridgit checks a file
it writes itself (gridgit.validation.rules: UTF-8, conflict markers, safe YAML without aliases
or tags and not too deep, the schema of its kind, well-formed entries with unique ids), and
it must be a regular file at a safe path, of a bounded size, not standing where this clone
has a file or a folder. A file that fails is left out of the merge (the peer's version is
taken as the base's, so this clone's version stays) and reported once, naming the peer's
clone and the commit that brought it; the rest of the sync goes on.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

from gridgit.history import items
from gridgit.history.boardgit import BoardGit, Tree, safe_path

# Checked before a byte of a file is read or parsed (git's tree records sizes): far beyond what gridgit
# writes, so a bigger peer file is an attack or an accident, and parsing it would stall every clone.
MAX_FILE_BYTES = 32 * 1024 * 1024
MAX_PEER_BYTES = 128 * 1024 * 1024  # every file one fetched commit changed, together
MAX_PEER_ENTRIES = 50_000  # entry headers in one scratchpad or archive (a scratchpad keeps 50 live ones)
# An entry's identity: a peer's version of an entry this clone knows may add to it, never rewrite it.
_IDENTITY = ("timestamp", "agent_id", "category", "topic", "block_id", "title", "carried_from")
_KINDS = {"120000": "a symlink", "160000": "a submodule (gitlink)", "040000": "a folder"}


@dataclass(frozen=True)
class Rejected:
    """A file of a peer's grid commit left out of the merge: where, why, and who sent it."""

    path: str
    reason: str
    commit: str = ""
    clone: str = ""

    def __str__(self) -> str:
        origin = f" (from clone {self.clone or '?'}, grid commit {self.commit[:10]})" if self.commit else ""
        return f".grid/{self.path} of a peer{origin}: {self.reason}; left out of the merge"

    def finding(self) -> dict[str, Any]:
        return {"path": self.path, "kind": "peer_file", "message": self.reason, "commit": self.commit,
                "clone": self.clone}  # fmt: skip


def _problem(path: str, mode: str, data: bytes, files: set[str], folders: set[str]) -> str | None:
    from gridgit.validation import rules

    if not safe_path(path):
        return "a path outside .grid/ or inside git's own folders"
    if not mode.startswith("100"):
        return f"is {_KINDS.get(mode, 'not a regular file')}; only regular files are taken"
    if items.group(path) not in (None, "LEARNINGS.md") and (count := data.count(b"\n### [")) > MAX_PEER_ENTRIES:
        return f"holds {count:,} entries; the limit for a peer's scratchpad or archive is {MAX_PEER_ENTRIES:,}"
    if path in folders or any(str(p) in files for p in PurePosixPath(path).parents):
        return "stands where this clone has a folder or a file"
    if path == ".gitignore" and data not in _gridgit_gitignore():
        return "is gridgit's own list of machine-local files; a peer's lines would drop Blackboard files from history"
    problems = rules.validate_bytes(path, data)
    if problems:
        first = problems[0]
        return (f"line {first.line}: " if first.line else "") + first.message
    return None


def _gridgit_gitignore() -> tuple[bytes, bytes]:
    """The two texts gridgit writes into .grid/.gitignore (the event log shared or not)."""
    from gridgit.store import gitignore

    return gitignore.text(False).encode("utf-8"), gitignore.text(True).encode("utf-8")


def gate(bg: BoardGit, base: Tree, theirs_tree: str | None, ours: Tree) -> tuple[Tree, list[Rejected]]:
    """THEIRS_TREE as files, with every file that fails the gate replaced by BASE's version (or left out),
    and every entry this clone knows that a peer's file rewrites put back as it was here."""
    everything = bg.entries(theirs_tree)
    changed = {p: e for p, e in everything.items() if base.blobs.get(p) != e}
    regular = sorted(p for p, e in changed.items() if e[0].startswith("100") and safe_path(p))
    sizes = bg.sizes(theirs_tree) if regular else {}
    total, too_big = 0, {}
    for path in regular:
        total += sizes.get(path, 0)
        if sizes.get(path, 0) > MAX_FILE_BYTES:
            too_big[path] = f"is {sizes[path]:,} bytes; the limit for a .grid/ file is {MAX_FILE_BYTES:,}"
        elif total > MAX_PEER_BYTES:
            too_big[path] = f"the commit brings over {MAX_PEER_BYTES:,} bytes in all; this file and the rest stay out"
    readable = [p for p in regular if p not in too_big]
    from gridgit.store import gitcmd

    data = dict(zip(readable, gitcmd.read_blobs(bg.layout.root, [changed[p][1] for p in readable]), strict=True))
    folders = {str(q) for p in ours.files for q in PurePosixPath(p).parents}
    rejected = [Rejected(p, why) for p, why in too_big.items()]
    partly: list[Rejected] = []  # items left out of a file that is merged without them
    filtered = _items_kept(bg, data, rejected, partly)
    rejected += [
        Rejected(p, problem)
        for p, (mode, _sha) in sorted(changed.items())
        if p not in too_big and (problem := _problem(p, mode, data.get(p, b""), set(ours.files), folders)) is not None
    ]
    bad = {r.path for r in rejected}
    files = {p: base.files[p] for p, e in everything.items() if p not in changed and p in base.files}
    files.update((p, b) for p, b in data.items() if p not in bad)
    for path in bad & set(base.files):
        files[path] = base.files[path]
    blobs = {p: (everything[p] if p in data and p not in bad else base.blobs[p]) for p in files}
    for path in filtered - bad:
        del blobs[path]  # written from its kept items, not the peer's blob
    rejected += partly
    for path in [p for p in data if p not in bad and items.group(p) not in (None, "LEARNINGS.md")]:
        kept, rewritten = _entries_kept(path, data[path], [base.files, ours.files])
        if rewritten:
            files[path] = kept
            del blobs[path]
            rejected += [Rejected(path, why) for why in rewritten]
    return Tree(theirs_tree, files, blobs), rejected


def _items_kept(bg: BoardGit, data: dict[str, bytes], rejected: list[Rejected], partly: list[Rejected]) -> set[str]:
    """The coordination files of DATA (a peer's claims.json, another clone's `clones/` file) without the items a
    local write would refuse (a claim or an edit whose path leaves the repository or holds a control character),
    each reported in PARTLY; this clone's own `clones/` file is its own to write (REJECTED whole). The paths
    filtered."""
    from gridgit.coordination import claimfile, presence
    from gridgit.store.clone import clone_id

    filtered = set()
    for path in [p for p in data if p == "claims.json" or p.startswith(presence.FOLDER + "/")]:
        if path == f"{presence.FOLDER}/{clone_id(bg.layout)}.json":
            rejected.append(Rejected(path, "is this clone's own file: only this clone writes it"))
            continue
        keep = claimfile.keep_valid if path == "claims.json" else presence.keep_valid
        try:
            text, reasons = keep(data[path].decode("utf-8"))
        except (ValueError, TypeError, AttributeError):
            continue  # not JSON of that shape: the file's own check refuses it whole
        if reasons:
            data[path] = text.encode("utf-8")
            partly += [Rejected(path, why) for why in reasons]
            filtered.add(path)
    return filtered


def _entries_kept(path: str, data: bytes, versions: list[dict[str, bytes]]) -> tuple[bytes, list[str]]:
    """DATA (a peer's scratchpad or archive) with each entry it rewrites put back as VERSIONS (the base's, then this
    clone's) have it, and why: an entry is immutable by its uid; a peer may add to it (an update, evidence, a
    resolution, tags), never rewrite what it says or who wrote it when."""
    from gridgit.errors import BadInput

    group = items.group(path)
    theirs = items.ids(path, data) or frozenset()
    known: dict[str, Any] = {}
    for version in versions:
        for other, raw in version.items():
            if items.group(other) == group and theirs & (items.ids(other, raw) or frozenset()):
                try:
                    doc = items.entry_doc(other, raw.decode("utf-8"))
                except (BadInput, UnicodeDecodeError):
                    continue
                for entry in doc.entries:
                    known.setdefault(entry.uid, entry)
    if not known:
        return data, []
    doc = items.entry_doc(path, data.decode("utf-8"))
    reasons = []
    for n, entry in enumerate(doc.entries):
        old = known.get(entry.uid)
        why = _rewrite(old, entry) if old is not None else None
        if old is not None and why is not None:
            doc.entries[n] = old.replace(id=entry.id)
            reasons.append(f"rewrites entry {entry.uid} ({why}); this clone's version is kept")
    return (str(doc.render()).encode("utf-8"), reasons) if reasons else (data, [])


def _rewrite(old: Any, new: Any) -> str | None:
    """How NEW, a peer's version of entry OLD, rewrites it rather than adding to it (None: it only adds)."""
    changed = [name for name in _IDENTITY if getattr(old, name) != getattr(new, name)]
    if changed:
        return "its " + ", ".join(changed) + " changed"
    lines = iter(new.content.split("\n"))
    if not all(line in lines for line in old.content.split("\n")):  # each old line, in order, still there
        return "its content replaced, not added to"
    return None


def origin(bg: BoardGit, theirs: str, ours: str | None, path: str) -> tuple[str, str]:
    """(the commit, the clone of its `Grid-Clone:` trailer) of the peer's that last changed PATH.

    Only commits of THEIRS's history that OURS lacks are the peer's (a path such as `phases/..`
    would otherwise name this clone's own commit); a path git cannot look up (`..`) is the peer's
    tip commit's doing.
    """
    trailer = "--format=%H%x1f%(trailers:key=Grid-Clone,valueonly)"
    mine = ["--not", ours] if ours else []
    out = ""
    if safe_path(path):
        out = bg.git("log", "-1", trailer, theirs, *mine, "--", f":(literal){path}", check=False).strip()
    if not out:
        out = bg.git("log", "-1", trailer, theirs, check=False).strip()
    sha, _, clone = out.partition("\x1f")
    return (sha or theirs), clone.strip()
