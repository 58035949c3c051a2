"""Regular expressions compiled on first use, and the literal test that often spares one.

Compiling is pure Python in CPython (`re._parser`, `re._compiler`): 0.05-0.4 ms a pattern,
paid at import by every process that imports the module, used or not. The hot paths (a
write, a git hook, the status line) import many modules and use few of their patterns.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class _Lazy:
    """Stands in for the compiled pattern: the first attribute asked for compiles it.

    Each attribute is then kept in the instance's dict, so later uses (`HEADER_RE.match` once
    per entry parsed) are plain attribute lookups, not a call of __getattr__.
    """

    def __init__(self, pattern: str, flags: int) -> None:
        self._args = (pattern, flags)
        self._compiled: re.Pattern[str] | None = None

    def __getattr__(self, name: str) -> Any:
        if self._compiled is None:
            self._compiled = re.compile(*self._args)
        value = getattr(self._compiled, name)
        setattr(self, name, value)
        return value


def lazy(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """PATTERN, compiled the first time one of its methods (match, sub, ...) is used."""
    return _Lazy(pattern, flags)  # type: ignore[return-value]  # it answers as the pattern does


# The only characters beyond ASCII that re.IGNORECASE matches to an ASCII letter (every code
# point tried: tests/store/test_lazyre.py), and the letter each matches.
_TO_ASCII = {"\u0130": "i", "\u0131": "i", "\u017f": "s", "\u212a": "k"}


def may_hold(text: str, hints: tuple[str, ...]) -> bool:
    """Whether TEXT may match a re.IGNORECASE pattern each match of which holds one of HINTS
    (ASCII, lower case): False decides without compiling or running the pattern.

    Under re.IGNORECASE four letters beyond ASCII match ASCII ones (`ı` matches `i`, `ſ`
    matches `s`) where str.lower() would not make them equal: they are folded first. No other
    character can be part of an ASCII hint, so text with a `█` or an `é` is still ruled out.
    """
    if not text.isascii():
        for letter, ascii_letter in _TO_ASCII.items():
            if letter in text:
                text = text.replace(letter, ascii_letter)
    folded = text.lower()
    for hint in hints:  # noqa: SIM110 - a loop, not any(): this runs for every string of every event payload
        if hint in folded:
            return True
    return False
