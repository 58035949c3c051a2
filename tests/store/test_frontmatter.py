"""The frontmatter codec: lossless split/join, safe loading, errors with lines."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gridgit.errors import BadInput
from gridgit.store import frontmatter

scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=20))
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(min_size=1, max_size=8), inner, max_size=4),
    max_leaves=12,
)


@given(meta=st.dictionaries(st.text(min_size=1, max_size=10), values, max_size=6), body=st.text())
def test_render_then_parse_is_identity(meta: dict[str, object], body: str) -> None:
    text = frontmatter.render(meta, body)
    parsed, parsed_body = frontmatter.parse(text, "x.md") if meta else (meta, frontmatter.split(text)[1])
    assert parsed == meta
    assert parsed_body == body


def test_timestamps_stay_strings() -> None:
    meta, _ = frontmatter.parse("---\ncreated_at: 2026-01-24T14:30:00Z\n---\nbody\n", "x.md")
    assert meta["created_at"] == "2026-01-24T14:30:00Z"


def test_scalar_lists_are_inline_and_mappings_block() -> None:
    text = frontmatter.dump_yaml({"index": {"auth": [1, 5, 12]}, "subs": [{"a": 1}]})
    assert "auth: [1, 5, 12]" in text
    assert "- a: 1" in text


def test_yaml_error_names_file_and_line() -> None:
    with pytest.raises(BadInput, match=r"STATE.md line 3: "):
        frontmatter.parse("---\na: 1\nb: c: d\nz: 2\n---\n", "STATE.md")


def test_unsafe_yaml_tags_are_refused() -> None:
    with pytest.raises(BadInput):
        frontmatter.parse("---\na: !!python/object/apply:os.system ['true']\n---\n", "x.md")


def test_missing_closing_delimiter_is_an_error() -> None:
    with pytest.raises(BadInput, match="no closing"):
        frontmatter.parse("---\na: 1\n", "x.md")
