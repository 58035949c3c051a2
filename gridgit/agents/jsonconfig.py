"""gridgit's part of a tool's JSON config file: merge it in, take it out, check it.

What gridgit owns is described as data: items it appends to lists (`ListItem`, e.g. one hook
group under `hooks.PostToolUse`) and values it sets where the user has none (`KeyValue`, e.g.
Claude Code's `statusLine`, an MCP server entry). Everything else in the file is the user's:
kept, in its order. Rules:

- Twice is once: a file that already holds gridgit's current part is not rewritten.
- The file is rendered in the style it was written in (indent, final newline), so a file
  in that style keeps its bytes wherever gridgit changes nothing.
- The first time gridgit changes a file, its original bytes are kept in the work tree's git
  directory (machine-local); `remove` writes them back when what is left equals them, so a
  set-up followed by a remove gives the original file back byte for byte. A file gridgit
  created is deleted again, with the folders it emptied.
- A file that is not a JSON object is an error naming it; nothing is written.
"""

from __future__ import annotations

import contextlib
import copy
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gridgit.errors import BadInput, GridError
from gridgit.store import fileio

_ABSENT = "gridgit: this file did not exist\n"


@dataclass(frozen=True)
class ListItem:
    """ITEM belongs in the list at PATH (created when missing); OURS recognises any version of it."""

    path: tuple[str, ...]
    item: Any
    ours: Callable[[Any], bool]


@dataclass(frozen=True)
class KeyValue:
    """VALUE belongs at PATH unless the user set something there; OURS recognises gridgit's value.

    An OURS that never matches makes a value gridgit adds but never takes out (Cursor's `version`).
    """

    path: tuple[str, ...]
    value: Any
    ours: Callable[[Any], bool]


Part = ListItem | KeyValue


@dataclass
class Report:
    """What a set-up, removal or check found: the file, its state, what changed."""

    path: str
    installed: bool = False  # every part of gridgit's is there and current
    outdated: list[str] = field(default_factory=list)  # gridgit parts that differ from this version's
    missing: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)  # places where the user's own value stays
    changed: bool = False
    warnings: list[str] = field(default_factory=list)  # what the person should know (tools running each other's hooks)
    notes: list[str] = field(default_factory=list)  # what gridgit did beside the file (Codex: its hooks trusted)
    steps: list[str] = field(default_factory=list)  # what the person must still do before the tool runs the hooks

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "installed": self.installed,
            "outdated": self.outdated,
            "missing": self.missing,
            "kept": self.kept,
            "changed": self.changed,
            "warnings": self.warnings,
            "notes": self.notes,
            "steps": self.steps,
        }


def _node(doc: dict[str, Any], path: tuple[str, ...], create: bool) -> Any:
    """The value at PATH in DOC (None when missing); CREATE makes the mappings and the list on the way."""
    node: Any = doc
    for depth, key in enumerate(path):
        if not isinstance(node, dict):
            return None
        if key not in node:
            if not create:
                return None
            node[key] = [] if depth == len(path) - 1 else {}
        node = node[key]
    return node


def _name(path: tuple[str, ...]) -> str:
    return ".".join(path)


def merged(doc: dict[str, Any], parts: list[Part]) -> tuple[dict[str, Any], list[str]]:
    """DOC with PARTS in it (a copy), and the places where the user's own value was kept."""
    out = copy.deepcopy(doc)
    kept: list[str] = []
    for part in parts:
        if isinstance(part, ListItem):
            items = _node(out, part.path, create=True)
            if not isinstance(items, list):
                raise BadInput(f"`{_name(part.path)}` must be a list to add gridgit's entry")
            if part.item not in items:
                items[:] = [i for i in items if not part.ours(i)]
                items.append(copy.deepcopy(part.item))
        else:
            parent: Any = out
            for key in part.path[:-1]:
                parent = parent.setdefault(key, {}) if isinstance(parent, dict) else None
            if not isinstance(parent, dict):
                raise BadInput(f"`{_name(part.path[:-1])}` must be a mapping to add gridgit's entry")
            key = part.path[-1]
            if key not in parent or part.ours(parent[key]):
                parent[key] = copy.deepcopy(part.value)
            elif parent[key] != part.value:
                kept.append(_name(part.path))
    return out, kept


def stripped(doc: dict[str, Any], parts: list[Part], before: dict[str, Any] | None = None) -> dict[str, Any]:
    """DOC without gridgit's parts (a copy); a list or mapping emptied by that goes too, unless
    BEFORE (the file before gridgit changed it) had it."""
    out = copy.deepcopy(doc)
    for part in parts:
        path = part.path
        if isinstance(part, ListItem):
            items = _node(out, path, create=False)
            if not isinstance(items, list) or not any(part.ours(i) for i in items):
                continue
            items[:] = [i for i in items if not part.ours(i)]
            emptied = not items
        else:
            parent = _node(out, path[:-1], create=False)
            if not isinstance(parent, dict) or path[-1] not in parent or not part.ours(parent[path[-1]]):
                continue
            del parent[path[-1]]
            emptied, path = not parent, path[:-1]
        # Containers that only held gridgit's part go with it, up to the top.
        while emptied and path and (before is None or _node(before, path, create=False) is None):
            parent = _node(out, path[:-1], create=False)
            if not isinstance(parent, dict):
                break
            parent.pop(path[-1], None)
            emptied, path = not parent, path[:-1]
    return out


