"""Escaping content lines that would read as a file's own structure (an entry header, a
section heading): one more leading backslash, undone exactly, so content is never dropped."""

from __future__ import annotations

import re


class LineEscaper:
    """Escape and unescape the lines that start with STRUCTURE (a regex) in a markdown body.

    HINTS are literals one of which every STRUCTURE line contains: content holding none of
    them (most content) is returned as it is, without compiling or running a pattern, which
    every entry parsed or written would otherwise pay.
    """

    def __init__(self, structure: str, hints: tuple[str, ...]) -> None:
        self._structure = structure
        self._hints = hints
        self._patterns: tuple[re.Pattern[str], re.Pattern[str]] | None = None

    def _compiled(self) -> tuple[re.Pattern[str], re.Pattern[str]]:
        if self._patterns is None:
            # A line that is structure, or already an escaped one, gets one more backslash.
            forged = re.compile(r"^(\\*)(" + self._structure + ")", re.MULTILINE)
            escaped = re.compile(r"^\\(\\*" + self._structure + ")", re.MULTILINE)
            self._patterns = (forged, escaped)
        return self._patterns

    def _may_hold(self, content: str) -> bool:
        return any(hint in content for hint in self._hints)

    def escape(self, content: str) -> str:
        return self._compiled()[0].sub(r"\\\1\2", content) if self._may_hold(content) else content

    def unescape(self, content: str) -> str:
        return self._compiled()[1].sub(r"\1", content) if self._may_hold(content) else content
