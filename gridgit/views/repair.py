"""`gridgit doctor --repair`: bring back every required .grid/ file or folder that is missing or of the wrong kind.

What stands where a required file or folder should be (a directory named STATE.md, say) is
moved aside first, into `<git common dir>/gridgit/aside/<time>/`, never deleted. Each missing
file then comes back through `restore`: from git when it holds a copy that validates (the
grid ref, or a code branch that tracks `.grid/` as the first design did), else made afresh:
STATE.md rebuilt from the phase folders (every phase found, its name from its scratchpad, the
newest one current, an earlier one complete when its entries were archived), config.json and
LEARNINGS.md from the templates, a scratchpad empty. An archive has no fresh form: without a
copy in git it is reported, not invented. Nothing that is in place is touched.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from gridgit.errors import BadInput, GridError
from gridgit.model import state
from gridgit.scratchpad.document import Scratchpad
from gridgit.store import clock, config, fileio, frontmatter, gitcmd, locks
from gridgit.store.layout import Layout, default_phase_name, read_template
from gridgit.validation import required, rules

# Where git may hold a copy of a .grid/ file: the grid ref (either tree shape), then HEAD.
_GRID_REF = "refs/heads/grid"
_TEMPLATES = {"config.json": "config.json", "LEARNINGS.md": "LEARNINGS.md"}


@dataclass(frozen=True)
class Repaired:
    """One line of the repair: PATH (inside .grid/), HOW it came back, and whether it did (OK)."""

    path: str
    how: str
    ok: bool = True

    def __str__(self) -> str:
        return f"{self.path}: {self.how}"

    def to_dict(self) -> dict[str, object]:
        return {"path": self.path, "how": self.how, "ok": self.ok}


def repair(layout: Layout) -> list[Repaired]:
    """Bring back every required file and folder (validation.required); what was done, one line each."""
    if not layout.grid.is_dir():
        raise BadInput(f"no .grid/ at {layout.grid}: run `gridgit init`")
    done: list[Repaired] = []
    given_up: set[Path] = set()
    # A phase folder that comes back makes its scratchpad a required file: look again until settled.
    while found := [m for m in required.find(layout) if m.path not in given_up]:
        for missing in found:
            rel = missing.path.relative_to(layout.grid).as_posix()
            if missing.wrong_kind:
                kind = "file" if missing.folder else "directory"
                done.append(Repaired(rel, f"moved the {kind} aside to {_aside(layout, missing.path)}"))
            try:
                done.append(Repaired(rel, restore(layout, rel) if not missing.folder else _folder(missing.path)))
            except GridError as exc:
                done.append(Repaired(rel, f"not restored: {exc}", ok=False))
                given_up.add(missing.path)
    if not done:
        raise BadInput("nothing to repair: every required .grid/ file and folder is in place (see `gridgit validate`)")
    return done


def _aside(layout: Layout, path: Path) -> Path:
    """Move PATH out of .grid/ into the git directory, where nothing snapshots or syncs it; where it went."""
    common = Path(gitcmd.run(layout.root, "rev-parse", "--path-format=absolute", "--git-common-dir").strip())
    target = common / "gridgit" / "aside" / clock.now_iso().replace(":", "") / path.relative_to(layout.grid)
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.move(str(path), str(target))
    return target


def _folder(path: Path) -> str:
    path.mkdir()
    return "created"


def restore(layout: Layout, rel: str) -> str:
    """Write the missing .grid/ file REL back (see the module's docstring); returns how, in a few words."""
    path = layout.grid / rel
    with locks.locked(path):
        if path.exists() or path.is_symlink():
            raise BadInput(f"{path} exists: nothing to restore")
        found = _from_git(layout, rel)
        if found is not None:
            rev, text = found
            how = f"restored from git ({rev.split(':', 1)[0]})"
        else:
            text, how = _afresh(layout, rel)
        fileio.atomic_write(path, text)
    return how


def _from_git(layout: Layout, rel: str) -> tuple[str, str] | None:
    """(where, text) of the first copy of REL in git that validates as that file."""
    revs = [f"{_GRID_REF}:{rel}", f"{_GRID_REF}:.grid/{rel}"]
    if layout.root in layout.grid.parents:
        revs.append(f"HEAD:{layout.grid.relative_to(layout.root).as_posix()}/{rel}")
    for rev in revs:
        data = gitcmd.run_bytes(layout.root, "show", gitcmd.END_OF_OPTIONS, rev, check=False)
        if data and not rules.validate_bytes(rel, data):
            return rev, data.decode("utf-8")
    return None


def _afresh(layout: Layout, rel: str) -> tuple[str, str]:
    """REL made anew when git holds no copy: (text, how)."""
    if rel == "STATE.md":
        return _rebuilt(layout), f"rebuilt from {len(layout.phase_ids())} phase folder(s)"
    if rel in _TEMPLATES:
        return read_template(_TEMPLATES[rel]), "made afresh from its template (no copy in git)"
    parts = rel.split("/")
    if len(parts) == 3 and parts[2] == "scratchpad.md":
        most = int(config.value(layout, "scratchpad.max_entries"))
        pad = Scratchpad.new(parts[1], _defined_name(layout, parts[1]), clock.now_iso(), most)
        return pad.render(), "made afresh, empty (no copy in git)"
    raise GridError("git holds no copy of it to restore from")


def _defined_name(layout: Layout, phase_id: str) -> str:
    """The phase's name as STATE.md defines it, else one made from its id."""
    try:
        definitions = state.read(layout).get("phases", {}).get("definitions") or []
    except (GridError, OSError):
        definitions = []
    names = [d.get("name") for d in definitions if isinstance(d, dict) and d.get("id") == phase_id]
    return str(names[0]) if names and names[0] else default_phase_name(phase_id)


def _rebuilt(layout: Layout) -> str:
    from gridgit.setup.init import new_state

    phase_ids = layout.phase_ids()
    if not phase_ids:
        raise BadInput(
            f"no copy of STATE.md in git and no phase folders in {layout.phases_dir}: run `gridgit init --force`"
        )
    phases = [(phase_id, _phase_name(layout, phase_id)) for phase_id in phase_ids]
    data, body = frontmatter.parse(new_state(layout.main_root.name, phases), "STATE.md")
    current = phases[-1]
    completed = []
    for definition in data["phases"]["definitions"]:
        done = definition["id"] != current[0] and _archived(layout, definition["id"])
        definition["status"] = "complete" if done else "in_progress"
        definition["started_at"] = definition["started_at"] or data["created_at"]
        completed += [definition["id"]] if done else []
    data["phases"]["completed"] = completed
    data["phases"]["current"] = len(phases)
    data["position"].update({"phase": len(phases), "phase_id": current[0], "phase_name": current[1]})
    return state.render_file(data, body)


def _phase_name(layout: Layout, phase_id: str) -> str:
    pad = _pad(layout, phase_id)
    return pad.phase_name if pad is not None else default_phase_name(phase_id)


def _archived(layout: Layout, phase_id: str) -> bool:
    """A phase whose scratchpad is empty and whose entries went to its archive was completed."""
    pad = _pad(layout, phase_id)
    return pad is not None and not pad.entries and layout.scratchpad_archive(phase_id).exists()


def _pad(layout: Layout, phase_id: str) -> Scratchpad | None:
    try:
        return Scratchpad.parse(fileio.read_text(layout.scratchpad(phase_id)), phase_id)
    except GridError:
        return None
