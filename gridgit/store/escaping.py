"""Escaping content lines that would read as a file's own structure (an entry header, a
section heading): one more leading backslash, undone exactly, so content is never dropped."""

from __future__ import annotations

import re


class LineEscaper:
    """Escape and unescape the lines that start with STRUCTURE (a regex) in a markdown body."""

    def __init__(self, structure: str) -> None:
        # A line that is structure, or already an escaped one, gets one more backslash.
        self._forged = re.compile(r"^(\\*)(" + structure + ")", re.MULTILINE)
        self._escaped = re.compile(r"^\\(\\*" + structure + ")", re.MULTILINE)

    def escape(self, content: str) -> str:
        return self._forged.sub(r"\\\1\2", content)

    def unescape(self, content: str) -> str:
        return self._escaped.sub(r"\1", content)
