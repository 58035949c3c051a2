"""Where the repository and its .grid/ are, the phase-id rule, and every path gridgit may touch."""

from __future__ import annotations

import functools
import importlib.util
import os
import re
from pathlib import Path

from gridgit.errors import BadInput, GridError, NotInitialised
from gridgit.store import where
from gridgit.store.where import GRID_DIRNAME

# At most 64 characters: a phase id becomes a folder name (and part of file names).
PHASE_ID_RE = re.compile(r"^\d{2}-[a-z0-9][a-z0-9-]{0,60}$")


@functools.cache
def _templates_dir() -> Path:
    # find_spec, not importlib.resources: that import alone costs ~7 ms, and config.json's
    # defaults are read on the git hooks' hot path. The spec also resolves the editable
    # install's mapping of gridgit.templates onto the repository's templates/ folder.
    spec = importlib.util.find_spec("gridgit.templates")
    if spec is None or not spec.submodule_search_locations:
        raise GridError("gridgit is installed without its templates (gridgit.templates)")
    return Path(next(iter(spec.submodule_search_locations)))


def template_path(name: str) -> Path:
    """Where packaged template NAME is (for a file git reads itself, e.g. an attributes file)."""
    return _templates_dir() / name


def read_template(name: str) -> str:
    """The text of packaged template NAME (`STATE.md`, `config.json`, ...)."""
    return template_path(name).read_text(encoding="utf-8")


def check_phase_id(phase_id: str) -> str:
    """Return PHASE_ID when it is `NN-slug`; nothing else ever becomes a path."""
    if not isinstance(phase_id, str) or not PHASE_ID_RE.match(phase_id):
        raise BadInput(f"invalid phase id {phase_id!r}: expected NN-slug, e.g. 01-foundation")
    return phase_id


def parse_phase_spec(value: str) -> tuple[str, str | None]:
    """`02-core:Core Features` -> ("02-core", "Core Features"); the name is optional."""
    phase_id, _, name = value.partition(":")
    from gridgit.store.usertext import clean_name

    return check_phase_id(phase_id.strip()), clean_name(name, "a phase name")


def default_phase_name(phase_id: str) -> str:
    """`02-core-api` -> "Core Api": the name of a phase nobody named."""
    return phase_id.split("-", 1)[1].replace("-", " ").title()


def _not_a_repository(start: Path) -> GridError:
    """Why START is in no work tree: a bare repository has no work tree for .grid/, or no repository at all."""
    for folder in (start, *start.parents):
        if (folder / "HEAD").is_file() and (folder / "objects").is_dir() and (folder / "refs").is_dir():
            return GridError(f"{folder} is a bare git repository (no work tree): run gridgit in a clone of it")
    return GridError(f"not a git repository (or any parent up to /): {start}")


def grid_dir_override(root: Path | None = None) -> Path | None:
    """GRID_DIR (relative to ROOT, default the current directory) when set: a directory, or a path
    `gridgit init` will create; a file there is refused, naming the variable."""
    value = os.environ.get("GRID_DIR")
    if not value:
        return None
    try:
        value.encode("utf-8")  # undecodable bytes arrive as lone surrogates: no file name of .grid/ may hold them
    except UnicodeEncodeError:
        raise BadInput(f"GRID_DIR={value[:200]!r}: not valid UTF-8 text") from None
    grid = Path(value)
    grid = grid if grid.is_absolute() else (root or Path.cwd()) / grid
    if grid.exists() and not grid.is_dir():
        raise BadInput(f"GRID_DIR={value[:200]!r}: not a directory")
    return grid


