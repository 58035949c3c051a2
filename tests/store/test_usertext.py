"""User text as gridgit stores it: control characters dropped, what is kept kept; paths refused, never rewritten."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gridgit.errors import BadInput
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


@given(st.lists(pieces | st.text(max_size=4), max_size=10).map("".join))
def test_a_path_passes_the_gate_unchanged_or_is_refused_for_a_control_character(text: str) -> None:
    unprintable = [c for c in text if ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F or c in "\u2028\u2029"]
    if unprintable:
        with pytest.raises(BadInput, match="holds a control character"):
            usertext.check_path(text)
    else:
        assert usertext.check_path(text) is text  # never rewritten: `a\0b` is not `ab`


def test_the_path_gate_names_the_character_and_keeps_real_names() -> None:
    for bad, shown in [("a\x00b", r"\x00"), ("evil\n- path: x.py", r"\n"), ("a\tb", r"\t"), ("a\x1b[2Jb", r"\x1b")]:
        with pytest.raises(BadInput, match=rf"path .* holds a control character \({re.escape(shown)}\)"):
            usertext.check_path(bad)
    assert usertext.check_path("src/café à.py") == "src/café à.py"
    assert usertext.check_path("src/\udcff.bin") == "src/\udcff.bin"  # a name that is not UTF-8: pathtext's job
    with pytest.raises(BadInput, match="the limit is 4096"):
        usertext.check_path("a/" * 3000)
