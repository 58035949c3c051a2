"""One scalar of gridgit's YAML, spelled exactly as PyYAML spells it, and read back.

`yamlfast` builds documents out of these. A str is written plain unless libyaml would
quote it (an indicator first, `: ` or ` #` inside, a leading or trailing space) or PyYAML's
implicit resolvers would read it back as another type (`yes`, `1.5`,
`2026-01-24T14:30:00Z`); then it is single-quoted. Whatever libyaml would escape, fold or
write otherwise raises Unsupported.
"""

from __future__ import annotations

import re

from gridgit.store.lazyre import lazy

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class Unsupported(Exception):
    """The fast path is not certain of a value or a text: `yamlfast` returns None, PyYAML decides."""


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


def resolves(text: str) -> bool:
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


def printable(text: str) -> bool:
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


MAX_STRING = 4096  # libyaml folds a line past its width (1e6): stay far below it
MAX_INT = 10**18

_block_cache: dict[str, str] = {}
_flow_cache: dict[str, str] = {}
_CACHE_SIZE = 4096  # keys, topics and agent ids repeat on every write of a process
_CACHED_LENGTH = 100  # longer strs (a task, a summary) rarely come back


def write_str(text: str, flow: bool) -> str:
    """TEXT as libyaml writes it in a block (`key: TEXT`) or, FLOW, in a one-line list."""
    cache = _flow_cache if flow else _block_cache
    found = cache.get(text)
    if found is not None:
        return found
    if len(text) > MAX_STRING or not printable(text):
        raise Unsupported
    plain = text != "" and _plain_allowed(text, flow) and not resolves(text)
    written = text if plain else "'" + text.replace("'", "''") + "'"
    if len(text) <= _CACHED_LENGTH and len(cache) < _CACHE_SIZE:
        cache[text] = written
    return written


def write_scalar(value: Any, flow: bool) -> str:
    """A str, int, bool, None or float as PyYAML's SafeRepresenter and libyaml write it."""
    kind = type(value)
    if kind is str:
        return write_str(value, flow)
    if kind is int:
        if -MAX_INT < value < MAX_INT:
            return str(value)
        raise Unsupported
    if kind is bool:
        return "true" if value else "false"
    if value is None:
        return "null"
    if kind is float:
        written = repr(value)
        if _is_decimal(written.removeprefix("-")):  # not 1e+17, inf or nan: PyYAML rewrites those
            return written
    raise Unsupported


def read_quoted(text: str, start: int) -> tuple[str, int]:
    """The single-quoted scalar at TEXT[START] and the index after its closing quote."""
    at = start + 1
    while True:
        end = text.find("'", at)
        if end == -1:
            raise Unsupported
        if text.startswith("'", end + 1):
            at = end + 2
            continue
        return text[start + 1 : end].replace("''", "'"), end + 1


TYPED_FIRST = frozenset("-0123456789ntf")  # what null, true, false and numbers start with


def read_plain(text: str) -> Any:
    """A plain scalar as dump writes one; any other spelling is left to the re-dump to refuse."""
    if text[:1] not in TYPED_FIRST:
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
