"""File names as text: what a name that is not valid UTF-8 becomes in events and `.grid/` files.

git and the file system hand gridgit names as bytes; gridgit/store/gitcmd.py decodes them
with os.fsdecode, whose surrogate escapes keep the exact bytes (so the name still opens and
still works as a git argument) but cannot be written as UTF-8. Where a name becomes text
(an event's JSON, a scratchpad line) each such byte is written as `\\xNN`, as Python's repr
and git's own quoting do: readable, valid UTF-8, and the same bytes always give the same text,
so a conflict check matches the hook's name with the watcher's.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def as_text(name: str) -> str:
    """NAME with each byte that is not UTF-8 (a surrogate escape) written as `\\xNN`; other names unchanged."""
    try:
        name.encode("utf-8")
        return name
    except UnicodeEncodeError:
        pass
    try:
        raw = name.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a lone surrogate that no decoder made (from JSON): `\udXXX`
        return name.encode("utf-8", "backslashreplace").decode("utf-8")
    return raw.decode("utf-8", "backslashreplace")


def as_text_obj(value: Any) -> Any:
    """VALUE (JSON-like: dicts, lists, strings) with every string, keys included, passed through as_text."""
    if isinstance(value, str):
        return as_text(value)
    if isinstance(value, dict):
        return {as_text_obj(k): as_text_obj(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [as_text_obj(v) for v in value]
    return value