class Layout:
    """The paths of one Blackboard; `root` is the work tree the caller is in.

    A value: equal and hashing alike when the paths are. A plain class, not a dataclass:
    every gridgit process builds one, and a dataclass costs ~1 ms of start-up (its module,
    and its generated methods compiled at import).
    """

    __slots__ = ("_common", "grid", "main_root", "root")

    def __init__(self, root: Path, main_root: Path, grid: Path, common: Path | None = None) -> None:
        self.root = root
        self.main_root = main_root
        self.grid = grid
        self._common = common

    @property
    def commit_queue(self) -> Path:
        """Where post-commit queues the commits it was fired for (gridgit.git.recording): shared by worktrees."""
        return self.git_common / "gridgit" / "commits"

    @property
    def git_common(self) -> Path:
        """The repository's common git directory (`.git` of the main worktree, shared by linked ones)."""
        if self._common is None:
            dot_git = where.git_entry(str(self.root))
            if dot_git is None:
                raise _not_a_repository(self.root)
            self._common = Path(where.common_dir(dot_git))
        return self._common

    def _key(self) -> tuple[Path, Path, Path]:
        return (self.root, self.main_root, self.grid)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Layout) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"Layout(root={self.root!r}, main_root={self.main_root!r}, grid={self.grid!r})"

    @classmethod
    def find(cls, start: Path | str | None = None) -> Layout:
        """Locate the repository around START (default: cwd) and the .grid/ it shares."""
        here = Path(start) if start is not None else Path.cwd()
        try:
            found = where.find(str(here))
        except (OSError, ValueError) as exc:
            raise GridError(str(exc)) from None
        if found is None:
            raise _not_a_repository(here.resolve())
        root, main_root = Path(found.root), Path(found.main_root)
        override = grid_dir_override(root)
        if override is None and not os.environ.get("GRID_DIR") and found.configured():
            from gridgit.store import gitcmd

            configured = gitcmd.config_get(root, "grid.dir")
            override = root / configured if configured else None
        if override:
            grid = override
        else:
            grid = main_root / GRID_DIRNAME
            if grid.is_symlink() and main_root not in grid.resolve().parents:
                # A .grid/ that leads out of the repository (a cloned symlink, say) is refused;
                # GRID_DIR or `git config grid.dir` is the way to keep the Blackboard elsewhere.
                raise BadInput(f"{grid}: is a symlink leading out of the repository; gridgit does not follow it")
        return cls(root=root, main_root=main_root, grid=grid.resolve(), common=Path(found.common))

    def require(self) -> Layout:
        """Self, or NotInitialised when .grid/ does not exist yet."""
        if not self.state.exists():
            if self.grid.is_dir() and (self.phases_dir.is_dir() or self.learnings.exists()):
                raise NotInitialised(f"{self.state} is missing: run `gridgit doctor --repair` to bring it back")
            raise NotInitialised(f"no Blackboard at {self.grid}: run `gridgit init` first")
        return self

    @property
    def state(self) -> Path:
        return self.grid / "STATE.md"

    @property
    def learnings(self) -> Path:
        return self.grid / "LEARNINGS.md"

    @property
    def config(self) -> Path:
        return self.grid / where.CONFIG

    @property
    def checkpoint(self) -> Path:
        return self.grid / "CHECKPOINT.md"

    @property
    def claims(self) -> Path:
        return self.grid / where.CLAIMS

    @property
    def events_dir(self) -> Path:
        return self.grid / "events"

    @property
    def events_log(self) -> Path:
        return self.grid / where.EVENTS_LOG

    @property
    def latest_event(self) -> Path:
        return self.events_dir / "latest.json"

    @property
    def cursors_dir(self) -> Path:
        return self.grid / where.CURSORS_DIR

    @property
    def phases_dir(self) -> Path:
        return self.grid / "phases"

    @property
    def daemon_dir(self) -> Path:
        return self.grid / ".daemon"

    @property
    def memory_dir(self) -> Path:
        """The memory agents' workspace (INDEX.md, patterns.md, ..., compressed/): synced like the rest."""
        return self.grid / "memory"

    @property
    def cache_dir(self) -> Path:
        """Machine-local caches rebuilt from the files (the search index): gitignored, never synced."""
        return self.grid / ".cache"

    def phase_dir(self, phase_id: str) -> Path:
        return self.phases_dir / check_phase_id(phase_id)

    def scratchpad(self, phase_id: str) -> Path:
        return self.phase_dir(phase_id) / "scratchpad.md"

    def scratchpad_archive(self, phase_id: str) -> Path:
        return self.phase_dir(phase_id) / "scratchpad_archived.md"

    def phase_ids(self) -> list[str]:
        """Phase ids that have a directory, sorted; folders that are not NN-slug are ignored."""
        if not self.phases_dir.is_dir():
            return []
        return sorted(p.name for p in self.phases_dir.iterdir() if p.is_dir() and PHASE_ID_RE.match(p.name))

    def relative(self, path: Path | str) -> str:
        """PATH as a repo-relative posix path; a path outside the work tree is refused."""
        p = Path(path)
        p = p if p.is_absolute() else Path.cwd() / p
        # A symlink names itself (git tracks the link, not its target, which may be outside):
        # only the folders above it are resolved.
        absolute = p.resolve() if p.name in ("", ".", "..") else p.parent.resolve() / p.name
        try:
            rel = absolute.relative_to(self.root)
        except ValueError:
            try:
                rel = absolute.relative_to(self.main_root)
            except ValueError:
                raise BadInput(f"{path}: outside the repository {self.root}") from None
        if not rel.parts:
            raise BadInput(f"{path}: the repository root is not a file path")
        return rel.as_posix()


def grid_prefix(layout: Layout) -> str | None:
    """The repo-relative path of .grid/ in this work tree (`.grid`), or None when it is not inside it."""
    for root in (layout.root, layout.main_root):
        try:
            return layout.grid.relative_to(root).as_posix()
        except ValueError:
            continue
    return None
