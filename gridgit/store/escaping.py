"""Escaping content lines that would read as a file's own structure (an entry header, a
section heading): one more leading backslash, undone exactly, so content is never dropped."""

from __future__ import annotations

import re

# The lines a failed merge writes (`<<<<<<< ours`, `|||||||`, `=======`, `>>>>>>> theirs`, as
# validation's conflict-marker rule reads them): content holding one is escaped too, so an entry
# that quotes a conflict is never taken for one by validate, doctor or git's own tools.
CONFLICT_MARKERS = r"<{7}(?= |$)|\|{7}(?= |$)|>{7}(?= |$)|={7}$"
_MARKER_HINTS = ("<<<<<<<", "|||||||", "=======", ">>>>>>>")


class LineEscaper:
    """Escape and unescape the lines that start with STRUCTURE (a regex) or are git conflict markers in a markdown body.

    HINTS are literals one of which every STRUCTURE line contains: content holding none of
    them (most content) is returned as it is, without compiling or running a pattern, which
    every entry parsed or written would otherwise pay.
    """

    def __init__(self, structure: str | None = None, hints: tuple[str, ...] = ()) -> None:
        self._structure = f"(?:{structure}|{CONFLICT_MARKERS})" if structure else f"(?:{CONFLICT_MARKERS})"
        self._hints = hints + _MARKER_HINTS
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


# A markdown body with no structure of its own (a message, a block's plan, a debug session): only
# conflict-marker lines are escaped.
BODY = LineEscaper()
