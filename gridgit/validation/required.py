"""The files and folders a Blackboard must have: each one missing, or of the wrong kind, is a Problem.

Required: STATE.md, config.json and LEARNINGS.md; `phases/`; the folder of the current phase
and of every phase STATE.md records as started or complete (but one it skipped); a scratchpad in each of those
(a pending phase's folder may hold only its block plans); a phase's archive once its scratchpad counts archived entries. `gridgit validate`
and `gridgit doctor` report them; `gridgit doctor --repair` (views.repair) brings each back.
A symlink is the file checks' finding (rules.symlink_problem), not reported again here.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

from gridgit.errors import GridError
from gridgit.store import fileio, frontmatter
from gridgit.store.layout import PHASE_ID_RE, Layout
from gridgit.validation.rules import Problem

KIND = "layout"  # Problem.kind of these findings: doctor reports each on its own
FIX = "gridgit doctor --repair"
FILES = ("STATE.md", "config.json", "LEARNINGS.md")
_STARTED = ("in_progress", "complete")


Shown = Callable[[Path], str]  # a path as problems name it (validation.sources.display)


class Missing(NamedTuple):
    """A required PATH that is missing (WRONG_KIND False) or is a folder where a file should be, or the reverse."""

    path: Path
    folder: bool
    wrong_kind: bool

    @property
    def message(self) -> str:
        if not self.wrong_kind:
            return "missing"
        return "is a file where a folder should be" if self.folder else "is a directory where a file should be"


def _check(path: Path, folder: bool) -> list[Missing]:
    if not path.exists() and not path.is_symlink():
        return [Missing(path, folder, False)]
    if path.is_symlink() or path.is_dir() == folder:
        return []
    return [Missing(path, folder, True)]


def _meta(path: Path, source: str) -> dict[str, Any]:
    """The frontmatter of the file at PATH; empty when it does not parse (the file checks say why)."""
    try:
        data, _ = frontmatter.parse(fileio.read_text(path), source)
    except (GridError, OSError):
        return {}
    return data


def _started_phases(layout: Layout) -> list[str]:
    """The current phase and every phase STATE.md records as started or complete (none when it does not parse)."""
    if not layout.state.is_file() or layout.state.is_symlink():
        return []
    state = _meta(layout.state, "STATE.md")
    phases = state.get("phases") if isinstance(state.get("phases"), dict) else {}
    definitions = [d for d in (phases or {}).get("definitions") or [] if isinstance(d, dict)]
    # A phase skipped by a forced start or completion never ran: it need not have a folder.
    ids = [str(d.get("id")) for d in definitions if d.get("status") in _STARTED and not d.get("skipped")]
    position = state.get("position") if isinstance(state.get("position"), dict) else {}
    current = str((position or {}).get("phase_id") or "")
    if current in {str(d.get("id")) for d in definitions}:  # one STATE does not define is the file check's finding
        ids.append(current)
    return [p for p in dict.fromkeys(ids) if PHASE_ID_RE.match(p)]


def _archived_count(layout: Layout, phase_id: str) -> int:
    pad = layout.scratchpad(phase_id)
    if not pad.is_file() or pad.is_symlink():
        return 0
    archive = _meta(pad, str(pad)).get("archive")
    count = archive.get("archived_count") if isinstance(archive, dict) else 0
    return count if isinstance(count, int) else 0


def find(layout: Layout) -> list[Missing]:
    """Every required file or folder of LAYOUT's Blackboard that is missing or of the wrong kind, folders first."""
    found = [m for rel in FILES for m in _check(layout.grid / rel, folder=False)]
    phases = _check(layout.phases_dir, folder=True)
    if phases:
        return phases + found
    present = set(layout.phase_ids())
    started = set(_started_phases(layout))
    for phase_id in sorted(present | started):
        if phase_id not in present:
            found = _check(layout.phase_dir(phase_id), folder=True) + found
            continue
        # A pending phase's folder may hold its block plans before its scratchpad exists.
        if phase_id in started or layout.scratchpad(phase_id).exists() or layout.scratchpad(phase_id).is_symlink():
            found += _check(layout.scratchpad(phase_id), folder=False)
        if _archived_count(layout, phase_id):
            found += _check(layout.scratchpad_archive(phase_id), folder=False)
    return found


def problems(layout: Layout, shown: Shown) -> list[Problem]:
    """`find` as validation Problems, each with its fix."""
    return [
        Problem(shown(m.path) + ("/" if m.folder and not m.wrong_kind else ""), 0, m.message, FIX, KIND)
        for m in find(layout)
    ]