def check(doc: dict[str, Any], parts: list[Part]) -> Report:
    """Which of PARTS DOC holds as this gridgit writes them (a Report without a path)."""
    report = Report("")
    for part in parts:
        name = _name(part.path)
        if isinstance(part, ListItem):
            items = _node(doc, part.path, create=False)
            items = items if isinstance(items, list) else []
            if part.item in items:
                continue
            (report.outdated if any(part.ours(i) for i in items) else report.missing).append(name)
        else:
            parent = _node(doc, part.path[:-1], create=False)
            if not isinstance(parent, dict) or part.path[-1] not in parent:
                report.missing.append(name)
            elif parent[part.path[-1]] != part.value:
                (report.outdated if part.ours(parent[part.path[-1]]) else report.kept).append(name)
    report.installed = not report.outdated and not report.missing
    return report


# ---- the file --------------------------------------------------------------------------------


@dataclass
class Style:
    """How a JSON file was written: indentation and whether it ends with a newline."""

    indent: int | str | None = 2
    newline: bool = True


def style_of(text: str) -> Style:
    first = re.search(r"\n([ \t]+)\S", text)
    if first is None:
        return Style(None if text.strip() and "\n" not in text.strip() else 2, text.endswith("\n") or not text)
    ws = first.group(1)
    return Style(ws if "\t" in ws else len(ws), text.endswith("\n"))


def render(doc: dict[str, Any], style: Style) -> str:
    text = json.dumps(doc, indent=style.indent, ensure_ascii=False)
    return text + ("\n" if style.newline else "")


def load(path: Path) -> tuple[dict[str, Any] | None, str]:
    """(the JSON object in PATH or None when there is no file, its text); anything else is bad input."""
    if not path.exists() and not path.is_symlink():
        return None, ""
    if path.is_dir():
        raise BadInput(f"{path}: a directory, not a JSON file")
    text = fileio.read_text(path)
    if not text.strip():
        return {}, text
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise BadInput(
            f"{path} line {exc.lineno} column {exc.colno}: not valid JSON ({exc.msg}); nothing written"
        ) from None
    if not isinstance(data, dict):
        raise BadInput(f"{path}: expected a JSON object, not {type(data).__name__}; nothing written")
    return data, text


def _original(backup: Path) -> str | None:
    try:
        return fileio.read_text(backup)
    except GridError:
        return None


def install(path: Path, parts: list[Part], backup: Path) -> Report:
    """Merge PARTS into PATH (creating it); keeps PATH's first bytes at BACKUP for `remove`."""
    doc, text = load(path)
    new, kept = merged(doc or {}, parts)
    report = Report(str(path), installed=True, kept=kept)
    if doc is not None and new == doc:
        return report
    if _original(backup) is None:
        backup.parent.mkdir(parents=True, exist_ok=True)
        fileio.atomic_write(backup, text if doc is not None else _ABSENT, durable=False)
    path.parent.mkdir(parents=True, exist_ok=True)
    fileio.atomic_write(path, render(new, style_of(text)))
    report.changed = True
    return report


def remove(path: Path, parts: list[Part], backup: Path) -> Report:
    """Take PARTS out of PATH: the original bytes when nothing else changed, the file gone if gridgit made it."""
    doc, text = load(path)
    report = Report(str(path))
    original = _original(backup)
    if doc is None:
        with contextlib.suppress(FileNotFoundError):
            backup.unlink()
        return report
    before = _json_object(original) if original not in (None, _ABSENT) else None
    left = stripped(doc, parts, before)
    # gridgit made the file: what is left of it is what gridgit put there (Cursor's `version`).
    own = {p.path[0]: p.value for p in parts if isinstance(p, KeyValue) and len(p.path) == 1}
    if original == _ABSENT and all(own.get(k, object()) == v for k, v in left.items()):
        path.unlink()
        prune(path.parent)
        report.changed = True
    elif before is not None and before == left and original is not None:
        if original != text:
            fileio.atomic_write(path, original)
            report.changed = True
    else:
        # Another of gridgit's parts (an MCP server entry, say) or the user's edits are still there:
        # the original stays kept for the removal that leaves the file as it was.
        if left != doc:
            fileio.atomic_write(path, render(left, style_of(text)))
            report.changed = True
        return report
    with contextlib.suppress(FileNotFoundError):
        backup.unlink()
    return report


def prune(folder: Path) -> None:
    """Remove FOLDER and the folders above it while they are empty (gridgit's file was all they held).

    It stops at the first folder that holds anything: at the latest the work tree's, which holds `.git`.
    """
    for each in (folder, *folder.parents):
        try:
            each.rmdir()
        except OSError:
            return


def _json_object(text: str | None) -> dict[str, Any] | None:
    try:
        data = json.loads(text) if text and text.strip() else {}
    except ValueError:
        return None
    return data if isinstance(data, dict) else None


def status(path: Path, parts: list[Part]) -> Report:
    """Whether PATH holds PARTS as this gridgit writes them (bad JSON is bad input)."""
    doc, _ = load(path)
    report = check(doc or {}, parts)
    report.path = str(path)
    return report


def backup_path(git_dir: Path, root: Path, path: Path) -> Path:
    """Where PATH's original bytes are kept: the work tree's git dir, named after PATH's place in ROOT."""
    try:
        rel = path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        rel = path.resolve().as_posix().lstrip("/")
    return git_dir / "gridgit" / "setup" / (rel.replace("/", "%") + ".orig")
