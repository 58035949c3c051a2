"""Content that would read as a file's structure is escaped, never dropped."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from gridgit.store.escaping import BODY, LineEscaper
from gridgit.validation.rules import _MARKER_RE

HEADER = LineEscaper(r"### \[", ("### [",))
lines = st.lists(
    st.sampled_from(["### [1] x", "\\### [2] y", "\\\\### [", "plain", "", "#### [z"])
    | st.sampled_from(["<<<<<<< HEAD", "=======", "========", "|||||||", ">>>>>>> b", "\\>>>>>>>", "<<<<<<<<"])
    | st.text(),
    max_size=8,
)


@given(lines)
def test_unescape_undoes_escape_and_no_line_stays_structure(parts: list[str]) -> None:
    content = "\n".join(parts)
    escaped = HEADER.escape(content)
    assert HEADER.unescape(escaped) == content
    assert not re.search(r"^### \[", escaped, re.MULTILINE)
    # a quoted conflict is never one validate (or git's tools) would find: every escaper escapes them
    assert not _MARKER_RE.search(escaped) and not _MARKER_RE.search(BODY.escape(content))
    assert BODY.unescape(BODY.escape(content)) == content


def test_examples() -> None:
    assert HEADER.escape("a\n### [3] forged\n\\### [4] already") == "a\n\\### [3] forged\n\\\\### [4] already"
