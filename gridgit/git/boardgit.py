"""git plumbing on the Blackboard's own ref: never the code's index, HEAD or work tree.

`.grid/` is staged into an index of its own (`<git common dir>/gridgit/index`, so git's stat
cache makes a snapshot cost what changed), with `.grid/` as the work tree: `.grid/.gitignore`
then keeps the machine-local files (locks, cursors, the daemon, the event log unless
`events.commit`) out. Trees are read back as {path inside .grid/: bytes} for the merge, and
written with the same atomic writes as every other gridgit write.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from gridgit.errors import GridError
from gridgit.store import fileio, gitcmd
from gridgit.store.layout import Layout

DEFAULT_REF = "grid"
# Where this clone's .grid/ files were last committed from or written to: the ref can move
# under it (a peer pushing into this repository), and what moved is merged, never overwritten.
BOARD_REF = "refs/gridgit/board"
_HOOK_VARS = ("GIT_DIR", "GIT_INDEX_FILE", "GIT_WORK_TREE", "GIT_PREFIX", "GIT_OBJECT_DIRECTORY")
# The identity of gridgit's own commits where the user set none: a snapshot never fails for want of one.
_FALLBACK_IDENT = {
    "GIT_AUTHOR_NAME": "gridgit",
    "GIT_AUTHOR_EMAIL": "gridgit@localhost",
    "GIT_COMMITTER_NAME": "gridgit",
    "GIT_COMMITTER_EMAIL": "gridgit@localhost",
}


def ref_name(name: str | None) -> str:
    """`grid` -> `refs/heads/grid` (a branch: push, pull, hosting and `git log grid` just work)."""
    name = (name or DEFAULT_REF).strip()
    full = name if name.startswith("refs/") else f"refs/heads/{name}"
    if any(part in ("", ".", "..") for part in full.split("/")) or any(c in full for c in " ~^:?*[\\"):
        raise GridError(f"invalid grid ref {name!r} (sync.ref in config.json)")
    return full


@dataclass(frozen=True)
class BoardGit:
    """The repository's object store and refs, with `.grid/` as a work tree of its own."""

    layout: Layout
    common: Path
    ref: str

    @classmethod
    def open(cls, layout: Layout, ref: str | None = None) -> BoardGit:
        common = Path(gitcmd.run(layout.root, "rev-parse", "--path-format=absolute", "--git-common-dir").strip())
        (common / "gridgit").mkdir(exist_ok=True)
        return cls(layout, common, ref_name(ref))

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
        expected = old or "0" * len(new)
        proc = gitcmd.call(self.cwd, "update-ref", "-m", reason, ref, new, expected, env=self.env())
        return proc.returncode == 0

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
                known.setdefault(data, source.blobs[path])
        lines = []
        for path, data in sorted(files.items()):
            mode, sha = known.get(data, ("100644", ""))
            if not sha:
                sha = (
                    gitcmd.run_bytes(self.layout.root, "hash-object", "-w", "--stdin", input_bytes=data)
                    .decode()
                    .strip()
                )
            lines.append(f"{mode} {sha}\t{path}\0")
        self.git("read-tree", "--empty", index="merge-index")
        self.git("update-index", "-z", "--index-info", input_text="".join(lines), index="merge-index")
        return self.git("write-tree", index="merge-index").strip()


@dataclass(frozen=True)
class Tree:
    """One tree of the grid ref as files: {path: bytes} and {path: (mode, blob id)}."""

    id: str | None
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
