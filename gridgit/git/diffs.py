"""Unified diffs as data: the files and hunks of `git diff` / `git diff-tree -p`, and the lines each hunk changes.

Conflict prediction compares what two branches changed since their merge base, hunk by hunk;
evidence staleness asks whether the lines a citation names were changed, and where they are
now. Both read the same output: `-U0` hunks give exact changed lines, `-W` (function context)
hunks also span the whole function around each change, starting at its function line.
"""

from __future__ import annotations

import re

from gridgit.store.record import FrozenRecord, Record

_HUNK_RE = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@ ?(.*)$")
_ESCAPES = {"a": 7, "b": 8, "t": 9, "n": 10, "v": 11, "f": 12, "r": 13, '"': 34, "\\": 92}


class Change(FrozenRecord):
    """Old lines OLD_START..OLD_END replaced by new lines NEW_START..NEW_END (an end below its start: none).

    A pure insertion has OLD_END == OLD_START - 1: it goes in before old line OLD_START.
    """

    FIELDS = ("old_start", "old_end", "new_start", "new_end")
    __slots__ = FIELDS

    def __init__(self, old_start: int, old_end: int, new_start: int, new_end: int) -> None:
        self.old_start = old_start
        self.old_end = old_end
        self.new_start = new_start
        self.new_end = new_end


class Hunk(Record):
    """One `@@ -a,b +c,d @@ function` hunk: its ranges, its header and the changes inside it."""

    FIELDS = ("old_start", "old_count", "new_start", "new_count", "header", "first_line", "changes")
    __slots__ = FIELDS

    def __init__(
        self,
        old_start: int,
        old_count: int,
        new_start: int,
        new_count: int,
        header: str,
        first_line: str = "",  # the hunk's first line of text: the function line of a `-W` hunk
        changes: list[Change] | None = None,
    ) -> None:
        self.old_start = old_start
        self.old_count = old_count
        self.new_start = new_start
        self.new_count = new_count
        self.header = header
        self.first_line = first_line
        self.changes = changes if changes is not None else []

    @property
    def old_end(self) -> int:
        return self.old_start + self.old_count - 1


class FileDiff(Record):
    """One file of a diff: OLD_PATH and NEW_PATH (None for an added / deleted side) and its hunks."""

    FIELDS = ("old_path", "new_path", "binary", "hunks")
    __slots__ = FIELDS

    def __init__(
        self, old_path: str | None, new_path: str | None, binary: bool = False, hunks: list[Hunk] | None = None
    ) -> None:
        self.old_path = old_path
        self.new_path = new_path
        self.binary = binary
        self.hunks = hunks if hunks is not None else []

    @property
    def path(self) -> str:
        """The path on the old side (the new one for an added file): what both sides of a merge share."""
        return self.old_path or self.new_path or ""


class RawChange(FrozenRecord):
    """One record of `--raw` output: STATUS (A, M, D, R, C, T) and both sides' paths and blob ids."""

    FIELDS = ("status", "old_path", "new_path", "old_oid", "new_oid")
    __slots__ = FIELDS

    def __init__(self, status: str, old_path: str, new_path: str, old_oid: str, new_oid: str) -> None:
        self.status = status
        self.old_path = old_path
        self.new_path = new_path
        self.old_oid = old_oid
        self.new_oid = new_oid


TREE_PAIR_RE = re.compile(r"([0-9a-f]{40,64}) ([0-9a-f]{40,64})\n")


def parse_raw(out: str) -> dict[tuple[str, str], list[RawChange]]:
    """`diff-tree -r -z --raw` records, grouped by the `TREE1 TREE2` line `--stdin` prints before each pair.

    Without `--stdin` there is no such line: everything is under ("", "").
    """
    groups: dict[tuple[str, str], list[RawChange]] = {}
    current = groups.setdefault(("", ""), [])
    pos = 0
    while pos < len(out):
        if header := TREE_PAIR_RE.match(out, pos):
            current = groups.setdefault((header[1], header[2]), [])
            pos = header.end()
            continue
        end = out.find("\0", pos)
        if end < 0 or not out.startswith(":", pos):
            break
        _old_mode, _new_mode, old_oid, new_oid, status = out[pos + 1 : end].split(" ")
        paths = 2 if status[:1] in ("R", "C") else 1
        names = []
        for _ in range(paths):
            start, end = end + 1, out.find("\0", end + 1)
            names.append(out[start:end])
        current.append(RawChange(status[:1], names[0], names[-1], old_oid, new_oid))
        pos = end + 1
    if not groups[("", "")]:
        del groups[("", "")]
    return groups


def unquote(token: str) -> str:
    """A path as git prints it in a diff header: C-quoted (`"sp ace \\303\\251"`) or bare, tab-terminated."""
    token = token.rstrip("\t")
    if not (len(token) >= 2 and token.startswith('"') and token.endswith('"')):
        return token
    out = bytearray()
    body, i = token[1:-1], 0
    while i < len(body):
        char = body[i]
        if char != "\\":
            out += char.encode("utf-8")
            i += 1
        elif body[i + 1 : i + 4].isdigit():
            out.append(int(body[i + 1 : i + 4], 8))
            i += 4
        else:
            out.append(_ESCAPES.get(body[i + 1], ord(body[i + 1])))
            i += 2
    return out.decode("utf-8", "surrogateescape")


def _strip_prefix(path: str) -> str | None:
    if path == "/dev/null":
        return None
    return path[2:] if path.startswith(("a/", "b/")) else path


