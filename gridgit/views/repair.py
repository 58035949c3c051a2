"""`gridgit doctor --repair`: bring back every damaged, missing or misplaced `.grid/` file.

Three steps, each leaving what is in place untouched:

1. What stands where a required file or folder should be (a directory named STATE.md, say;
   validation.required) is moved aside, into `<git common dir>/gridgit/aside/<time>/`, never
   deleted.
2. `gridgit restore --all` (gridgit.history.restore): each damaged or missing file from the
   newest grid commit that holds a valid version, entries lost by hand merged back in, a
   STATE.md no commit holds rebuilt with every phase the history knows.
3. A required file the history never held (a Blackboard never snapshotted) is made afresh:
   config.json and LEARNINGS.md from their templates, a scratchpad empty, a phase folder
   created. An archive has no fresh form: without a copy it is reported, not invented. A
   config.json that does not load and that the history has no valid copy of is moved aside
   (kept) and rewritten from the defaults: settings have defaults, entries and learnings do not.

A Blackboard with nothing to repair is an answer too ("nothing to repair"), not an error.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from gridgit.errors import BadInput, GridError
from gridgit.history.restore import Restored
from gridgit.model import state
from gridgit.scratchpad.document import Scratchpad
from gridgit.store import clock, config, fileio, locks
from gridgit.store.layout import Layout, default_phase_name, read_template
from gridgit.validation import required

_TEMPLATES = ("config.json", "LEARNINGS.md")
NOT_RESTORED = "not restored"


def repair(layout: Layout, ref: str | None = None) -> list[Restored]:
    """What was done, one line per path (see the module); an empty list when nothing needed it."""
    from gridgit.history import restore

    if not layout.grid.is_dir():
        raise BadInput(f"no .grid/ at {layout.grid}: run `gridgit init`")
    done: list[Restored] = []
    for wrong in [m for m in required.find(layout) if m.wrong_kind]:
        kind = "file" if wrong.folder else "directory"
        done.append(_rel(layout, wrong.path, f"moved the {kind} aside to {_aside(layout, wrong.path)}"))
    done += restore.restore(layout, everything=True, ref=ref)
    if config.problem(layout) is not None and layout.config.is_file():
        # No valid copy in the history (restore would have put it back): the defaults, the broken one kept.
        done = [r for r in done if r.path != "config.json"]
        done.append(_rel(layout, layout.config, f"moved aside to {_aside(layout, layout.config)}"))
    given_up: set[Path] = set()
    # A phase folder that comes back makes its scratchpad a required file: look again until settled.
    while found := [m for m in required.find(layout) if m.path not in given_up]:
        for missing in found:
            try:
                done.append(
                    _rel(
                        layout, missing.path, _folder(missing.path) if missing.folder else _afresh(layout, missing.path)
                    )
                )
            except GridError as exc:
                done.append(_rel(layout, missing.path, NOT_RESTORED, str(exc)))
                given_up.add(missing.path)
    return done


def nothing_done(done: list[Restored]) -> bool:
    """Whether DONE changed nothing: every .grid/ file was already as its history has it."""
    return all(r.how == "skipped" for r in done)


def repaired(done: list[Restored]) -> bool:
    """Whether every path DONE names came back (an archive with no copy anywhere does not)."""
    return all(r.how != NOT_RESTORED for r in done)


def _rel(layout: Layout, path: Path, how: str, detail: str = "") -> Restored:
    return Restored(path.relative_to(layout.grid).as_posix(), how, detail=detail)


def _aside(layout: Layout, path: Path) -> Path:
    """Move PATH out of .grid/ into the git directory, where nothing snapshots or syncs it; where it went."""
    target = layout.git_common / "gridgit" / "aside" / clock.now_iso().replace(":", "") / path.relative_to(layout.grid)
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.move(str(path), str(target))
    return target


def _folder(path: Path) -> str:
    fileio.make_folder(path)
    return "created"


def _afresh(layout: Layout, path: Path) -> str:
    """The required file PATH, which no grid commit holds, made anew; how, in a few words."""
    rel = path.relative_to(layout.grid).as_posix()
    parts = rel.split("/")
    if rel in _TEMPLATES:
        text, how = read_template(rel), "made afresh from its template (no copy in the grid history)"
    elif len(parts) == 3 and parts[2] == "scratchpad.md":
        most = int(config.value(layout, "scratchpad.max_entries"))
        pad = Scratchpad.new(parts[1], _defined_name(layout, parts[1]), clock.now_iso(), most)
        text, how = pad.render(), "made afresh, empty (no copy in the grid history)"
    else:
        raise GridError("the grid history holds no valid copy of it to restore from")
    with locks.locked(path):
        if path.exists() or path.is_symlink():
            raise BadInput(f"{path} exists: nothing to restore")
        fileio.atomic_write(path, text)
    return how


def _defined_name(layout: Layout, phase_id: str) -> str:
    """The phase's name as STATE.md defines it, else one made from its id."""
    try:
        definitions = state.read(layout).get("phases", {}).get("definitions") or []
    except (GridError, OSError):
        definitions = []
    names = [d.get("name") for d in definitions if isinstance(d, dict) and d.get("id") == phase_id]
    return str(names[0]) if names and names[0] else default_phase_name(phase_id)
