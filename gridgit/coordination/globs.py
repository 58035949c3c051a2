"""Claims' paths and globs, matched as git matches a `:(glob)` pathspec, and whether two of them may overlap.

Pure functions of text (the standard library's `re` only): the before-edit hook's full path, conflict
detection and the queue's collision check all ask them, and a peer's claims are checked with them too.
"""

from __future__ import annotations

import functools
import re

_GLOB_CHARS = re.compile(r"[*?\[]")


@functools.lru_cache(maxsize=512)
def _glob_regex(pattern: str) -> re.Pattern[str]:
    """Git's `:(glob)` pathspec as a regex (wildmatch with WM_PATHNAME): `*`, `?` and `[...]` never match
    `/`, `**/` after a slash (or first) and a final `**` cross folders, `\\` makes the next character literal.
    Kept for the last patterns asked: the queue and the claims' order compare every pair."""
    out, i = [], 0
    while i < len(pattern):
        char = pattern[i]
        if pattern.startswith("**", i) and i + 2 == len(pattern):
            out.append(".*")  # a final `**` matches everything from there, folders too
            break
        if pattern.startswith("**/", i) and (i == 0 or pattern[i - 1] == "/"):
            out.append("(?:.*/)?")  # `**/` matches any number of folders, none too
            i += 3
            continue
        if char == "\\" and i + 1 < len(pattern):
            out.append(re.escape(pattern[i + 1]))
            i += 2
            continue
        if char == "*":
            while pattern.startswith("*", i + 1):  # `**` not between slashes is one `*`
                i += 1
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[":
            close = pattern.find("]", i + 2 if pattern[i + 1 : i + 2] in ("!", "^", "]") else i + 1)
            if close < 0:
                out.append(re.escape(char))
            else:
                body = pattern[i + 1 : close].replace("\\", "\\\\")
                negated = body[:1] in ("!", "^")
                out.append("(?!/)[" + ("^" + body[1:] if negated else body) + "]")
                i = close
        else:
            out.append(re.escape(char))
        i += 1
    return re.compile("".join(out) + r"\Z")


def matches(pattern: str, path: str) -> bool:
    """PATH (repo-relative) falls under PATTERN as git's `:(glob)` pathspec has it: the pattern as a literal
    path (the path itself or a directory above it), else as a glob (proven against `git ls-files` in tests)."""
    literal = pattern.rstrip("/")
    if path == literal or path.startswith(literal + "/"):
        return True
    return bool(_GLOB_CHARS.search(pattern)) and bool(_glob_regex(pattern).match(path))


def _literal_prefix(pattern: str) -> str:
    found = _GLOB_CHARS.search(pattern)
    return pattern[: found.start()] if found else pattern


def overlaps(a: str, b: str) -> bool:
    """Whether two patterns may name a common path; erring towards yes, as advice should."""
    if a == b or matches(a, b) or matches(b, a):
        return True
    if _GLOB_CHARS.search(a) and _GLOB_CHARS.search(b):
        pa, pb = _literal_prefix(a), _literal_prefix(b)
        return pa.startswith(pb) or pb.startswith(pa)
    return False


def any_overlap(ours: list[str], theirs: list[str]) -> bool:
    """Whether a pattern of OURS may name a path a pattern of THEIRS names."""
    return any(overlaps(a, b) for a in ours for b in theirs)
