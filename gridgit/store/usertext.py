"""User text on its way into .grid/ or onto a terminal: size limits, control characters, secrets.

`clean` is the one gate every user-given string passes before gridgit writes it (entries,
STATE values, claims, agent records, phase and mission names, event payloads): it refuses a
value over its field's limit (before any pattern runs over it, so a huge argument costs
nothing), drops control characters (NUL makes git call a file binary; ANSI escapes would
reach a person's terminal) and redacts secrets. `clean_obj` does the same for a JSON-like
value, with a depth limit. `check_path` is the gate of every path or glob handed over: a
control character there is refused, never dropped (a dropped one names another file).
`for_terminal` makes text read back from disk (where a hand edit may have put anything) safe
to print. docs/formats.md has the table of limits; docs/security.md what is checked where.
"""

from __future__ import annotations

import json

from gridgit.errors import BadInput
from gridgit.store import pathtext
from gridgit.store.lazyre import lazy
from gridgit.store.redaction import redact, redact_line, redact_obj

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

KIB = 1024
# Field -> the most UTF-8 bytes gridgit stores in it (docs/formats.md, "Size limits").
LIMITS: dict[str, int] = {
    "content": 64 * KIB,
    "message": 16 * KIB,
    "title": 200,
    "tag": 100,
    "topic": 64,
    "agent id": 64,
    "block": 200,
    "name": 200,
    "reason": 2 * KIB,
    "note": 4 * KIB,
    "path": 4 * KIB,
    "STATE value": 64 * KIB,
    "event payload": 64 * KIB,
    "query": 4 * KIB,
}
MAX_DEPTH = 32  # nesting of a JSON value (STATE update, event payload): deeper is refused

