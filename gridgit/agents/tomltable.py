"""One table of a TOML file that gridgit owns (Codex's `[mcp_servers.gridgit]`): put it in, take it out, check it.

Python reads TOML (`tomllib`; `tomli` before 3.11) but does not write it, so the table is edited as text: its
header line and every line up to the next table that is not one of its own sub-tables.
Every other byte of the file stays as it was, so a set-up followed by a removal gives the
file back byte for byte (and deletes a file gridgit created). The result must read back
with gridgit's value in place, or nothing is written. A table of the same name that is not
gridgit's (OURS says so) is the user's: kept, and counts as installed, as in jsonconfig.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from gridgit.agents.jsonconfig import Report
from gridgit.errors import BadInput
from gridgit.store import fileio, tomlread

Table = tuple[str, ...]
_ANY_HEADER = re.compile(r"^\s*\[")


def _header(table: Table) -> re.Pattern[str]:
    """The header line of TABLE or of one of its sub-tables (`[a.b]`, `[ a . "b" ]`, `[a.b.env]`)."""
    keys = r"\s*\.\s*".join(f'(?:{re.escape(k)}|"{re.escape(k)}")' for k in table)
    return re.compile(rf"^\s*\[\s*{keys}\s*(?:\.[^\]]*)?\]\s*(?:#.*)?$")


def _toml(value: Any) -> str:
    """VALUE in TOML: strings and lists of them in JSON's syntax (TOML's too), a mapping as an inline table."""
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{_key(k)} = {_toml(v)}" for k, v in value.items()) + " }"
    return json.dumps(value)


def _key(key: str) -> str:
    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else json.dumps(key)


def render(table: Table, value: dict[str, Any]) -> list[str]:
    return [f"[{'.'.join(_key(k) for k in table)}]", *(f"{_key(key)} = {_toml(item)}" for key, item in value.items())]


def _read(path: Path) -> tuple[str, Any]:
    """(PATH's text, the TOML document); no file is an empty document, a file that is not TOML bad input."""
    tomllib = tomlread.reader()
    text = fileio.read_text(path) if path.exists() or path.is_symlink() else ""
    try:
        return text, tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise BadInput(f"{path}: not valid TOML ({exc}); nothing written") from None


def _lookup(doc: Any, table: Table) -> Any:
    for key in table:
        if not isinstance(doc, dict):
            return None
        doc = doc.get(key)
    return doc


def _span(lines: list[str], table: Table) -> tuple[int, int] | None:
    """The lines of TABLE and its sub-tables, (start, end), without the blank lines before the next table."""
    header = _header(table)
    start = next((i for i, line in enumerate(lines) if header.match(line)), None)
    if start is None:
        return None
    end = start + 1
    while end < len(lines) and not (_ANY_HEADER.match(lines[end]) and not header.match(lines[end])):
        end += 1
    while end > start + 1 and not lines[end - 1].strip():
        end -= 1
    return start, end


def _name(table: Table) -> str:
    return ".".join(table)


def install(path: Path, table: Table, value: dict[str, Any], ours: Callable[[Any], bool]) -> Report:
    """Put VALUE as TABLE into PATH (created when missing); a TABLE that is not OURS is kept."""
    text, doc = _read(path)
    current = _lookup(doc, table)
    if current is not None and not ours(current):
        return Report(str(path), installed=True, kept=[_name(table)])  # as jsonconfig: the user's value stands
    report = Report(str(path), installed=True)
    if current == value:
        return report
    lines = text.splitlines()
    span = _span(lines, table)
    if span is None and current is not None:
        raise BadInput(f"{path}: gridgit's `{_name(table)}` is not a [{_name(table)}] table; edit it by hand")
    if span is None:
        new = [*lines, *([""] if lines and lines[-1].strip() else []), *render(table, value)]
    else:
        new = [*lines[: span[0]], *render(table, value), *lines[span[1] :]]
    new_text = "\n".join(new) + "\n"
    if _lookup(tomlread.reader().loads(new_text), table) != value:
        raise BadInput(f"{path}: could not write `{_name(table)}` into it; edit it by hand")
    path.parent.mkdir(parents=True, exist_ok=True)
    fileio.atomic_write(path, new_text)
    report.changed = True
    return report


def remove(path: Path, table: Table, ours: Callable[[Any], bool]) -> Report:
    """Take TABLE out of PATH when it is OURS; a file left empty goes."""
    report = Report(str(path))
    if not path.exists():
        return report
    text, doc = _read(path)
    current = _lookup(doc, table)
    if not ours(current):
        report.kept = [_name(table)] if current is not None else []
        return report
    lines = text.splitlines()
    span = _span(lines, table)
    if span is None:
        raise BadInput(f"{path}: gridgit's `{_name(table)}` is not a [{_name(table)}] table; edit it by hand")
    left = [*lines[: span[0]], *lines[span[1] :]]
    while left and not left[-1].strip():
        left.pop()
    if any(line.strip() for line in left):
        fileio.atomic_write(path, "\n".join(left) + "\n")
    else:
        path.unlink()
        with contextlib.suppress(OSError):
            path.parent.rmdir()  # only when empty: nothing of the user's was there
    report.changed = True
    return report


def value_of(path: Path, table: Table) -> Any:
    """TABLE's value in PATH (None when the file or the table is not there)."""
    return _lookup(_read(path)[1], table)


def status(path: Path, table: Table, value: dict[str, Any], ours: Callable[[Any], bool]) -> Report:
    """Whether PATH holds TABLE as VALUE (a Report: installed, or missing / outdated / kept)."""
    _, doc = _read(path)
    current = _lookup(doc, table)
    report = Report(str(path))
    if current is None:
        report.missing.append(_name(table))
    elif current != value:
        (report.outdated if ours(current) else report.kept).append(_name(table))
    report.installed = not report.missing and not report.outdated
    return report
