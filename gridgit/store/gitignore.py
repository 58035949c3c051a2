""".grid/.gitignore: which Blackboard files are machine-local (locks, cursors, the daemon, the event log)."""

from __future__ import annotations

from gridgit.store import fileio
from gridgit.store.layout import Layout, read_template

# The .gitignore lines for the event log: all of it while it is machine-local (the default),
# only latest.json and the cursors when config.json says `events.commit: true`.
_LOCAL_EVENTS = "events/\n"
_COMMITTED_EVENTS = "events/latest.json\nevents/cursors/\n"


def _event_lines(text: str, commit_events: bool) -> str:
    old, new = (_LOCAL_EVENTS, _COMMITTED_EVENTS) if commit_events else (_COMMITTED_EVENTS, _LOCAL_EVENTS)
    return text.replace(old, new)


def text(commit_events: bool) -> str:
    """.grid/.gitignore: machine-local files; the event log itself only when it is not committed."""
    return _event_lines(read_template("gitignore"), commit_events)


def sync(layout: Layout, commit_events: bool) -> bool:
    """Switch .grid/.gitignore's event-log lines to match `events.commit`; True when it changed.

    Patterns of machine-local files this gridgit knows and the file lacks (it was written by an
    older one) are appended; whatever else a user added to the file is kept.
    """
    path = layout.grid / ".gitignore"
    if not path.exists():
        return False
    current = fileio.read_text(path)
    updated = _event_lines(current, commit_events)
    have = set(updated.splitlines())
    missing = [
        line for line in text(commit_events).splitlines() if line and not line.startswith("#") and line not in have
    ]
    if missing:
        updated = updated + ("" if updated.endswith("\n") or not updated else "\n") + "\n".join(missing) + "\n"
    if updated == current:
        return False
    fileio.atomic_write(path, updated)
    return True


def board_pattern(layout: Layout) -> str | None:
    """The line of the repository's .gitignore that keeps .grid/ out of the code branches (`/.grid/`).

    None when the Blackboard is outside the main work tree (GRID_DIR elsewhere): nothing to ignore.
    """
    try:
        rel = layout.grid.relative_to(layout.main_root).as_posix()
    except ValueError:
        return None
    return f"/{rel}/"


def ignore_board(layout: Layout) -> bool:
    """Add `/.grid/` to the main work tree's .gitignore (kept as it is otherwise); True when it changed."""
    pattern = board_pattern(layout)
    if pattern is None:
        return False
    path = layout.main_root / ".gitignore"
    current = fileio.read_text(path) if path.exists() or path.is_symlink() else ""
    have = {line.strip() for line in current.splitlines()}
    if have & {pattern, pattern.rstrip("/"), pattern.lstrip("/"), pattern.strip("/")}:
        return False
    lead = "" if not current or current.endswith("\n") else "\n"
    comment = "# gridgit: the Blackboard's history lives on its own ref (gridgit sync), not in the code branches\n"
    fileio.atomic_write(path, current + lead + comment + pattern + "\n")
    return True
