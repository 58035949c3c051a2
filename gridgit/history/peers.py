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

from gridgit.history.boardgit import BoardGit, Tree, safe_path

MAX_FILE_BYTES = 32 * 1024 * 1024  # far beyond any file gridgit writes; a bigger one is an attack or an accident
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
    if len(data) > MAX_FILE_BYTES:
        return f"is {len(data):,} bytes; the limit for a .grid/ file is {MAX_FILE_BYTES:,}"
    if path in folders or any(str(p) in files for p in PurePosixPath(path).parents):
        return "stands where this clone has a folder or a file"
    problems = rules.validate_bytes(path, data)
    if problems:
        first = problems[0]
        return (f"line {first.line}: " if first.line else "") + first.message
    return None


def gate(bg: BoardGit, base: Tree, theirs_tree: str | None, ours: Tree) -> tuple[Tree, list[Rejected]]:
    """THEIRS_TREE as files, with every file that fails the gate replaced by BASE's version (or left out)."""
    everything = bg.entries(theirs_tree)
    changed = {p: e for p, e in everything.items() if base.blobs.get(p) != e}
    regular = [p for p, e in changed.items() if e[0].startswith("100") and safe_path(p)]
    from gridgit.store import gitcmd

    data = dict(zip(regular, gitcmd.read_blobs(bg.layout.root, [changed[p][1] for p in regular]), strict=True))
    folders = {str(q) for p in ours.files for q in PurePosixPath(p).parents}
    rejected = [
        Rejected(p, problem)
        for p, (mode, _sha) in sorted(changed.items())
        if (problem := _problem(p, mode, data.get(p, b""), set(ours.files), folders)) is not None
    ]
    files = {p: base.files[p] for p, e in everything.items() if p not in changed and p in base.files}
    files.update((p, b) for p, b in data.items() if p not in {r.path for r in rejected})
    bad = {r.path for r in rejected}
    for path in bad & set(base.files):
        files[path] = base.files[path]
    blobs = {p: (everything[p] if p in data and p not in bad else base.blobs[p]) for p in files}
    return Tree(theirs_tree, files, blobs), rejected


def origin(bg: BoardGit, commit: str, path: str) -> tuple[str, str]:
    """(the commit, the clone of its `Grid-Clone:` trailer) that last changed PATH in COMMIT's history."""
    out = bg.git("log", "-1", "--format=%H%x1f%(trailers:key=Grid-Clone,valueonly)", commit, "--", path, check=False)
    sha, _, clone = out.strip().partition("\x1f")
    return (sha or commit), clone.strip()
