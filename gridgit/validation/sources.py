"""Which `.grid/` files a validation reads: the work tree (all, or given paths) or, with
`staged=True`, the index (what a commit would record), never both.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from gridgit.errors import BadInput
from gridgit.store import usertext
from gridgit.store.layout import Layout
from gridgit.store.layout import grid_prefix as grid_prefix  # its home is layout (the hooks' hot path)
from gridgit.validation import required
from gridgit.validation.rules import Problem, is_validated, symlink_problem, validate_bytes

if TYPE_CHECKING:
    from gridgit.store import gitcmd


def display(layout: Layout, path: Path) -> str:
    """PATH relative to the work tree (or the main one) as problems name it, else absolute."""
    for root in (layout.root, layout.main_root):
        try:
            return path.relative_to(root).as_posix()
        except ValueError:
            continue
    return str(path)


def _worktree_files(layout: Layout, paths: list[Path]) -> Iterable[Path]:
    for path in paths:
        if path.is_dir() and not path.is_symlink():
            yield from sorted(p for p in path.rglob("*") if p.is_file() or p.is_symlink())
        else:
            yield path


def _resolve(layout: Layout, raw: str) -> Path:
    """A user path (relative to cwd, or to .grid/) as a path inside .grid/; anything else is refused."""
    candidate = Path(usertext.check_path(raw))
    # `..` is folded away first (lexically), so `../../etc/passwd` can never pass as inside.
    absolute = Path(os.path.normpath(candidate if candidate.is_absolute() else Path.cwd() / candidate))
    # Resolve the folder only: a symlink where a .grid file should be must stay visible.
    absolute = absolute.parent.resolve() / absolute.name
    if _within(layout, absolute):
        return absolute
    inside = Path(os.path.normpath(layout.grid / raw))
    if not candidate.is_absolute() and _within(layout, inside) and (inside.exists() or inside.is_symlink()):
        return inside
    raise BadInput(f"{raw}: not a file under {layout.grid}")


def _within(layout: Layout, path: Path) -> bool:
    return path == layout.grid or layout.grid in path.parents


def validate_worktree(layout: Layout, paths: list[str] | None = None) -> list[Problem]:
    """Problems of the .grid/ files on disk (all of them, or PATHS), required ones missing or of the wrong kind first."""
    if not layout.grid.is_dir():
        layout.require()  # no Blackboard at all; a missing STATE.md is a problem like any other
    targets = [_resolve(layout, p) for p in paths] if paths else [layout.grid]
    scope = [display(layout, t).rstrip("/") for t in targets]
    problems = [
        p
        for p in required.problems(layout, lambda path: display(layout, path))
        if any(p.path.rstrip("/") == t or p.path.startswith(t + "/") for t in scope)
    ]
    for path in _worktree_files(layout, targets):
        rel = path.relative_to(layout.grid).as_posix()
        shown = display(layout, path)
        if path.is_symlink():
            problems.append(symlink_problem(shown))
            continue
        if not path.exists():
            problems.append(Problem(shown, 0, "no such file"))
            continue
        if not is_validated(rel):
            continue
        problems.extend(validate_bytes(rel, path.read_bytes(), shown))
    return problems + (_stranded(layout) if not paths else [])


def _stranded(layout: Layout) -> list[Problem]:
    """Live entries in a completed phase (written by a clone that had not seen the completion yet)."""
    from gridgit.errors import GridError
    from gridgit.phases import settle

    try:
        found = settle.stranded(layout)
    except (GridError, OSError):
        return []  # an unreadable STATE.md (a folder in its place, say) is its own finding
    problems = []
    for phase_id, count in found.items():
        where = display(layout, layout.scratchpad(phase_id))
        what = f"{count} live entr{'y' if count == 1 else 'ies'} in completed phase {phase_id}"
        problems.append(Problem(where, 0, what, f"gridgit phase complete {phase_id}"))
    return problems


def validate_staged(
    layout: Layout, paths: list[str] | None = None, known: list[gitcmd.StagedFile] | None = None
) -> list[Problem]:
    """Problems of the .grid/ files staged for commit, read from the index (GIT_INDEX_FILE honoured).

    KNOWN: the staged .grid/ files when the caller has listed them already (pre-commit has).
    """
    from gridgit.store import gitcmd

    prefix = grid_prefix(layout)
    if prefix is None:
        return []
    wanted = None
    if paths:
        rels = [_resolve(layout, p).relative_to(layout.grid).as_posix() for p in paths]
        wanted = None if "." in rels else {f"{prefix}/{r}" for r in rels}
    problems: list[Problem] = []
    listed = gitcmd.staged_files(layout.root, prefix) if known is None else known
    staged = [s for s in listed if wanted is None or s.path in wanted
              or any(s.path.startswith(w + "/") for w in wanted)]  # fmt: skip
    checked = []
    for item in staged:
        rel = item.path[len(prefix) + 1 :]
        if item.mode == "120000":
            problems.append(symlink_problem(item.path))
        elif is_validated(rel):
            checked.append((item, rel))
    blobs = gitcmd.read_blobs(layout.root, [item.sha for item, _ in checked])
    for (item, rel), data in zip(checked, blobs, strict=True):
        problems.extend(validate_bytes(rel, data, item.path))
    return problems


def validate_paths(layout: Layout, paths: list[str] | None = None, staged: bool = False) -> list[Problem]:
    """Problems of .grid/ files: the work tree (all, or PATHS) or, with STAGED, the index versions."""
    return validate_staged(layout, paths) if staged else validate_worktree(layout, paths)
