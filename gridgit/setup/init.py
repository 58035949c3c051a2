"""`gridgit init`: create .grid/ from the packaged templates, never overwriting data."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from gridgit.errors import BadInput
from gridgit.events import bus
from gridgit.model import state
from gridgit.model.permissions import SYSTEM_AGENT as SYSTEM
from gridgit.model.state_template import new_state
from gridgit.scratchpad import store
from gridgit.store import config, fileio, gitcmd, gitignore, locks, usertext
from gridgit.store.layout import Layout, default_phase_name, read_template

DEFAULT_PHASE = ("01-foundation", "Foundation")


@dataclass
class InitResult:
    grid: Path
    created: list[str] = field(default_factory=list)
    hooks: list[str] = field(default_factory=list)  # what init changed around .grid/: .gitignore, hooks
    advice: list[str] = field(default_factory=list)  # what to run next (e.g. `gridgit migrate`)

    @property
    def changed(self) -> bool:
        return bool(self.created)


def init(
    layout: Layout,
    mission: str | None = None,
    phases: list[tuple[str, str]] | None = None,
    force: bool = False,
    hooks: bool = True,
) -> InitResult:
    """Create .grid/; on an existing one change nothing, or with FORCE add only what is missing."""
    result = InitResult(layout.grid)
    phases = phases or [DEFAULT_PHASE]
    if len({p for p, _ in phases}) != len(phases):
        raise BadInput("the same phase id was given twice")
    # The mission name becomes STATE's cluster and part of its mission_id: cleaned like any name,
    # and checked first: bad input is refused whether or not .grid/ exists.
    mission = usertext.clean_name(mission, "the mission name") or layout.main_root.name
    phases = [(pid, usertext.clean_name(name, "a phase name") or default_phase_name(pid)) for pid, name in phases]
    if layout.grid.exists() and not force:
        _ignore_and_hook(layout, result, hooks)
        return result
    if layout.grid.is_symlink() or (layout.grid.exists() and not layout.grid.is_dir()):
        raise BadInput(f"{layout.grid}: exists and is not a directory")
    if not layout.grid.exists():
        from gridgit.history import snapshot

        if snapshot.adopt(layout, fresh=force):
            result.created.append(f"the Blackboard of the grid ref ({len(list(layout.grid.rglob('*')))} files)")
    # The locks' folder first: STATE.md, written below under its lock, is not there yet to find the Blackboard by.
    for folder in (layout.grid, layout.grid / locks.LOCKS_DIR, layout.events_dir, layout.phases_dir):
        folder.mkdir(parents=True, exist_ok=True)

    def create(path: Path, text: str) -> None:
        if not path.exists():
            fileio.atomic_write(path, text)
            result.created.append(path.relative_to(layout.grid).as_posix())

    create(layout.config, read_template("config.json"))
    create(layout.grid / ".gitignore", gitignore.text(bool(config.value(layout, "events.commit"))))
    create(layout.learnings, read_template("LEARNINGS.md"))
    fresh = not layout.state.exists()
    if fresh:
        head = gitcmd.run(layout.root, "rev-parse", "-q", "--verify", "--short", "HEAD^{commit}", check=False)
        with locks.locked(layout.state):
            create(layout.state, new_state(mission, phases, head.strip() or None))
    current = state.read(layout)["position"]["phase_id"] or phases[0][0]
    names = dict(phases)
    if store.create(layout, current, names.get(current)):
        result.created.append(f"phases/{current}/scratchpad.md")
    if not layout.events_log.exists():
        layout.events_log.touch()
        result.created.append("events/current.jsonl")
    if result.created:
        bus.emit(layout, "grid_initialised", {"created": result.created, "mission": mission})
    if fresh:
        # The first phase starts with the mission, like every later one: its phase_started says so.
        started = {"phase_id": current, "phase_name": names.get(current, default_phase_name(current)), "agent": SYSTEM}
        bus.emit(layout, "phase_started", started)
    _ignore_and_hook(layout, result, hooks)
    return result


def _ignore_and_hook(layout: Layout, result: InitResult, wanted: bool) -> None:
    """`/.grid/` in .gitignore and the git hooks, also in a fresh clone of a repository that has a Blackboard."""
    from gridgit.history import migrate

    if gitignore.ignore_board(layout):
        result.hooks.append("added /.grid/ to .gitignore")
    if migrate.tracked(layout):
        result.advice.append(
            "the code branch tracks .grid/ (an earlier gridgit): run `gridgit migrate` to keep it on its own ref"
        )
    if wanted:
        from gridgit.git import hooks

        result.hooks.extend(hooks.install(layout).changed)
