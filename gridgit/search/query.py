"""A search as asked: the user's query made into an FTS5 match expression, its filters checked.

Query syntax (what people type into a search box): words must all occur (in any order, any
case, accents ignored); `"signed cookie"` is a phrase; `cook*` a prefix; `OR` between two
terms makes either do; `-word` or `NOT word` leaves out what has it. Every term is quoted
before it reaches FTS5, so no query is an FTS5 syntax error: punctuation inside a term splits
it into a phrase (`src/auth.py` finds that path), and control characters are spaces.
"""

from __future__ import annotations

import re
from datetime import timedelta
from typing import TYPE_CHECKING

from gridgit.errors import BadInput
from gridgit.search.hits import Filters, SearchResult, execute
from gridgit.search.sources import KINDS
from gridgit.store import clock, usertext

if TYPE_CHECKING:
    from gridgit.store.layout import Layout

MAX_LIMIT = 1000
DEFAULT_LIMIT = 20
_TOKEN_RE = re.compile(r'"([^"]*)"?(\*?)|(\S+)')
_WORD_RE = re.compile(r"\w", re.UNICODE)
_CONTROL_RE = re.compile(r"[\x00-\x1a\x1c-\x1f\x7f]")
_SINCE_RE = re.compile(r"^(\d+)([mhdw])$")
_UNITS = {"m": "minutes", "h": "hours", "d": "days", "w": "weeks"}


def _phrase(text: str, prefix: bool) -> str | None:
    """TEXT as one quoted FTS5 phrase (a prefix one with PREFIX); None when it has no word in it."""
    if not _WORD_RE.search(text):
        return None
    return '"' + text.replace('"', '""') + '"' + ("*" if prefix else "")


def match_expression(query: str, any_word: bool = False) -> str | None:
    """QUERY as an FTS5 match expression (see the module docstring); None when it names no word.

    ANY_WORD: documents with any of the words match (BM25 ranks those with more first).
    """
    # Control characters part words (a NUL would end the string inside SQLite); ANSI escapes go whole.
    text = usertext.strip_controls(_CONTROL_RE.sub(" ", query), one_line=True)
    groups: list[list[str]] = [[]]  # OR of ANDs
    excluded: list[str] = []
    negate = False
    for match in _TOKEN_RE.finditer(text):
        quoted, star, bare = match.group(1), match.group(2), match.group(3)
        if bare in ("OR", "|") and groups[-1]:
            groups.append([])
            continue
        if bare == "AND":
            continue
        if bare == "NOT":
            negate = True
            continue
        if bare is not None:
            negative = bare.startswith("-") and len(bare) > 1
            word = bare[1:] if negative else bare
            term = _phrase(word.rstrip("*"), word.endswith("*"))
        else:
            negative, term = False, _phrase(quoted, bool(star))
        if term is None:
            negate = False
            continue
        if negate or negative:
            excluded.append(term)
        elif any_word:
            groups.append([term])
        else:
            groups[-1].append(term)
        negate = False
    wanted = [" ".join(group) for group in groups if group]
    if not wanted:
        if excluded:
            raise BadInput("the query only leaves words out: say what to find too")
        return None
    expression = " OR ".join(f"({w})" for w in wanted) if len(wanted) > 1 else wanted[0]
    if excluded:
        expression = f"({expression}) NOT ({' OR '.join(excluded)})"
    return expression


def since_timestamp(since: str) -> str:
    """`2026-01-24`, `2026-01-24T14:30:00Z` or a span back from now (`30m`, `2h`, `7d`, `1w`) as a timestamp."""
    text = since.strip()
    span = _SINCE_RE.match(text)
    try:
        moment = clock.now() - timedelta(**{_UNITS[span.group(2)]: int(span.group(1))}) if span else clock.parse(text)
    except (ValueError, OverflowError):
        raise BadInput(f"--since {since[:40]!r}: expected a date, a timestamp or a span like 2h or 7d") from None
    return clock.format_iso(moment)


def check_query(query: str | None) -> str:
    """QUERY within its size limit (refused before any pattern runs over it)."""
    return usertext.check_size(query or "", "query", "the query")


def check_kind(kind: str) -> str:
    if kind not in KINDS:
        raise BadInput(f"unknown kind {kind!r} (one of: {', '.join(KINDS)})")
    return kind


def check_file(layout: Layout, name: str) -> str:
    """A cited file as entries cite it: repo-relative, `./` dropped; an absolute path or one with `..` made so."""
    text = usertext.check_size(name.strip(), "path", "--file")
    if not text or any(c in text for c in "\0\n\r"):
        raise BadInput("--file: expected a file path, e.g. src/auth.py (or a folder: src/)")
    folder = text.endswith("/")
    if text.startswith("/") or ".." in text.split("/"):
        text = layout.relative(text) + ("/" if folder else "")
    while text.startswith("./"):
        text = text[2:]
    return text


def search(
    layout: Layout,
    query: str | None,
    category: str | None = None,
    agent: str | None = None,
    phase: str | None = None,
    file: str | None = None,
    since: str | None = None,
    limit: int = DEFAULT_LIMIT,
    kinds: tuple[str, ...] = (),
    any_word: bool = False,
    exclude_phase: str | None = None,
) -> SearchResult:
    """Search everything the Blackboard holds (sources.SOURCES) for QUERY, best first, with these filters.

    A query with no word in it lists what the filters let through, newest first; with neither,
    there is nothing to search for. EXCLUDE_PHASE leaves out that phase's live entries (the
    context pack has them already); ANY_WORD see match_expression.
    """
    from gridgit.memory.workspace import require_phase
    from gridgit.model.permissions import check_agent_id
    from gridgit.scratchpad.entry import check_category

    layout.require()
    text = check_query(query)
    if not 1 <= limit <= MAX_LIMIT:
        raise BadInput(f"--limit must be from 1 to {MAX_LIMIT}, got {limit}")
    filters = Filters(
        category=check_category(category) if category else None,
        agent=check_agent_id(agent) if agent else None,
        phase=require_phase(layout, phase) if phase else None,
        file=check_file(layout, file) if file else None,
        since=since_timestamp(since) if since else None,
        kinds=tuple(check_kind(k) for k in kinds),
        exclude_phase=exclude_phase,
    )
    match = match_expression(text, any_word)
    if match is None and not any((category, agent, phase, file, since, kinds)):
        raise BadInput(
            "nothing to search for: give a word, or a filter (--category, --agent, --phase, --file, --since, --kind)"
        )
    hits, more, refreshed, problems = execute(layout, match, filters, limit)
    return SearchResult(text, match, hits, more, refreshed, problems)
