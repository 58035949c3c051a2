"""A hooks file gridgit owns whole (OpenCode's plugin): written, checked and taken out as one.

The file's text is all gridgit's, so there is nothing to merge: `install` writes it when it
is missing or another gridgit version's (recognised by its first line, MARK), and leaves it
alone when current (twice is once); `remove` deletes it, with the folders it emptied, so a
set-up followed by a remove leaves the work tree as it was. A file at that path that gridgit
did not write is the user's: `install` refuses to write over it (nothing written), `remove`
and `check` leave it as it is.
"""

from __future__ import annotations

from pathlib import Path

from gridgit.agents.jsonconfig import Report, prune
from gridgit.errors import BadInput
from gridgit.store import fileio

MARK = "// gridgit: "  # the first line of every plugin gridgit writes


def _current(path: Path) -> str | None:
    if not path.exists() and not path.is_symlink():
        return None
    if path.is_dir():
        raise BadInput(f"{path}: a directory, not gridgit's plugin file")
    return fileio.read_text(path)


def status(path: Path, text: str) -> Report:
    """Whether PATH holds TEXT: installed, outdated (another gridgit's), missing, or kept (the user's file)."""
    current = _current(path)
    report = Report(str(path), installed=current == text)
    if current is None:
        report.missing.append(path.name)
    elif current != text:
        (report.outdated if current.startswith(MARK) else report.kept).append(path.name)
    return report


def install(path: Path, text: str) -> Report:
    """TEXT at PATH, unless it is there already or PATH is the user's own file (BadInput: nothing written)."""
    report = status(path, text)
    if report.kept:
        raise BadInput(f"{path}: not written by gridgit; nothing written (move it away, then set up again)")
    if not report.installed:
        path.parent.mkdir(parents=True, exist_ok=True)
        fileio.atomic_write(path, text)
        report = Report(str(path), installed=True, changed=True)
    return report


def remove(path: Path) -> Report:
    """Delete gridgit's file at PATH (and the folders it emptied); a file of the user's stays."""
    current = _current(path)
    if current is None or not current.startswith(MARK):
        return Report(str(path))
    path.unlink()
    prune(path.parent)
    return Report(str(path), changed=True)
