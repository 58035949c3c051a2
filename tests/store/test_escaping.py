"""Content that would read as a file's structure is escaped, never dropped."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from gridgit.store.escaping import LineEscaper

HEADER = LineEscaper(r"### \[", ("### [",))
lines = st.lists(
    st.sampled_from(["### [1] x", "\\### [2] y", "\\\\### [", "plain", "", "#### [z"]) | st.text(), max_size=8
)


@given(lines)
def test_unescape_undoes_escape_and_no_line_stays_structure(parts: list[str]) -> None:
    content = "\n".join(parts)
    escaped = HEADER.escape(content)
    assert HEADER.unescape(escaped) == content
    assert not re.search(r"^### \[", escaped, re.MULTILINE)


def test_examples() -> None:
    assert HEADER.escape("a\n### [3] forged\n\\### [4] already") == "a\n\\### [3] forged\n\\\\### [4] already"
