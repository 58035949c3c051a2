"""`gridgit restore PATH... | --all [--from REV]`: everything lost comes back from the grid ref's history.

For each `.grid/` file asked for (with `--all`: each one a snapshot would find damaged, as
gridgit.history.staging judges it), the newest grid commit holding a valid version of it is
found (from REV, default the grid ref; the tip may itself lack the file). Then:

- a file that is missing, emptied, truncated or not valid is replaced by that version (the
  damaged bytes are kept under `.git/gridgit/restored/`, never thrown away);
- a valid file that lost entries or learnings by hand gets them back, merged in by id, so
  whatever was written since that commit stays;
- a STATE.md no commit holds a valid copy of is rebuilt, with every phase the history knows
  (any STATE.md that still parses, every phase folder of any grid commit, the folders on disk).

Everything runs under the Blackboard's lock held exclusive, and ends with a snapshot, so the
grid ref holds what was restored. `gridgit doctor --repair` is the same call with `--all`.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from gridgit.errors import BadInput, GridError, NotFound
from gridgit.history import items, staging
from gridgit.history.boardgit import BoardGit, safe_path
from gridgit.store import fileio, gitcmd, progress
from gridgit.store.layout import PHASE_ID_RE, Layout, grid_prefix

MAX_VERSIONS = 500  # grid commits searched back for a valid version of one file
_RESTORABLE = (staging.MISSING, staging.INVALID, staging.LOST_ITEMS, staging.NOT_A_FILE)


@dataclass(frozen=True)
class Restored:
    """What happened to one path: HOW (restored, merged, rebuilt, skipped), from which SOURCE, DETAIL."""

    path: str
    how: str
    source: str = ""  # `grid commit <hash>`, or `HEAD:.grid/<path>` where the code branch tracks .grid/
    detail: str = ""

    def __str__(self) -> str:
        source = f" from {self.source}" if self.source else ""
        return f".grid/{self.path}: {self.how}{source}" + (f" ({self.detail})" if self.detail else "")

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "how": self.how, "source": self.source, "detail": self.detail}


def inside(layout: Layout, raw: str) -> str:
    """RAW (relative to the current folder or to .grid/, or absolute) as a path inside .grid/."""
    from gridgit.store import usertext

    if not raw.isprintable() and usertext.strip_controls(raw, one_line=True) != raw:
        raise BadInput(f"{raw!r}: a path with a line break or a control character")
    grid = layout.grid
    candidate = Path(raw)
    tries = [candidate] if candidate.is_absolute() else [Path.cwd() / candidate, grid / candidate]
    for full in tries:
        normal = Path(os.path.normpath(full))
        if grid in normal.parents:
            rel = normal.relative_to(grid).as_posix()
            if safe_path(rel) and not rel.endswith((".lock", ".tmp")):
                return rel
    raise BadInput(f"{raw}: not a file of the Blackboard ({grid})")


def restore(
    layout: Layout,
    paths: list[str] | None = None,
    everything: bool = False,
    rev: str | None = None,
    ref: str | None = None,
    agent: str = "system",
) -> list[Restored]:
    """Bring back PATHS (or, with EVERYTHING, every damaged file) from the grid history (see the module)."""
    from gridgit.history import snapshot

    if not paths and not everything:
        raise BadInput("name the files to restore (e.g. STATE.md, phases/01-foundation), or --all")
    if rev is not None and (not rev or rev.startswith("-")):
        raise BadInput(f"{rev!r}: not a revision (a grid commit, e.g. grid~3)")
    bg = BoardGit.open(layout, ref)
    start = bg.resolve(rev or bg.ref)
    if rev and start is None:
        raise BadInput(f"{rev}: not a commit of this repository")
    if start is None and (problem := bg.ref_problem(bg.ref)):
        raise GridError(f"{bg.ref} {problem}: there is no history to restore from")
    layout.grid.mkdir(parents=True, exist_ok=True)
    with snapshot.locked(layout):
        # Acknowledged writes no snapshot holds yet (the write journal) go onto the ref first: restored with the rest.
        snapshot.commit_locked(bg, "keep the journaled writes before a restore", agent)
        start = bg.resolve(rev or bg.ref)
        history = bg.entries(bg.tree_of(start))
        if everything:
            wanted = [d.path for d in staging.stage(bg, bg.tree_of(start)).damage if d.kind in _RESTORABLE]
        else:
            wanted = _expand(layout, [inside(layout, p) for p in paths or []], history)
            unknown = [p for p in wanted if p not in history and p != "STATE.md" and not (layout.grid / p).exists()]
            if unknown:  # a name neither the history nor the disk knows: nothing to restore it from (7)
                raise NotFound(f".grid/{unknown[0]}: not in the grid history nor on disk")
        if everything and "STATE.md" not in wanted and not layout.state.exists():
            wanted.append("STATE.md")  # no history of it at all: rebuilt
        done = []
        for path in dict.fromkeys(wanted):
            done.append(_restore_one(bg, layout, path, start))
            progress.step("restoring .grid/ files", len(done), len(set(wanted)))
        if any(r.how != "skipped" for r in done) and layout.state.exists():
            from gridgit.phases import settle

            settle.settle_completed(layout)  # entries back in a phase completed meanwhile are archived and carried on
            snapshot.commit_locked(bg, "restore " + ", ".join(r.path for r in done if r.how != "skipped"), agent)
    return done


def before_completion(layout: Layout, phase_id: str, ref: str | None = None, agent: str = "system") -> list[Restored]:
    """What PHASE_ID's folder lost, back from the history before the phase completes (nothing when it is whole).

    Completion archives and promotes what the phase holds: run on a folder an `rm -rf` emptied, it
    would archive nothing and mark the phase complete, and its entries, restored later, would be
    live entries of a completed phase (issue 39).
    """
    from gridgit.history.boardgit import BOARD_REF
    from gridgit.store.layout import check_phase_id

    check_phase_id(phase_id)
    bg = BoardGit.open(layout, ref)
    start = bg.resolve(BOARD_REF) or bg.resolve(bg.ref)
    folder = f"phases/{phase_id}/"
    if start is None or not any(p.startswith(folder) for p in bg.entries(bg.tree_of(start))):
        return []  # nothing of it in the history
    damage = staging.stage(bg, bg.tree_of(start), write=False).damage
    if not any(d.path.startswith(folder) and d.kind in _RESTORABLE for d in damage):
        return []
    return [r for r in restore(layout, [folder.rstrip("/")], ref=ref, agent=agent) if r.how != "skipped"]


def _expand(layout: Layout, rels: list[str], history: dict[str, tuple[str, str]]) -> list[str]:
    """Each path, a folder standing for every file the history or the disk has under it."""
    found: list[str] = []
    for rel in rels:
        below = [p for p in history if p.startswith(rel + "/")]
        folder = layout.grid / rel
        if folder.is_dir() and not folder.is_symlink():
            below += [p.relative_to(layout.grid).as_posix() for p in folder.rglob("*") if p.is_file()]
        found += sorted(set(below)) if below else [rel]
    return found


def _valid(path: str, data: bytes, stale_index: bool = False) -> bool:
    """DATA is a valid version of PATH (with STALE_INDEX, a scratchpad whose index drifted counts too)."""
    from gridgit.validation import rules

    problems = rules.validate_bytes(path, data)
    return bool(data) and not [p for p in problems if not (stale_index and p.kind == rules.INDEX_DRIFT)]


def _newest_valid(bg: BoardGit, start: str | None, path: str) -> tuple[str, bytes] | None:
    """(where, bytes) of the newest version of PATH in START's history that validates.

    Where the grid history has none and the code branch tracks .grid/ (the first design,
    before `gridgit migrate`), HEAD's copy.
    """
    commits = bg.git("log", "--format=%H", f"--max-count={MAX_VERSIONS}", start, "--", path).split() if start else []
    names = [f"{c}:{path}" for c in commits]
    sources = [f"grid commit {c[:10]}" for c in commits]
    prefix = grid_prefix(bg.layout)
    if prefix:
        names.append(f"HEAD:{prefix}/{path}")
        sources.append(names[-1])
    blobs = gitcmd.read_blobs(bg.layout.root, names)
    return next(((w, data) for w, data in zip(sources, blobs, strict=True) if _valid(path, data)), None)


def _restore_one(bg: BoardGit, layout: Layout, path: str, start: str | None) -> Restored:
    full = layout.grid / path
    disk = staging.read_file(full)
    if isinstance(disk, str) and disk != "missing":
        reason = staging.NOT_READ[disk]
        return Restored(path, "skipped", detail=f"{reason}: move it out of the way, then restore it")
    found = _newest_valid(bg, start, path)
    if found is None:
        if path == "STATE.md" and disk == "missing":
            fileio.atomic_write(full, _rebuilt_state(bg, layout, start))
            return Restored(path, "rebuilt", detail="no valid copy in the grid history; every phase it knows kept")
        return Restored(path, "skipped", detail="no valid version of it in the grid history")
    source, data = found
    # A file that is valid but for a stale index keeps its entries (one added by hand, say): merged into.
    if isinstance(disk, bytes) and _valid(path, disk, stale_index=True):
        siblings = _group_on_disk(layout, path)
        wanted = items.lost({path: data}, siblings).get(path, set())
        if not wanted:
            return Restored(path, "skipped", detail="valid, nothing lost")
        fileio.atomic_write(full, items.with_items(path, disk, data, wanted))
        return Restored(path, "merged", source, f"{len(wanted)} lost item(s) back, everything since kept")
    kept = isinstance(disk, bytes) and bool(disk)
    if isinstance(disk, bytes) and disk:
        _keep_damaged(bg, path, disk)
    full.parent.mkdir(parents=True, exist_ok=True)
    fileio.atomic_write(full, data)
    return Restored(path, "restored", source, "the damaged file is kept in .git/gridgit/restored/" if kept else "")


def _group_on_disk(layout: Layout, path: str) -> dict[str, bytes]:
    """The files of PATH's group of items as they are on disk (those that read)."""
    kind = items.group(path)
    siblings = [path]
    if kind and kind.startswith("phases/"):
        siblings = [f"{kind}/{name}" for name in ("scratchpad.md", "scratchpad_archived.md", "scratchpad_archive.md")]
    found = {}
    for rel in siblings:
        data = staging.read_file(layout.grid / rel)
        if isinstance(data, bytes):
            found[rel] = data
    return found


