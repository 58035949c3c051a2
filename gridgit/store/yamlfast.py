"""The YAML gridgit writes, read and written without PyYAML: exact, or None so PyYAML decides.

Every write parses a frontmatter (a scratchpad's index lists every entry id five times)
and dumps it again; PyYAML spends milliseconds there even with libyaml, and importing it
costs a git hook or the status line 15-20 ms. This module covers the subset
`frontmatter.dump_yaml` produces: a block mapping of str keys whose values are str, int,
bool, None, finite floats, mappings, lists of scalars (one line: `[1, 5]`) and lists of
mappings or scalars (block style).

`dump` gives the bytes PyYAML would (libyaml's emitter with frontmatter's settings) or
None when it is not certain. `load` returns a value only when `dump` of it gives the text
back exactly, so a misreading can only cost the fast path, never a wrong value: anything
hand-edited, odd or malformed goes to PyYAML, with its errors and line numbers.
"""

from __future__ import annotations

import re
from typing import Any

from gridgit.store.lazyre import lazy

# PyYAML's implicit resolvers (yaml/resolver.py, YAML 1.1), as its dumper uses them: a plain
# scalar they match would load as another type, so a str they match is single-quoted.
# PyYAML tries a resolver only on strings whose first character it is filed under. Words:
# bool, null, merge (`<<`), value (`=`) and yaml (`!`, `&`, `*`), an exact set.
_WORD_FIRST = frozenset("yYnNtTfFoO~<=!&*")
_WORDS = frozenset(
    {"yes", "Yes", "YES", "no", "No", "NO", "true", "True", "TRUE", "false", "False", "FALSE", "on", "On", "ON"}
    | {"off", "Off", "OFF", "~", "null", "Null", "NULL", "<<", "=", "!", "&", "*"}
)
# Numbers: int, float and timestamp, whose patterns use only these characters.
_NUMBER_FIRST = frozenset("-+.0123456789")
_NUMBER_CHARS = "0123456789_.:+- \tabcdefABCDEFxTtZiInN"
# Their patterns, compiled on first use (about a millisecond): a process whose numbers-as-strings
# are only gridgit's timestamps and versions never compiles them.
_NUMBER = lazy(
    r"""^(?:
    [-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?
    |\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?
    |[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*
    |[-+]?\.(?:inf|Inf|INF)
    |\.(?:nan|NaN|NAN)
    |[-+]?0b[0-1_]+
    |[-+]?0[0-7_]+
    |[-+]?(?:0|[1-9][0-9_]*)
    |[-+]?0x[0-9a-fA-F_]+
    |[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+
    |[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]
    |[0-9][0-9][0-9][0-9]-[0-9][0-9]?-[0-9][0-9]?
     (?:[Tt]|[\ \t]+)[0-9][0-9]?
     :[0-9][0-9]:[0-9][0-9](?:\.[0-9]*)?
     (?:[\ \t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?
    )$""",
    re.X,
)


def _resolves(text: str) -> bool:
    """Whether PyYAML would read TEXT, written plain, as anything but a str (TEXT: printable, not empty)."""
    first = text[0]
    if first in _WORD_FIRST:
        return text in _WORDS
    if first not in _NUMBER_FIRST or text.strip(_NUMBER_CHARS):
        return False  # `01-foundation`, `-a`: a character no number or timestamp has
    if _is_timestamp(text) or _is_decimal(text):
        return True  # gridgit's own timestamps and versions, without compiling the pattern
    return _NUMBER.match(text) is not None


def _is_timestamp(text: str) -> bool:
    """`2026-01-24T14:30:00Z`, the one form gridgit writes (the timestamp pattern matches it)."""
    return (
        len(text) == 20
        and text[4] + text[7] + text[10] + text[13] + text[16] + text[19] == "--T::Z"
        and (text[:4] + text[5:7] + text[8:10] + text[11:13] + text[14:16] + text[17:19]).isdigit()
        and text.isascii()
    )


def _is_decimal(text: str) -> bool:
    """`1.0`: digits, a dot, digits (the float pattern matches it)."""
    whole, dot, fraction = text.partition(".")
    return bool(dot) and whole.isdigit() and fraction.isdigit() and text.isascii()


