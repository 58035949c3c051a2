"""git plumbing on the Blackboard's own ref: never the code's index, HEAD or work tree.

`.grid/` is staged into an index of its own (`<git common dir>/gridgit/index`, so git's stat
cache makes a snapshot cost what changed), with `.grid/` as the work tree: `.grid/.gitignore`
then keeps the machine-local files (locks, cursors, the daemon, the event log unless
`events.commit`) out. Trees are read back as {path inside .grid/: bytes} for the merge, and
written with the same atomic writes as every other gridgit write.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from gridgit.errors import GridError
from gridgit.store import fileio, gitcmd, leftovers
from gridgit.store.layout import Layout

DEFAULT_REF = "grid"
# Where this clone's .grid/ files were last committed from or written to: the ref can move
# under it (a peer pushing into this repository), and what moved is merged, never overwritten.
BOARD_REF = "refs/gridgit/board"
# An index that does not exist: git reads it as empty, so every file of .grid/ is "other".
_NO_INDEX = "no-index"
# What a run makes in <git common dir>/gridgit/ for itself, named after its pid (store.leftovers);
# `merge-index` alone is what gridgit before issue 39 used, by every run: one killed run's
# `merge-index.lock` then stopped every later snapshot and sync.
_MERGE_INDEX = "merge-index"
_BLOBS = "blobs"
_OWNED = (_MERGE_INDEX, _BLOBS)
_LEGACY = (_MERGE_INDEX, _MERGE_INDEX + ".lock")
_LEGACY_SECONDS = 10.0
_HOOK_VARS = ("GIT_DIR", "GIT_INDEX_FILE", "GIT_WORK_TREE", "GIT_PREFIX", "GIT_OBJECT_DIRECTORY")
# The identity of gridgit's own commits where the user set none: a snapshot never fails for want of one.
_FALLBACK_IDENT = {
    "GIT_AUTHOR_NAME": "gridgit",
    "GIT_AUTHOR_EMAIL": "gridgit@localhost",
    "GIT_COMMITTER_NAME": "gridgit",
    "GIT_COMMITTER_EMAIL": "gridgit@localhost",
}


def ref_name(name: str | None) -> str:
    """`grid` -> `refs/heads/grid` (a branch: push, pull, hosting and `git log grid` just work); only gridgit's own
    branch, whatever config.json says (store.config.grid_ref)."""
    from gridgit.store import config

    return config.grid_ref(name)


@dataclass(frozen=True)
class BoardGit:
    """The repository's object store and refs, with `.grid/` as a work tree of its own."""

    layout: Layout
    common: Path
    ref: str

    @classmethod
    def open(cls, layout: Layout, ref: str | None = None) -> BoardGit:
        common = layout.git_common.absolute()
        (common / "gridgit").mkdir(exist_ok=True)
        return cls(layout, common, ref_name(ref))

    def clear_leftovers(self) -> None:
        """Remove what killed runs left in <git common dir>/gridgit/ (the caller holds the Blackboard's lock)."""
        leftovers.clear_dead(self.state_dir, _OWNED)
        for legacy in _LEGACY:  # no owner in the name: only an old one goes
            if leftovers.stale_git_lock(self.state_dir / legacy, _LEGACY_SECONDS):
                leftovers.remove(self.state_dir / legacy)

    @property
    def state_dir(self) -> Path:
        return self.common / "gridgit"

    @property
    def cwd(self) -> Path:
        """Where git runs: in .grid/ (paths are relative to it), or the repository before .grid/ exists."""
        return self.layout.grid if self.layout.grid.is_dir() else self.layout.root

    def env(self, index: str = "index") -> dict[str, str]:
        env = {k: v for k, v in gitcmd.clean_env().items() if k not in _HOOK_VARS}
        env.update(
            GIT_DIR=str(self.common), GIT_WORK_TREE=str(self.layout.grid), GIT_INDEX_FILE=str(self.state_dir / index)
        )
        return env

    def git(self, *args: str, input_text: str | None = None, index: str = "index", check: bool = True) -> str:
        """`git ARGS` on the Blackboard's work tree and index (line endings kept as they are)."""
        full = ("-c", "core.autocrlf=false", "-c", "core.safecrlf=false", *args)
        return gitcmd.run(self.cwd, *full, input_text=input_text, env=self.env(index), check=check)

    def resolve(self, rev: str) -> str | None:
        out = self.git("rev-parse", "-q", "--verify", gitcmd.END_OF_OPTIONS, f"{rev}^{{commit}}", check=False).strip()
        return out or None

    def resolve_many(self, revs: list[str]) -> list[tuple[str | None, str | None]]:
        """(commit, tree) of each of REVS, None where it names no commit: one git call for all."""
        found = gitcmd.resolve(self.layout.root, [f"{r}^{{{kind}}}" for r in revs for kind in ("commit", "tree")])
        return [(found[i], found[i + 1] if found[i] else None) for i in range(0, len(found), 2)]

    def ref_problem(self, ref: str) -> str | None:
        """Why REF, which exists, is no commit to build on (None when it is one, or does not exist)."""
        raw = self.git("rev-parse", "-q", "--verify", ref, check=False).strip()
        if not raw:
            return None
        kind = self.git("cat-file", "-t", raw, check=False).strip()
        if kind == "commit":
            return None
        return (
            f"points at a {kind}, not a commit" if kind else f"points at {raw[:12]}, which is missing from the objects"
        )

    def tree_of(self, commit: str | None) -> str | None:
        return self.git("rev-parse", f"{commit}^{{tree}}").strip() if commit else None

    def is_ancestor(self, older: str, newer: str) -> bool:
        return gitcmd.call(self.cwd, "merge-base", "--is-ancestor", older, newer, env=self.env()).returncode == 0

    def merge_base(self, a: str, b: str) -> str | None:
        return self.git("merge-base", a, b, check=False).strip() or None

    def commit_tree(self, tree: str, parents: list[str], message: str) -> str:
        args = ["commit-tree", tree, *(a for p in parents for a in ("-p", p)), "-F", "-"]
        env = self.env()
        proc = gitcmd.call(self.cwd, *args, input_text=message, env=env)
        if proc.returncode != 0 and "tell me who you are" in proc.stderr.lower() + "empty ident" in proc.stderr:
            proc = gitcmd.call(self.cwd, *args, input_text=message, env={**env, **_FALLBACK_IDENT})
        if proc.returncode != 0:
            detail = (proc.stderr.strip().splitlines() or ["failed"])[-1]
            raise GridError(f"git commit-tree failed: {detail}")
        return proc.stdout.strip()

    def update_ref(self, ref: str, new: str, old: str | None, reason: str) -> bool:
        """Move REF from OLD (None: it must not exist) to NEW, compare-and-swap; False when REF moved meanwhile."""
        return self._update_ref("-m", reason, ref, new, old or "0" * len(new)).returncode == 0

    def point(self, ref: str, commit: str) -> None:
        """Point REF at COMMIT, whatever it pointed at."""
        proc = self._update_ref(ref, commit)
        if proc.returncode != 0:
            raise GridError(f"git update-ref {ref} failed: {gitcmd.said(proc.stderr, proc.returncode)}")

    def stale_locks(self) -> list[Path]:
        """git's lock files of gridgit's refs, and leftovers in <git common dir>/gridgit/, that no live process
        holds any more: each stops the snapshots and syncs that need it (`gridgit doctor` names them)."""
        short = self.ref.removeprefix("refs/heads/")
        found = [self.common / f"{self.ref}.lock", self.common / f"{BOARD_REF}.lock", self.common / "packed-refs.lock"]
        found += sorted((self.common / "refs" / "remotes").glob(f"*/{short}.lock"))
        found += sorted((self.common / "refs" / "gridgit" / "fetched").glob(f"{short}.lock"))
        found = [p for p in found if leftovers.stale_git_lock(p)]
        found += leftovers.dead(self.state_dir, _OWNED)
        return found + [
            p for p in (self.state_dir / n for n in _LEGACY) if leftovers.stale_git_lock(p, _LEGACY_SECONDS)
        ]

    def _update_ref(self, *args: str) -> subprocess.CompletedProcess[str]:
        """`git update-ref ARGS`; a lock of the ref that a killed git left (gridgit's locks keep every other
        gridgit writer of its refs out meanwhile) is removed and the update tried again; a live one is an error."""
        proc = gitcmd.call(self.cwd, "update-ref", *args, env=self.env())
        lock = leftovers.lock_named(proc.stderr) if proc.returncode else None
        if lock is None:
            return proc
        if not leftovers.stale_git_lock(lock):
            raise GridError(leftovers.git_lock_message(lock))
        leftovers.remove(lock)
        return gitcmd.call(self.cwd, "update-ref", *args, env=self.env())

    # ---- trees as files ---------------------------------------------------------------------

    def entries(self, tree: str | None) -> dict[str, tuple[str, str]]:
        """{path: (mode, blob id)} of TREE, recursively."""
        if not tree:
            return {}
        out = self.git("ls-tree", "-r", "-z", "--full-tree", tree)
        found = {}
        for record in out.split("\0"):
            if record:
                info, _, path = record.partition("\t")
                mode, _kind, sha = info.split()
                found[path] = (mode, sha)
        return found

    def sizes(self, tree: str | None) -> dict[str, int]:
        """{path: size in bytes} of TREE's blobs, recursively (git's own record: nothing is read)."""
        found = {}
        for record in self.git("ls-tree", "-r", "-z", "-l", "--full-tree", tree).split("\0") if tree else []:
            if record:
                info, _, path = record.partition("\t")
                size = info.split()[-1]
                found[path] = int(size) if size.isdigit() else 0
        return found

    def read(self, tree: str | None) -> Tree:
        """TREE's regular files (one `cat-file --batch` for all of them)."""
        entries = {p: e for p, e in self.entries(tree).items() if e[0].startswith("100")}
        blobs = gitcmd.read_blobs(self.layout.root, [sha for _, sha in entries.values()])
        return Tree(tree, dict(zip(entries, blobs, strict=True)), entries)

    def make_tree(self, files: dict[str, bytes], sources: list[Tree]) -> str:
        """A tree of FILES; blobs of SOURCES with the same content are reused, the others written."""
        known: dict[bytes, tuple[str, str]] = {}
        for source in sources:
            for path, data in source.files.items():
                if path in source.blobs:  # a file the gate changed has no blob yet
                    known.setdefault(data, source.blobs[path])
        entries = {path: known[data] for path, data in files.items() if data in known}
        new = {path: data for path, data in files.items() if data not in known}
        entries.update(zip(new, (("100644", sha) for sha in self.write_blobs(list(new.values()))), strict=True))
        return self.tree_from(entries)

    def tree_from(self, entries: dict[str, tuple[str, str]]) -> str:
        """The tree of ENTRIES ({path: (mode, blob id)}), written with an index of its own."""
        lines = "".join(f"{mode} {sha}\t{path}\0" for path, (mode, sha) in sorted(entries.items()))
        # An index of this call's own (one that does not exist yet is empty: no read-tree): a run killed
        # half-way leaves it, and git's .lock beside it, to nobody (BoardGit.open clears them), never in
        # the way of the next run.
        index = leftovers.owned_name(_MERGE_INDEX)
        try:
            self.git("update-index", "-z", "--index-info", input_text=lines, index=index)
            return self.git("write-tree", index=index).strip()
        finally:
            for name in (index, index + ".lock"):
                leftovers.remove(self.state_dir / name)

    def write_blobs(self, blobs: list[bytes]) -> list[str]:
        """Write BLOBS into the object store as they are (no filters); their ids, in order."""
        if len(blobs) <= 1:
            return [gitcmd.run_bytes(self.layout.root, "hash-object", "-w", "--no-filters", "--stdin",
                                     input_bytes=data).decode().strip() for data in blobs]  # fmt: skip
        # Many at once: one git reads them from files (a `hash-object --stdin` per blob is a process each).
        folder = self.state_dir / leftovers.owned_name(_BLOBS)
        folder.mkdir()
        try:
            names = []
            for n, data in enumerate(blobs):
                (folder / str(n)).write_bytes(data)
                names.append(f"{folder / str(n)}\n")
            out = gitcmd.run(self.layout.root, "hash-object", "-w", "--no-filters", "--stdin-paths",
                             input_text="".join(names))  # fmt: skip
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        return out.split()

    # ---- the files of .grid/ ------------------------------------------------------------------

    def listed(self, local: list[str]) -> list[str]:
        """The files of .grid/ but those LOCAL's .gitignore patterns name (git's own excludes not read: neither
        .grid/.gitignore nor the user's global excludes decide what the Blackboard shares)."""
        excludes = [a for pattern in local for a in ("-x", pattern)]
        out = self.git("ls-files", "-z", "--others", *excludes, index=_NO_INDEX)
        return [p for p in out.split("\0") if p]