def _keep_damaged(bg: BoardGit, path: str, data: bytes) -> None:
    """The damaged bytes of PATH, kept out of .grid/ (and so out of the history) before they are replaced."""
    target = bg.state_dir / "restored" / time.strftime("%Y%m%dT%H%M%S") / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data)


# ---- STATE.md from scratch -------------------------------------------------------------------


def _known_phases(bg: BoardGit, layout: Layout, start: str | None) -> dict[str, str]:
    """{phase id: name} of every phase the history or the disk knows: STATE.md copies that parse, folders."""
    from gridgit.store import frontmatter
    from gridgit.store.layout import default_phase_name

    known: dict[str, str] = {}
    if start is not None:
        commits = bg.git("log", "--format=%H", f"--max-count={MAX_VERSIONS}", start, "--", "STATE.md").split()
        for text in gitcmd.read_blobs(bg.layout.root, [f"{c}:STATE.md" for c in commits]):
            try:
                data, _ = frontmatter.parse(text.decode("utf-8"), "STATE.md")
            except (GridError, UnicodeDecodeError):
                continue
            for d in (data.get("phases") or {}).get("definitions") or []:
                if isinstance(d, dict) and PHASE_ID_RE.match(str(d.get("id"))):
                    known.setdefault(str(d["id"]), str(d.get("name") or default_phase_name(str(d["id"]))))
        # Every phase folder any grid commit had (one `git log` for the whole history).
        for path in bg.git("log", "--format=", "--name-only", "-z", start, "--", "phases").split("\0"):
            parts = PurePosixPath(path.strip()).parts
            if len(parts) == 3 and parts[0] == "phases" and PHASE_ID_RE.match(parts[1]):
                known.setdefault(parts[1], default_phase_name(parts[1]))
    for phase_id in layout.phase_ids():
        known.setdefault(phase_id, default_phase_name(phase_id))
    return dict(sorted(known.items()))