def _printable(text: str) -> bool:
    """Whether libyaml writes TEXT as it is, with no escape and no line break: printable ASCII
    and the BMP letters it prints with allow_unicode. Left out (PyYAML handles them): control
    characters, tabs, line breaks (U+0085, U+2028/9), U+00A0, surrogates, U+E000 and up (BOM,
    specials) and astral characters (libyaml escapes those). No regex: a character class this
    wide takes Python 6 ms to compile."""
    if text.isascii():
        return text.isprintable()
    return all(" " <= c <= "~" or ("\u00a1" <= c <= "\ud7ff" and c != "\u2028" and c != "\u2029") for c in text)


# What libyaml's analysis of a one-line scalar finds against writing it plain: an indicator
# first, `: ` or ` #` inside, a document marker, a leading or trailing space; and in a flow
# list (`[a, b]`), any flow indicator at all.
_INDICATORS = frozenset("#,[]{}&*!|>'\"%@`")
_FLOW_INDICATORS = frozenset(",?[]{}:")


def _plain_allowed(text: str, flow: bool) -> bool:
    first = text[0]
    return not (
        first in _INDICATORS
        or (first in "-?:" and text[1:2] in ("", " "))
        or text.startswith(("---", "..."))
        or ": " in text
        or text.endswith(":")
        or " #" in text
        or first == " "
        or text.endswith(" ")
        or (flow and not _FLOW_INDICATORS.isdisjoint(text))
    )


MAX_DEPTH = 32  # below frontmatter.MAX_DEPTH: deeper data goes to PyYAML, which refuses it
MAX_STRING = 4096  # libyaml folds a line past its width (1e6): stay far below it
MAX_KEY = 100  # libyaml writes `? key` for a key of 128 bytes or more
MAX_INT = 10**18
MAX_FLOW = 100_000  # characters of one `[...]` line


class _Unsupported(Exception):
    """Raised inside dump and load when the fast path is not certain; both return None."""


_block_cache: dict[str, str] = {}
_flow_cache: dict[str, str] = {}
_key_cache: dict[str, str] = {}
_CACHE_SIZE = 4096  # keys, topics and agent ids repeat on every write of a process


def _string(text: str, flow: bool) -> str:
    cache = _flow_cache if flow else _block_cache
    found = cache.get(text)
    if found is not None:
        return found
    if len(text) > MAX_STRING or not _printable(text):
        raise _Unsupported
    plain = text != "" and _plain_allowed(text, flow) and not _resolves(text)
    written = text if plain else "'" + text.replace("'", "''") + "'"
    if len(text) <= MAX_KEY and len(cache) < _CACHE_SIZE:
        cache[text] = written
    return written


def _scalar(value: Any, flow: bool) -> str:
    kind = type(value)
    if kind is str:
        return _string(value, flow)
    if kind is int:
        if -MAX_INT < value < MAX_INT:
            return str(value)
        raise _Unsupported
    if kind is bool:
        return "true" if value else "false"
    if value is None:
        return "null"
    if kind is float:
        written = repr(value)
        if _is_decimal(written.removeprefix("-")):  # not 1e+17, inf or nan: PyYAML rewrites those
            return written
    raise _Unsupported


def _key(key: Any) -> str:
    if type(key) is not str:
        raise _Unsupported
    written = _key_cache.get(key)
    if written is None:
        written = _string(key, False)  # first: it refuses what `encode` cannot take (surrogates)
        if not key or len(key.encode()) > MAX_KEY:
            raise _Unsupported
        if len(_key_cache) < _CACHE_SIZE:
            _key_cache[key] = written
    return written


def _inline(value: Any) -> str | None:
    """VALUE written after `key: ` or `- ` when it fits on that line, else None."""
    kind = type(value)
    if kind is dict:
        return "{}" if not value else None
    if kind is not list:
        return _scalar(value, False)
    if not value:
        return "[]"
    kinds = set(map(type, value))
    if kinds == {int} and min(value) > -MAX_INT and max(value) < MAX_INT:
        line = "[" + ", ".join(map(str, value)) + "]"  # an index's ids: no call per item
    elif dict in kinds or list in kinds:
        return None
    else:
        line = "[" + ", ".join([_scalar(item, True) for item in value]) + "]"
    if len(line) > MAX_FLOW:
        raise _Unsupported
    return line


def _mapping(data: dict[Any, Any], indent: str, first: str, out: list[str], depth: int) -> None:
    """Lines of a block mapping at INDENT; the first key goes after FIRST (a sequence's `- `)."""
    if depth > MAX_DEPTH:
        raise _Unsupported
    lead = first
    for key, value in data.items():
        head = lead + _key(key) + ":"
        lead = indent
        if type(value) is str:  # most values: one call, not three
            out.append(head + " " + _string(value, False))
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
        raise _Unsupported
    for item in items:
        if type(item) is dict and item:
            _mapping(item, indent + "  ", indent + "- ", out, depth + 1)
        elif type(item) is list:
            raise _Unsupported  # a list in a list: PyYAML's `- - a`, left to it
        else:
            out.append(indent + "- " + ("{}" if type(item) is dict else _scalar(item, False)))


