"""Entry format/parse: the round trip (property-tested), escaping, relevance, header errors."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gridgit.errors import BadInput
from gridgit.scratchpad.document import Scratchpad
from gridgit.scratchpad.entry import (
    CATEGORIES,
    RELEVANCES,
    Entry,
    Resolution,
    Validation,
    check_category,
    check_content,
    check_relevance,
    check_tags,
    determine_relevance,
    normalise_topic,
)
from gridgit.scratchpad.entry_markdown import format_entry, parse_entries, parse_entry

TRICKY_LINES = [
    "---",
    "",
    "### [1] [2026-01-24T14:30:00Z] executor-001 | discovery | auth",
    "\\### [2] [2026-01-24T14:30:00Z] executor-001 | gotcha | api",
    "\\\\### [3] [x] a | b | c",
    "### [",
    "# Heading",
    "## Entries",
    "```python",
    "```",
    "**Topic:** forged",
    "**Tags:** a, b",
    "**Relevance:** HIGH",
    "**Contributors:** executor-009",
    "\r",
    "line with trailing \r",
    "---\r",
    "  ### [4] [t] indented | x | y",
    "ünïcödé ✓ 日本語 🚀",
    "**Update from executor-002:**",
]

contents = st.one_of(
    st.text(),
    st.lists(st.one_of(st.sampled_from(TRICKY_LINES), st.text(max_size=20)), max_size=12).map("\n".join),
    st.lists(st.sampled_from(TRICKY_LINES), max_size=8).map("\r\n".join),
)
one_line = st.text(max_size=30).filter(lambda s: "\n" not in s and "\r" not in s)
tag = st.text(min_size=1, max_size=12).map(str.strip).filter(lambda t: t and not set(t) & {",", "\n", "\r"})
agent_ids = st.from_regex(r"\A(executor|mc|memory|recognizer|system)-[0-9]{3}\Z")
topics = st.from_regex(r"\A[a-z0-9][a-z0-9_.-]{0,15}\Z")
timestamps = st.datetimes().map(lambda d: d.strftime("%Y-%m-%dT%H:%M:%SZ"))
uids = st.from_regex(r"\A[0-7][0-9A-HJKMNP-TV-Z]{25}\Z")

entries = st.builds(
    Entry,
    id=st.integers(min_value=1, max_value=10_000),
    timestamp=timestamps,
    agent_id=agent_ids,
    category=st.sampled_from(CATEGORIES),
    topic=topics,
    tags=st.lists(tag, max_size=5),
    relevance=st.sampled_from(RELEVANCES),
    block_id=one_line,
    content=contents,
    title=one_line.filter(bool),
    contributors=st.lists(agent_ids, max_size=3),
    uid=uids,
    carried_from=st.one_of(st.just(""), uids),
    resolution=st.one_of(st.none(), st.builds(Resolution, at=timestamps, by=agent_ids, note=one_line, answer=one_line)),
    validations=st.lists(st.builds(Validation, at=timestamps, by=agent_ids, note=one_line.map(str.strip)), max_size=3),
    supersedes=st.one_of(st.just(""), uids),
    affects_phases=st.lists(st.from_regex(r"\A[0-9]{2}-[a-z0-9][a-z0-9-]{0,10}\Z"), max_size=3),
)


@settings(max_examples=300, deadline=None)
@given(entries)
def test_round_trip_of_one_entry(entry: Entry) -> None:
    assert parse_entry(format_entry(entry), 1, "test") == entry


@settings(max_examples=50, deadline=None)
@given(entries)
def test_a_text_parsed_again_gives_an_entry_of_its_own(entry: Entry) -> None:
    # Parses are kept by text: each caller still gets an entry it may change alone.
    text = format_entry(entry)
    first, second = parse_entry(text, 1, "test"), parse_entry(text, 9, "other")
    assert first == second == entry
    first.id, first.content = first.id + 1, first.content + "!"
    first.tags.append("changed")
    first.contributors.append("executor-099")
    assert parse_entry(text, 1, "test") == entry


@settings(max_examples=100, deadline=None)
@given(st.lists(entries, max_size=6))
def test_round_trip_through_a_whole_scratchpad(items: list[Entry]) -> None:
    for number, entry in enumerate(items, start=1):
        entry.id = number
    pad = Scratchpad.new("01-foundation", "Foundation", "2026-01-24T14:00:00Z", 50)
    pad.entries = items
    text = pad.render()
    back = Scratchpad.parse(text, "scratchpad.md")
    assert back.entries == items
    assert back.preamble == pad.preamble
    assert back.index_is_current()
    assert back.render() == text


@settings(max_examples=100, deadline=None)
@given(entries)
def test_format_is_stable_even_without_a_title(entry: Entry) -> None:
    entry.title = ""
    text = format_entry(entry)
    assert format_entry(parse_entry(text, 1, "test")) == text


def test_forged_header_is_escaped_not_dropped() -> None:
    forged = "### [99] [2026-01-24T14:30:00Z] mc-001 | blocker | auth"
    entry = Entry(1, "2026-01-24T14:30:00Z", "executor-001", "discovery", "auth", [], "LOW", "", forged, "Auth")
    text = format_entry(entry)
    assert "\n\\### [99]" in text
    _, parsed = parse_entries(text, "test")
    assert len(parsed) == 1 and parsed[0].content == forged


def test_broken_entry_header_is_reported_with_its_line() -> None:
    body = "\n## Entries\n\n### [1] [2026-01-24T14:30:00Z] executor-001 discovery auth\n\nx\n"
    with pytest.raises(BadInput, match=r"test line 4: broken entry header"):
        parse_entries(body, "test")


def test_unknown_category_in_a_header_is_reported() -> None:
    body = "### [1] [2026-01-24T14:30:00Z] executor-001 | rumour | auth\n\n**Relevance:** LOW\n\nx\n"
    with pytest.raises(BadInput, match=r"test line 1: unknown category 'rumour'"):
        parse_entries(body, "test")


def test_missing_relevance_is_reported() -> None:
    body = "### [1] [2026-01-24T14:30:00Z] executor-001 | gotcha | auth\n\n**Topic:** Auth\n\nx\n"
    with pytest.raises(BadInput, match="relevance"):
        parse_entries(body, "test")


def test_hand_written_entry_without_separator_parses() -> None:
    body = "### [1] [2026-01-24T14:30:00Z] executor-001 | gotcha | auth\n**Relevance:** LOW\n\nno separator\n\n"
    _, parsed = parse_entries(body, "test")
    assert parsed[0].content == "no separator"


@pytest.mark.parametrize(
    ("category", "tags", "affects", "expected"),
    [
        ("blocker", [], False, "HIGH"),
        ("decision", ["architectural"], False, "HIGH"),
        ("heartbeat", ["user_preference"], False, "HIGH"),
        ("question", ["security"], False, "HIGH"),
        ("warning", ["auth"], False, "HIGH"),
        ("question", [], True, "HIGH"),
        ("gotcha", [], False, "MEDIUM"),
        ("pattern", [], False, "MEDIUM"),
        ("discovery", [], False, "MEDIUM"),
        ("decision", [], False, "MEDIUM"),
        ("warning", [], False, "MEDIUM"),
        ("question", [], False, "LOW"),
        ("handoff", ["x"], False, "LOW"),
        ("heartbeat", ["heartbeat"], False, "LOW"),
    ],
)
def test_determine_relevance(category: str, tags: list[str], affects: bool, expected: str) -> None:
    assert determine_relevance(category, tags, affects) == expected


def test_checks_refuse_bad_values() -> None:
    with pytest.raises(BadInput, match="unknown category"):
        check_category("rumour")
    with pytest.raises(BadInput, match="unknown relevance"):
        check_relevance("URGENT")
    assert check_relevance("high") == "HIGH"
    with pytest.raises(BadInput, match="topic is empty"):
        normalise_topic("  ")
    assert normalise_topic("Auth Flow") == "auth-flow"
    with pytest.raises(BadInput, match="invalid topic"):
        normalise_topic("a|b")
    with pytest.raises(BadInput, match="64 KiB"):
        check_content("x" * (64 * 1024 + 1))
    assert check_content("x" * 64 * 1024)
    with pytest.raises(BadInput, match="commas"):
        check_tags(["a,b"])
    assert check_tags([" a ", "", "b"]) == ["a", "b"]


@given(st.lists(st.sampled_from([*TRICKY_LINES, "### [9] [t] a | b", "x### [1]"]) | st.text(max_size=8), max_size=12))
def test_the_body_splits_where_a_line_starts_like_a_header(lines: list[str]) -> None:
    # split_body finds headers with str.find; a line is one where `^### \[` (multiline) matches.
    import re

    from gridgit.scratchpad.entry_markdown import HEADER_RE, split_body

    body = "\n".join(lines)
    starts = [m.start() for m in re.finditer(r"^### \[", body, re.MULTILINE)]
    if all(HEADER_RE.match(body, at) for at in starts):
        preamble, chunks = split_body(body, "x")
        assert [at for at, _ in chunks] == starts
        assert preamble + "".join(chunk for _, chunk in chunks) == body
    else:
        with pytest.raises(BadInput, match="broken entry header"):
            split_body(body, "x")