def _rebuilt_state(bg: BoardGit, layout: Layout, start: str | None) -> str:
    """A new STATE.md with every known phase: the newest current, the earlier ones complete when archived."""
    from gridgit.model import state
    from gridgit.model.state_template import new_state
    from gridgit.scratchpad.document import Scratchpad
    from gridgit.store import frontmatter

    phases = _known_phases(bg, layout, start)
    if not phases:
        raise BadInput(f"no copy of STATE.md in git and no phase in its history or in {layout.phases_dir}: "
                       "run `gridgit init --force`")  # fmt: skip

    def pad(phase_id: str) -> Scratchpad | None:
        try:
            return Scratchpad.parse(fileio.read_text(layout.scratchpad(phase_id)), phase_id)
        except GridError:
            return None

    for phase_id in phases:
        found = pad(phase_id)
        phases[phase_id] = found.phase_name if found is not None else phases[phase_id]
    data, body = frontmatter.parse(new_state(layout.main_root.name, list(phases.items())), "STATE.md")

    def archived(phase_id: str) -> bool:  # a phase whose entries all went to its archive was completed
        found = pad(phase_id)
        return found is not None and not found.entries and layout.scratchpad_archive(phase_id).exists()

    order = list(phases)
    done = [p for p in order if archived(p)]
    current = next((p for p in order if p not in done), order[-1])
    for definition in data["phases"]["definitions"]:
        phase_id = definition["id"]
        status = "complete" if phase_id in done and phase_id != current else "pending"
        definition["status"] = "in_progress" if phase_id == current else status
        definition["started_at"] = data["created_at"] if definition["status"] != "pending" else None
    number = int(current.split("-", 1)[0])
    data["phases"]["completed"] = [p for p in done if p != current]
    data["phases"]["current"] = number
    data["position"].update({"phase": number, "phase_id": current, "phase_name": phases[current]})
    return str(state.render_file(data, body))