# An ANSI escape sequence (CSI, OSC, or a two-character one) goes whole; then any other C0/C1
# control character except tab and line feed (and the CR of a CRLF) is dropped.
_ANSI_RE = lazy(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-Z\\-_])")
_CONTROL_RE = lazy(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]|\r(?!\n)")
_CONTROL_ONE_LINE_RE = lazy(r"[\x00-\x08\x0a-\x1f\x7f-\x9f]")
# What a path may not hold: every C0 and C1 control character (tab, NUL and line feed too) and
# the Unicode line and paragraph separators, which str.splitlines() also breaks a line at.
_PATH_CONTROL_RE = lazy(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def limit(field: str) -> int:
    return LIMITS[field]


def check_size(value: str, field: str, label: str | None = None) -> str:
    """VALUE when its UTF-8 size is within FIELD's limit; a one-line error naming LABEL otherwise."""
    most = LIMITS[field]
    # A character is at most 4 bytes: skip the encode for the common short value.
    if len(value) * 4 > most and (size := len(value.encode("utf-8", "surrogatepass"))) > most:
        raise BadInput(f"{label or field} is {size} bytes; the limit is {_shown(most)}")
    return value


def _shown(limit: int) -> str:
    return f"{limit} ({limit // KIB} KiB)" if limit >= KIB and limit % KIB == 0 else str(limit)


def strip_controls(value: str, one_line: bool = False) -> str:
    """VALUE without ANSI escapes and control characters (tab, line feed and CRLF kept unless ONE_LINE)."""
    # What is kept (tabs, and line feeds unless ONE_LINE) aside, text with nothing unprintable
    # is left as it is without running or compiling a pattern: most multi-line content.
    if not value.isprintable() and not _kept_removed(value, one_line).isprintable():
        value = _ANSI_RE.sub("", value)
        value = (_CONTROL_ONE_LINE_RE if one_line else _CONTROL_RE).sub("", value)
        # Lone surrogates (bytes that were not UTF-8, e.g. in a file name) cannot be written
        # as UTF-8: each becomes `\\xNN`, as store.pathtext writes file names everywhere.
        value = pathtext.as_text(value)
    return value


def _kept_removed(value: str, one_line: bool) -> str:
    return value.replace("\t", "") if one_line else value.replace("\t", "").replace("\n", "")


def clean(value: str, field: str, label: str | None = None, one_line: bool = False) -> str:
    """VALUE as gridgit stores it in FIELD: within its limit, no control characters, secrets redacted."""
    return scrub(check_size(value, field, label), one_line)


def scrub(value: str, one_line: bool = False) -> str:
    """VALUE without control characters and secrets (text derived from values already within limits).

    ONE_LINE stays one line (redaction.redact_line).
    """
    return redact_line(strip_controls(value, True)) if one_line else redact(strip_controls(value))


def check_path(value: str, label: str = "path") -> str:
    """VALUE, a path or glob a user or agent handed over, when it is one line of printable text.

    The one gate of paths (CLI, MCP, Python API, agent hooks, the watcher, claims): a control
    character is refused, never dropped, since `a\\0b` dropped to `ab` names another file, and a
    line break in a path forges lines in CHECKPOINT.md, warnings and `conflicts list`. Bytes
    that are not UTF-8 (a real file's name) pass: store.pathtext writes them as `\\xNN`.
    """
    if not isinstance(value, str):
        raise BadInput(f"{label} must be text, not {type(value).__name__}")
    check_size(value, "path", label)
    if not value.isprintable() and (found := _PATH_CONTROL_RE.search(value)):
        shown = repr(found.group())[1:-1]
        raise BadInput(f"{label} {value[:100]!r} holds a control character ({shown}): a path must be one line of text")
    return value


def clean_name(name: str | None, label: str = "a name") -> str | None:
    """NAME (of a phase, of the mission) as stored: one line, limited, redacted; None when empty.

    A control character is refused, not dropped: a name is typed once and shown everywhere.
    """
    if not name:
        return None
    if strip_controls(name, one_line=True) != name:
        raise BadInput(f"{label} {name[:80]!r} holds a control character (a line break, an escape)")
    return clean(name.strip(), "name", label, one_line=True) or None


def clean_obj(obj: Any, field: str, label: str | None = None, whole: bool = True) -> Any:
    """A copy of OBJ (JSON-like) as gridgit stores it: depth limited, strings cleaned.

    WHOLE: FIELD's limit is on OBJ's JSON size (an event payload); else on each string in it
    (STATE values, whose lists may grow long).
    """
    label = label or field
    _check_depth(obj, label)
    if whole:
        try:
            size = len(json.dumps(obj, ensure_ascii=False, default=str).encode("utf-8", "surrogatepass"))
        except (TypeError, ValueError) as exc:
            raise BadInput(f"{label} is not valid JSON: {exc}") from None
        if size > LIMITS[field]:
            raise BadInput(f"{label} is {size} bytes; the limit is {_shown(LIMITS[field])}")
    return redact_obj(_strip_obj(obj, None if whole else field, label))


def _strip_obj(obj: Any, field: str | None, label: str) -> Any:
    if isinstance(obj, str):
        return strip_controls(check_size(obj, field, label) if field else obj)
    if isinstance(obj, dict):
        return {
            (_strip_obj(k, field, label) if isinstance(k, str) else k): _strip_obj(v, field, label)
            for k, v in obj.items()
        }
    if isinstance(obj, (list, tuple)):
        return [_strip_obj(v, field, label) for v in obj]
    return obj


def _check_depth(obj: Any, label: str) -> None:
    """Refuse a value nested deeper than MAX_DEPTH (iteratively: no recursion error on a deep one)."""
    stack: list[tuple[Any, int]] = [(obj, 0)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise BadInput(f"{label} is nested more than {MAX_DEPTH} levels deep")
        if isinstance(node, dict):
            stack += [(v, depth + 1) for v in node.values()]
        elif isinstance(node, (list, tuple)):
            stack += [(v, depth + 1) for v in node]


def for_terminal(text: str) -> str:
    """TEXT safe to print: secrets redacted, control characters shown as `\\xNN`, ANSI escapes too."""
    text = redact(text)
    if text.isprintable():
        return text
    return _CONTROL_RE.sub(lambda m: repr(m.group())[1:-1], text)