def _git_line_paths(line: str) -> tuple[str | None, str | None]:
    """(old, new) from `diff --git a/X b/Y`; an unquoted pair is split in the middle (X == Y there)."""
    rest = line[len("diff --git ") :]
    if rest.startswith('"') or rest.endswith('"'):
        parts = re.findall(r'"(?:[^"\\]|\\.)*"|\S+', rest)
        if len(parts) == 2:
            return _strip_prefix(unquote(parts[0])), _strip_prefix(unquote(parts[1]))
    half = (len(rest) - 1) // 2
    return _strip_prefix(rest[:half]), _strip_prefix(rest[half + 1 :])


def _changes(body: list[str], old_no: int, new_no: int) -> tuple[list[Change], str]:
    """The runs of -/+ lines in a hunk BODY whose first lines are OLD_NO / NEW_NO; and its first line's text."""
    changes: list[Change] = []
    run: list[int] | None = None  # [old_start, old_end, new_start, new_end] of the run being read
    first = body[0][1:] if body else ""
    for line in body:
        kind = line[:1]
        if kind == "-" or kind == "+":
            if run is None:
                run = [old_no, old_no - 1, new_no, new_no - 1]
            if kind == "-":
                run[1] = old_no
                old_no += 1
            else:
                run[3] = new_no
                new_no += 1
            continue
        if kind == "\\":  # "\ No newline at end of file"
            continue
        if run is not None:
            changes.append(Change(*run))
            run = None
        old_no += 1
        new_no += 1
    if run is not None:
        changes.append(Change(*run))
    return changes, first


def _hunk(lines: list[str], i: int, match: re.Match[str]) -> tuple[Hunk, int]:
    """The hunk whose header MATCH is LINES[I]; and the index after its body (read by its line counts)."""
    old_start, old_count = int(match[1]), int(match[2] or 1)
    new_start, new_count = int(match[3]), int(match[4] or 1)
    header, body = lines[i], []
    i += 1
    old_left, new_left = old_count, new_count
    while i < len(lines) and (old_left > 0 or new_left > 0 or lines[i].startswith("\\")):
        line = lines[i]
        kind = line[:1]
        # diff.suppressBlankEmpty prints an empty context line as "", not " ".
        old_left -= kind in (" ", "", "-")
        new_left -= kind in (" ", "", "+")
        body.append(line)
        i += 1
    # With a zero count, the start names the line before the (empty) range: its first line is one more.
    changes, first = _changes(body, old_start + (old_count == 0), new_start + (new_count == 0))
    return Hunk(old_start, old_count, new_start, new_count, header, first.strip(), changes), i


def parse(text: str) -> list[FileDiff]:
    """The files of unified diff TEXT (several `diff --git` sections; anything before the first is skipped)."""
    files: list[FileDiff] = []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        if not lines[i].startswith("diff --git "):
            i += 1
            continue
        current = FileDiff(*_git_line_paths(lines[i]))
        i += 1
        while i < len(lines) and not lines[i].startswith(("diff --git ", "@@ ")):
            _header_line(current, lines[i])
            i += 1
        while i < len(lines) and (match := _HUNK_RE.match(lines[i])):
            hunk, i = _hunk(lines, i, match)
            current.hunks.append(hunk)
        files.append(current)
    return files


def _header_line(current: FileDiff, line: str) -> None:
    """Apply one extended header line (`rename from`, `--- a/x`, `deleted file mode` ...) to CURRENT."""
    if line.startswith(("rename from ", "copy from ")):
        current.old_path = unquote(line.split(" ", 2)[2])
    elif line.startswith(("rename to ", "copy to ")):
        current.new_path = unquote(line.split(" ", 2)[2])
    elif line.startswith("--- "):
        current.old_path = _strip_prefix(unquote(line[4:]))
    elif line.startswith("+++ "):
        current.new_path = _strip_prefix(unquote(line[4:]))
    elif line.startswith("new file mode"):
        current.old_path = None
    elif line.startswith("deleted file mode"):
        current.new_path = None
    elif line.startswith("Binary files ") or line == "GIT binary patch":
        current.binary = True


def changed_lines(hunks: list[Hunk], start: int, end: int) -> list[Hunk]:
    """The hunks that change any of old lines START..END (an insertion strictly inside the range counts)."""
    found = []
    for hunk in hunks:
        for change in hunk.changes:
            if change.old_end >= change.old_start:
                hit = change.old_start <= end and start <= change.old_end
            else:  # inserted before old line old_start
                hit = start < change.old_start <= end
            if hit:
                found.append(hunk)
                break
    return found


def _new_line(hunks: list[Hunk], line: int, first: bool) -> int:
    """Where old LINE is in the new file; a replaced line maps to the FIRST (or last) line of its replacement."""
    shift = 0
    for hunk in hunks:
        for change in hunk.changes:
            old_len = change.old_end - change.old_start + 1
            new_len = change.new_end - change.new_start + 1
            if (old_len == 0 and change.old_start <= line) or (old_len > 0 and change.old_end < line):
                shift += new_len - old_len  # an insertion before LINE, or a change wholly above it
            elif change.old_start <= line <= change.old_end:
                # Deleted outright, the range's first line is the next one kept, its last the one before.
                return change.new_start if first else change.new_end
    return line + shift


def reverse(hunks: list[Hunk]) -> list[Hunk]:
    """HUNKS read the other way (new file to old): to follow lines back through a commit."""
    return [
        Hunk(h.new_start, h.new_count, h.old_start, h.old_count, h.header, h.first_line,
             [Change(c.new_start, c.new_end, c.old_start, c.old_end) for c in h.changes])
        for h in hunks
    ]  # fmt: skip


def map_range(hunks: list[Hunk], start: int, end: int) -> tuple[int, int] | None:
    """Where old lines START..END are in the new file, through every change; None when all were deleted."""
    new_start, new_end = _new_line(hunks, start, True), _new_line(hunks, end, False)
    return (new_start, new_end) if new_end >= new_start else None