def dump(data: Any) -> str | None:
    """`frontmatter.dump_yaml(DATA)` without PyYAML, or None when not certain to match it."""
    if type(data) is not dict or not data:
        return None
    out: list[str] = []
    try:
        _mapping(data, "", "", out, 0)
    except (_Unsupported, RecursionError):
        return None
    out.append("")
    return "\n".join(out)


def _quoted(text: str, start: int) -> tuple[str, int]:
    """The single-quoted scalar at TEXT[START] and the index after its closing quote."""
    at = start + 1
    while True:
        end = text.find("'", at)
        if end == -1:
            raise _Unsupported
        if text.startswith("'", end + 1):
            at = end + 2
            continue
        return text[start + 1 : end].replace("''", "'"), end + 1


_TYPED_FIRST = frozenset("-0123456789ntf")  # what null, true, false and numbers start with


def _plain(text: str) -> Any:
    """A plain scalar as dump writes one; any other spelling is left to the re-dump to refuse."""
    if text[:1] not in _TYPED_FIRST:
        return text
    if text == "null":
        return None
    if text == "true":
        return True
    if text == "false":
        return False
    digits = text.removeprefix("-")
    if digits.isdigit() and digits.isascii() and (digits == "0" or digits[0] != "0"):
        return int(text)  # `09` is a str to PyYAML (not octal, not decimal)
    if _is_decimal(digits):
        return float(text)
    return text


def _flow(text: str) -> list[Any]:
    """The items of a one-line `[...]` list."""
    if not text.endswith("]"):
        raise _Unsupported
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
        return [_plain(item) for item in parts]
    items: list[Any] = []
    at = 0
    while True:
        if inner.startswith("'", at):
            item, at = _quoted(inner, at)
            items.append(item)
        else:
            end = inner.find(", ", at)
            end = len(inner) if end == -1 else end
            items.append(_plain(inner[at:end]))
            at = end
        if at == len(inner):
            return items
        if not inner.startswith(", ", at):
            raise _Unsupported
        at += 2


_VALUE_FIRST = _TYPED_FIRST | frozenset("'[{")


def _value(text: str) -> Any:
    """A value written on its key's (or its `- `) line."""
    first = text[:1]
    if first == "'":
        value, end = _quoted(text, 0)
        if end != len(text):
            raise _Unsupported
        return value
    if first == "[":
        return _flow(text)
    if text == "{}":
        return {}
    return _plain(text)


class _Reader:
    """Reads the lines of dump's output back; any surprise raises _Unsupported."""

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self.indents = [len(line) - len(line.lstrip(" ")) for line in lines]
        self.at = 0

    def mapping(self, indent: int, depth: int) -> dict[str, Any]:
        if depth > MAX_DEPTH:
            raise _Unsupported
        lines, indents, count = self.lines, self.indents, len(self.lines)
        at = self.at
        data: dict[str, Any] = {}
        while at < count:
            width = indents[at]
            if width != indent:
                if width < indent:
                    break
                raise _Unsupported
            line = lines[at]
            first = line[width]  # an empty line: IndexError, which load turns into None
            if first == "-" and line.startswith("- ", width):
                break
            if first == "'":
                key, colon = _quoted(line, width)
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
                raise _Unsupported
        self.at = at
        return data

    def block(self, indent: int, depth: int) -> Any:
        """The value of a key (at INDENT) that ends its line: a nested mapping or a block list."""
        at = self.at
        if at == len(self.lines):
            raise _Unsupported
        if self.indents[at] == indent and self.lines[at].startswith("- ", indent):
            return self.sequence(indent, depth)
        return self.mapping(indent + 2, depth)

    def sequence(self, indent: int, depth: int) -> list[Any]:
        if depth > MAX_DEPTH:
            raise _Unsupported
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
        end = _quoted(item, 0)[1]
        return end < len(item)
    if item.startswith("["):
        raise _Unsupported
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
    except (_Unsupported, ValueError, IndexError, RecursionError):
        return None
    if reader.at != len(lines) or dump(data) != canonical:
        return None
    return data
