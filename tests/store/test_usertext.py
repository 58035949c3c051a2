"""User text as gridgit stores it: control characters dropped, what is kept kept."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from gridgit.store import pathtext, usertext

pieces = st.sampled_from(
    ["\t", "\n", "\r\n", "\r", "\x1b[31m", "\x00", "\x7f", "\x85", "\u2028", "\udcff", "a", "é", " "]
)


@given(st.lists(pieces | st.text(max_size=4), max_size=10).map("".join), st.booleans())
def test_text_the_patterns_would_not_change_is_left_without_running_them(text: str, one_line: bool) -> None:
    # strip_controls skips its patterns for text with nothing unprintable but what it keeps:
    # the result must be what the patterns themselves give.
    expected = usertext._ANSI_RE.sub("", text)
    expected = (usertext._CONTROL_ONE_LINE_RE if one_line else usertext._CONTROL_RE).sub("", expected)
    assert usertext.strip_controls(text, one_line) == pathtext.as_text(expected)


def test_tabs_and_line_feeds_stay_unless_one_line() -> None:
    assert usertext.strip_controls("a\tb\nc") == "a\tb\nc"
    assert usertext.strip_controls("a\tb\nc", one_line=True) == "a\tbc"
    assert usertext.strip_controls("a\rb\r\nc\x1b[1mX") == "ab\r\ncX"
