"""`gridgit doctor --repair`: bring back a deleted STATE.md.

From git when it has a copy (the Blackboard's own ref, or a code branch that tracks `.grid/`
as the first design did), else rebuilt from the phase folders: every phase found, its name
from its scratchpad, the newest one current, an earlier one complete when its entries were
archived. Nothing else is touched, and a STATE.md that exists is never replaced.
"""

from __future__ import annotations

from gridgit.errors import BadInput, GridError
from gridgit.model import state
from gridgit.scratchpad.document import Scratchpad
from gridgit.store import fileio, frontmatter, gitcmd, locks
from gridgit.store.layout import Layout, default_phase_name

# Where git may hold a copy of STATE.md: the grid ref (either tree shape), then HEAD.
_GRID_REFS = ("refs/heads/grid:STATE.md", "refs/heads/grid:.grid/STATE.md")


def restore_state(layout: Layout) -> str:
    """Write STATE.md back; returns how (`restored from REV` or `rebuilt from N phase folders`)."""
    if not layout.grid.is_dir():
        raise BadInput(f"no .grid/ at {layout.grid}: run `gridgit init`")
    with locks.locked(layout.state):
        if layout.state.exists():
            raise BadInput(f"{layout.state} exists: nothing to repair (see `gridgit validate`)")
        found = _from_git(layout)
        if found is not None:
            rev, text = found
            how = f"restored from git ({rev.split(':', 1)[0]})"
        else:
            text = _rebuilt(layout)
            how = f"rebuilt from {len(layout.phase_ids())} phase folder(s)"
        fileio.atomic_write(layout.state, text)
    return how


def _from_git(layout: Layout) -> tuple[str, str] | None:
    rel = layout.state.relative_to(layout.root).as_posix() if layout.root in layout.state.parents else None
    for rev in (*_GRID_REFS, *([f"HEAD:{rel}"] if rel else [])):
        try:
            text = gitcmd.run_bytes(layout.root, "show", rev, check=False).decode("utf-8")
        except (GridError, UnicodeDecodeError):
            continue
        try:
            if text:
                state.parse(text, rev)
                return rev, text
        except GridError:
            continue  # a copy that does not parse is no repair
    return None


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
