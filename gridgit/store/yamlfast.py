"""The YAML gridgit writes, read and written without PyYAML: exact, or None so PyYAML decides.

Every write parses a frontmatter (a scratchpad's index lists every entry id five times)
and dumps it again; PyYAML spends milliseconds there even with libyaml, and importing it
costs a git hook or the status line 15-20 ms. This module covers the subset
`frontmatter.dump_yaml` produces: a block mapping of str keys whose values are str, int,
bool, None, finite floats, mappings, lists of scalars (one line: `[1, 5]`) and lists of
mappings or scalars (block style); `yamlscalar` spells the scalars.

`dump` gives the bytes PyYAML would (libyaml's emitter with frontmatter's settings) or
None when it is not certain. `load` returns a value only when `dump` of it gives the text
back exactly, so a misreading can only cost the fast path, never a wrong value: anything
hand-edited, odd or malformed goes to PyYAML, with its errors and line numbers.
"""

from __future__ import annotations

from gridgit.store.yamlscalar import (
    MAX_INT,
    TYPED_FIRST,
    Unsupported,
    read_plain,
    read_quoted,
    write_scalar,
    write_str,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

MAX_DEPTH = 32  # below frontmatter.MAX_DEPTH: deeper data goes to PyYAML, which refuses it
MAX_KEY = 100  # libyaml writes `? key` for a key of 128 bytes or more
MAX_FLOW = 100_000  # characters of one `[...]` line

_key_cache: dict[str, str] = {}
_CACHE_SIZE = 4096  # a process writes the same few dozen keys again and again


def _key(key: Any) -> str:
    if type(key) is not str:
        raise Unsupported
    written = _key_cache.get(key)
    if written is None:
        written = write_str(key, False)  # first: it refuses what `encode` cannot take (surrogates)
        if not key or len(key.encode()) > MAX_KEY:
            raise Unsupported
        if len(_key_cache) < _CACHE_SIZE:
            _key_cache[key] = written
    return written


def _inline(value: Any) -> str | None:
    """VALUE written after `key: ` or `- ` when it fits on that line, else None."""
    kind = type(value)
    if kind is dict:
        return "{}" if not value else None
    if kind is not list:
        return write_scalar(value, False)
    if not value:
        return "[]"
    kinds = set(map(type, value))
    if kinds == {int} and min(value) > -MAX_INT and max(value) < MAX_INT:
        line = "[" + ", ".join(map(str, value)) + "]"  # an index's ids: no call per item
    elif dict in kinds or list in kinds:
        return None
    else:
        line = "[" + ", ".join([write_scalar(item, True) for item in value]) + "]"
    if len(line) > MAX_FLOW:
        raise Unsupported
    return line


def _mapping(data: dict[Any, Any], indent: str, first: str, out: list[str], depth: int) -> None:
    """Lines of a block mapping at INDENT; the first key goes after FIRST (a sequence's `- `)."""
    if depth > MAX_DEPTH:
        raise Unsupported
    lead = first
    for key, value in data.items():
        head = lead + _key(key) + ":"
        lead = indent
        if type(value) is str:  # most values: one call, not three
            out.append(head + " " + write_str(value, False))
            continue
        inline = _inline(value)
        if inline is not None:
            out.append(head + " " + inline)
        elif type(value) is dict:
            out.append(head)
            _mapping(value, indent + "  ", indent + "  ", out, depth + 1)
        else:
            out.append(head)
            _sequence(value, indent, out, depth + 1)  # PyYAML indents no block list under a key


def _sequence(items: list[Any], indent: str, out: list[str], depth: int) -> None:
    if depth > MAX_DEPTH:
        raise Unsupported
    for item in items:
        if type(item) is dict and item:
            _mapping(item, indent + "  ", indent + "- ", out, depth + 1)
        elif type(item) is list:
            raise Unsupported  # a list in a list: PyYAML's `- - a`, left to it
        else:
            out.append(indent + "- " + ("{}" if type(item) is dict else write_scalar(item, False)))


def dump(data: Any) -> str | None:
    """`frontmatter.dump_yaml(DATA)` without PyYAML, or None when not certain to match it."""
    if type(data) is not dict or not data:
        return None
    out: list[str] = []
    try:
        _mapping(data, "", "", out, 0)
    except (Unsupported, RecursionError):
        return None
    out.append("")
    return "\n".join(out)


def _flow(text: str) -> list[Any]:
    """The items of a one-line `[...]` list."""
    if not text.endswith("]"):
        raise Unsupported
    inner = text[1:-1]
    if not inner:
        return []
    if "'" not in inner:
        parts = inner.split(", ")
        try:  # an index's ids, at C speed; `09` or `٣` are strs, as the join finds
            numbers = list(map(int, parts))
            if ", ".join(map(str, numbers)) == inner:
                return numbers
        except ValueError:
            pass
        return [read_plain(item) for item in parts]
    items: list[Any] = []
    at = 0
    while True:
        if inner.startswith("'", at):
            item, at = read_quoted(inner, at)
            items.append(item)
        else:
            end = inner.find(", ", at)
            end = len(inner) if end == -1 else end
            items.append(read_plain(inner[at:end]))
            at = end
        if at == len(inner):
            return items
        if not inner.startswith(", ", at):
            raise Unsupported
        at += 2


_VALUE_FIRST = TYPED_FIRST | frozenset("'[{")


def _value(text: str) -> Any:
    """A value written on its key's (or its `- `) line."""
    first = text[:1]
    if first == "'":
        value, end = read_quoted(text, 0)
        if end != len(text):
            raise Unsupported
        return value
    if first == "[":
        return _flow(text)
    if text == "{}":
        return {}
    return read_plain(text)


class _Reader:
    """Reads the lines of dump's output back; any surprise raises Unsupported."""

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self.indents = [len(line) - len(line.lstrip(" ")) for line in lines]
        self.at = 0

    def mapping(self, indent: int, depth: int) -> dict[str, Any]:
        if depth > MAX_DEPTH:
            raise Unsupported
        lines, indents, count = self.lines, self.indents, len(self.lines)
        at = self.at
        data: dict[str, Any] = {}
        while at < count:
            width = indents[at]
            if width != indent:
                if width < indent:
                    break
                raise Unsupported
            line = lines[at]
            first = line[width]  # an empty line: IndexError, which load turns into None
            if first == "-" and line.startswith("- ", width):
                break
            if first == "'":
                key, colon = read_quoted(line, width)
            else:
                colon = line.find(": ", width)
                if colon == -1:
                    colon = len(line) - 1
                key = line[width:colon]
            at += 1
            if line.startswith(": ", colon):
                text = line[colon + 2 :]
                # A plain str (most values) without a call; the re-dump checks that it was one.
                data[key] = _value(text) if text[:1] in _VALUE_FIRST else text
            elif colon == len(line) - 1 and line.endswith(":"):
                self.at = at
                data[key] = self.block(indent, depth + 1)
                at = self.at
            else:
                raise Unsupported
        self.at = at
        return data

    def block(self, indent: int, depth: int) -> Any:
        """The value of a key (at INDENT) that ends its line: a nested mapping or a block list."""
        at = self.at
        if at == len(self.lines):
            raise Unsupported
        if self.indents[at] == indent and self.lines[at].startswith("- ", indent):
            return self.sequence(indent, depth)
        return self.mapping(indent + 2, depth)

    def sequence(self, indent: int, depth: int) -> list[Any]:
        if depth > MAX_DEPTH:
            raise Unsupported
        lines, indents = self.lines, self.indents
        items: list[Any] = []
        while self.at < len(lines):
            at = self.at
            line = lines[at]
            if indents[at] != indent or not line.startswith("- ", indent):
                break
            item = line[indent + 2 :]
            if _is_mapping_item(item):
                # The mapping's first key shares the `- ` line; read it as if on a line of its own.
                lines[at] = " " * (indent + 2) + item
                indents[at] = indent + 2
                items.append(self.mapping(indent + 2, depth + 1))
            else:
                self.at = at + 1
                items.append(_value(item))
        return items


def _is_mapping_item(item: str) -> bool:
    """Whether a `- ` line's text starts a mapping (`key: value`) rather than being a scalar."""
    if item.startswith("'"):
        end = read_quoted(item, 0)[1]
        return end < len(item)
    if item.startswith("["):
        raise Unsupported
    return ": " in item or item.endswith(":")


_comments_seen: set[str] = set()  # a file type's header is checked once per process


def _comments_ok(comments: str) -> bool:
    """Whether PyYAML reads COMMENTS (whole `#` lines) as the comments they look like: no line
    break of YAML's own inside (CR, U+0085, U+2028/9 would start content) and no character its
    reader refuses."""
    if comments in _comments_seen:
        return True
    ok = all(
        " " <= c <= "~"
        or c in "\t\n"
        or ("\xa0" <= c <= "\ufffd" and not ("\ud800" <= c <= "\udfff") and c not in "\u2028\u2029")
        or c >= "\U00010000"
        for c in comments
    )
    if ok and len(_comments_seen) < 16:
        _comments_seen.add(comments)
    return ok


def load(text: str) -> Any:
    """The mapping TEXT holds when it is exactly what `dump` writes (after `#` comment lines), else None."""
    start = 0
    while text.startswith("#", start):
        start = text.find("\n", start) + 1
        if start == 0:
            return None
    if start and not _comments_ok(text[:start]):
        return None
    canonical = text[start:]
    lines = canonical.split("\n")
    if lines[-1] != "" or len(lines) < 2:
        return None
    del lines[-1]
    reader = _Reader(lines)
    try:
        data = reader.mapping(0, 0)
    except (Unsupported, ValueError, IndexError, RecursionError):
        return None
    if reader.at != len(lines) or dump(data) != canonical:
        return None
    return data