def blob_id(data: bytes, like: str) -> str:
    """The id git gives DATA as a blob, in the hash of the object id LIKE (SHA-1 or SHA-256 repositories)."""
    digest = hashlib.sha256 if len(like) == 64 else hashlib.sha1
    return digest(b"blob %d\0" % len(data) + data).hexdigest()


@dataclass(frozen=True)
class Tree:
    """One tree of the grid ref as files: {path: bytes} and {path: (mode, blob id)}."""

    id: str | None = None
    files: dict[str, bytes] = field(default_factory=dict)
    blobs: dict[str, tuple[str, str]] = field(default_factory=dict)


def safe_path(path: str) -> bool:
    """A path of a tree that may become a file under .grid/ (nothing outside it, nothing of git's)."""
    parts = PurePosixPath(path).parts
    return (
        bool(parts) and not PurePosixPath(path).is_absolute() and all(p not in ("", ".", "..", ".git") for p in parts)
    )


def write_files(grid: Path, old: dict[str, bytes], new: dict[str, bytes], keep: set[str]) -> list[str]:
    """Make the files under GRID go from OLD to NEW (changed paths only; KEEP untouched); the paths written."""
    written = []
    for path in sorted(set(old) | set(new)):
        if path in keep or old.get(path) == new.get(path) or not safe_path(path):
            continue
        full = grid / path
        if path in new:
            full.parent.mkdir(parents=True, exist_ok=True)
            fileio.atomic_write(full, new[path])
        elif full.is_file() and not full.is_symlink():
            full.unlink()
        written.append(path)
    return written
