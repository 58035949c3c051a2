""".grid/.gitignore: which Blackboard files are machine-local (locks, cursors, the daemon, the event log).

The file is gridgit's own, rewritten from gridgit's list (`own`), and what the snapshot leaves out
is decided by that list, never by the file: `.grid/.gitignore` is itself part of the shared history,
so a peer's version of it (or a line typed into it) would take the Blackboard's files out of every
clone's next snapshot (issue 39). A user's own extra lines move to a machine-local file,
`<git common dir>/gridgit/grid-exclude`, and keep only files gridgit does not know out of this
clone's snapshots (`BOARD_NAMES`): nothing can drop a Blackboard file from the history.
"""

from __future__ import annotations

import fnmatch

from gridgit.store import fileio
from gridgit.store.layout import Layout, read_template

# The .gitignore lines for the event log: all of it while it is machine-local (the default),
# only latest.json and the cursors when config.json says `events.commit: true`.
_LOCAL_EVENTS = "events/\n"
_COMMITTED_EVENTS = "events/latest.json\nevents/cursors/\n"
# What gridgit keeps in .grid/ (the first part of a path): a user's own exclude never applies to them.
BOARD_NAMES = frozenset({
    "STATE.md", "LEARNINGS.md", "CHECKPOINT.md", "config.json", "budget.json", "claims.json", ".gitignore",
    "phases", "messages", "memory", "debug", "events", "clones",
})  # fmt: skip
EXTRA = "grid-exclude"  # in <git common dir>/gridgit/: the user's own lines, machine-local


def commits_events(layout: Layout) -> bool:
    """config.json's `events.commit`, read so that a broken config.json (damage the snapshot keeps out) reads as
    false instead of stopping the snapshot that keeps it out."""
    from gridgit.errors import GridError
    from gridgit.store import config

    try:
        return bool(config.value(layout, "events.commit"))
    except GridError:
        return False


def _event_lines(text: str, commit_events: bool) -> str:
    old, new = (_LOCAL_EVENTS, _COMMITTED_EVENTS) if commit_events else (_COMMITTED_EVENTS, _LOCAL_EVENTS)
    return text.replace(old, new)


def text(commit_events: bool) -> str:
    """.grid/.gitignore: machine-local files; the event log itself only when it is not committed."""
    return _event_lines(read_template("gitignore"), commit_events)


def patterns(commit_events: bool) -> list[str]:
    """gridgit's own patterns of machine-local files (the lines of `text`)."""
    return [line for line in text(commit_events).splitlines() if line and not line.startswith("#")]


def matches(path: str, pattern: str) -> bool:
    """Whether PATH (inside .grid/, posix) is what the .gitignore line PATTERN names (no `!`, no `**`)."""
    folder = pattern.endswith("/")
    body = pattern.strip("/")
    parts = path.split("/")
    if "/" not in body and not pattern.startswith("/"):  # a name at any depth
        candidates = parts[:-1] if folder else parts
        return any(fnmatch.fnmatchcase(part, body) for part in candidates)
    prefix = parts if not folder else parts[:-1]  # anchored at .grid/
    depth = body.count("/") + 1
    return (
        len(prefix) >= depth and fnmatch.fnmatchcase("/".join(prefix[:depth]), body) and (folder or len(parts) == depth)
    )


def machine_local(path: str, own: list[str], extra: list[str]) -> bool:
    """Whether PATH stays out of the shared history: gridgit's OWN patterns, or the user's EXTRA ones for a
    file gridgit does not know."""
    if any(matches(path, p) for p in own):
        return True
    return path.split("/", 1)[0] not in BOARD_NAMES and any(matches(path, p) for p in extra)


def extra(layout: Layout) -> list[str]:
    """The user's own lines, kept machine-local."""
    try:
        lines = (layout.git_common / "gridgit" / EXTRA).read_text(encoding="utf-8").splitlines()
    except OSError:
        return []
    return [line.strip() for line in lines if line.strip() and not line.startswith(("#", "!"))]


def foreign(layout: Layout, commit_events: bool) -> list[str] | None:
    """The lines of .grid/.gitignore gridgit did not write (None when it is gridgit's text, or missing)."""
    path = layout.grid / ".gitignore"
    if not path.is_file() or path.is_symlink():
        return None
    current = fileio.read_text(path)
    if current == text(commit_events):
        return None
    known = set(patterns(True)) | set(patterns(False)) | set(read_template("gitignore").splitlines())
    return [line for line in current.splitlines() if line.strip() and line not in known]


def own(layout: Layout, commit_events: bool) -> bool:
    """Make .grid/.gitignore gridgit's text (the event lines as `events.commit` says); True when it changed.

    Lines gridgit did not write move to the machine-local exclude (they apply to this clone's files
    gridgit does not know). A missing file is left missing: `gridgit doctor` names it.
    """
    lines = foreign(layout, commit_events)
    if lines is None:
        return False
    if lines:
        kept = layout.git_common / "gridgit" / EXTRA
        kept.parent.mkdir(parents=True, exist_ok=True)
        have = extra(layout)
        added = [line for line in lines if line.strip() not in have]
        if added:
            fileio.atomic_write(kept, "".join(f"{line}\n" for line in [*have, *added]), durable=False)
    fileio.atomic_write(layout.grid / ".gitignore", text(commit_events))
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
