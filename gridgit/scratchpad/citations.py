"""What an Evidence list in an entry's or a learning's text cites: files, their lines, a commit.

Pure functions of text (gridgit.git.evidence links entries to commits with them, git.staleness
judges them, the memory files and the search index list the files an entry cites):

    Evidence:
    - File: src/a.py:10-12, src/b.py
    - Line: 23-45
    - Commit: abc123
"""

from __future__ import annotations

import re

from gridgit.store.record import FrozenRecord

FILE_RE = re.compile(r"^[ \t]*-[ \t]*Files?:[ \t]*(.+?)[ \t]*$", re.MULTILINE)
EVIDENCE_ITEM_RE = re.compile(r"^[ \t]*-[ \t]*[A-Za-z][A-Za-z ]*:")
_ITEM_RE = re.compile(r"^[ \t]*-[ \t]*(Lines?|Commits?)[ \t]*:[ \t]*(.*?)[ \t]*$", re.IGNORECASE)
_RANGE_RE = re.compile(r"L?(\d+)(?:[ \t]*(?:-|–|—|\.\.|to)[ \t]*L?(\d+))?")


class Citation(FrozenRecord):
    """One file an Evidence list cites: its PATH, the LINES (ranges; none: the whole file) and the COMMIT."""

    FIELDS = ("path", "lines", "commit")
    __slots__ = FIELDS

    def __init__(self, path: str, lines: tuple[tuple[int, int], ...] = (), commit: str | None = None) -> None:
        self.path = path
        self.lines = lines
        self.commit = commit

    def where(self) -> str:
        """`src/a.py:10-12,40` for people."""
        spans = ",".join(f"{a}-{b}" if b != a else str(a) for a, b in self.lines)
        return f"{self.path}:{spans}" if spans else self.path


def line_ranges(value: str) -> list[tuple[int, int]]:
    """`23-45`, `L23-L45`, `23..45`, `10, 12–14` -> [(23, 45)] ...; a backwards range is turned round."""
    found = []
    for match in _RANGE_RE.finditer(value):
        start = int(match[1])
        end = int(match[2]) if match[2] else start
        found.append((min(start, end), max(start, end)))
    return [r for r in found if r[0] > 0]


def _file_refs(value: str) -> list[tuple[str, list[tuple[int, int]]]]:
    """`src/a.py:12-14`, "`src/a.py`", `./src/a.py, src/b.py#L3` -> [(repo-relative path, inline line ranges)]."""
    refs: list[tuple[str, list[tuple[int, int]]]] = []
    for part in value.split(","):
        name = part.strip().strip("`'\"").strip()
        if refs and _RANGE_RE.fullmatch(name):  # `src/a.py:10, 14`: more lines of the file before
            refs[-1][1].extend(line_ranges(name))
            continue
        inline = re.search(r"(?::|#L)(\d[\d\-–L]*)$", name)
        if inline:
            name = name[: inline.start()]
        name = name[2:] if name.startswith("./") else name
        if name:
            refs.append((name, line_ranges(inline[1]) if inline else []))
    return refs


def named_files(value: str) -> list[str]:
    """`src/a.py:12`, "`src/a.py`", `./src/a.py, src/b.py` -> repo-relative paths."""
    return [name for name, _ in _file_refs(value)]


def _looks_like_hash(token: str) -> bool:
    """A commit hash as people paste it: hex, and a digit in it or `%h`'s 7+ characters ("added" is not one)."""
    return bool(re.fullmatch(r"[0-9a-fA-F]{4,64}", token)) and (len(token) >= 7 or any(c.isdigit() for c in token))


def citations(text: str) -> list[Citation]:
    """The files each Evidence list of TEXT cites, with its `Line(s):` and `Commit:` items.

    An Evidence list is a run of `- Key: value` lines; a `File:` line there may name several
    files and inline lines (`src/a.py:12-14`), which win over the list's `Line:` item.
    """
    found: list[Citation] = []
    if "File" not in text:  # no `File:` line, no citation (most entries: their lines are not walked)
        return found
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        if not EVIDENCE_ITEM_RE.match(lines[i]):
            i += 1
            continue
        end = i
        while end < len(lines) and EVIDENCE_ITEM_RE.match(lines[end]):
            end += 1
        files: list[tuple[str, list[tuple[int, int]]]] = []
        ranges: list[tuple[int, int]] = []
        commit = None
        for line in lines[i:end]:
            if file_match := FILE_RE.match(line):
                files.extend(_file_refs(file_match[1]))
            elif item := _ITEM_RE.match(line):
                if item[1].lower().startswith("line"):
                    ranges.extend(line_ranges(item[2]))
                elif commit is None and _looks_like_hash(token := (item[2].split() or [""])[0]):
                    commit = token.lower()
        found.extend(Citation(name, tuple(inline or ranges), commit) for name, inline in files)
        i = end
    return found


def cited_files(text: str) -> list[str]:
    """The files TEXT's Evidence lists cite, each once, in order."""
    return list(dict.fromkeys(c.path for c in citations(text)))
