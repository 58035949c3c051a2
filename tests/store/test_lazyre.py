"""Patterns compiled on first use behave as the compiled pattern."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from gridgit.store.lazyre import lazy, may_hold


def test_a_lazy_pattern_compiles_on_first_use_and_then_is_the_pattern() -> None:
    pattern = lazy(r"^(a+)b$", re.IGNORECASE | re.MULTILINE)
    assert pattern._compiled is None  # type: ignore[attr-defined]
    assert pattern.match("AAb") is not None
    assert pattern.findall("ab\nx\naab") == ["a", "aa"]
    assert pattern.sub("-", "ab\nq") == "-\nq"
    assert pattern.pattern == r"^(a+)b$"
    assert pattern.flags & re.IGNORECASE
    assert pattern._compiled is re.compile(r"^(a+)b$", re.IGNORECASE | re.MULTILINE)  # type: ignore[attr-defined]


def test_text_without_a_hint_is_ruled_out_ascii_or_not() -> None:
    assert may_hold("API_KEY=x", ("key",))
    assert not may_hold("plain prose", ("key", "token"))
    assert may_hold("credentıal", ("credential",))  # `ı` matches `i` under re.IGNORECASE
    assert re.search("credential", "credentıal", re.IGNORECASE)
    assert may_hold("API_\u212aEY=x", ("key",)) and re.search("key", "API_\u212aEY=x", re.IGNORECASE)  # Kelvin sign
    assert not may_hold("[████░░░░] 40% café", ("key", "bearer"))  # STATE's progress bar costs no pattern run


def test_the_letters_beyond_ascii_that_ignorecase_matches_to_ascii_are_the_folded_ones() -> None:
    """may_hold's premise, over every code point: no other character can be part of an ASCII hint."""
    import string
    import sys

    from gridgit.store import lazyre

    beyond = "".join(map(chr, range(128, sys.maxunicode + 1)))
    found = re.findall(f"[{string.ascii_lowercase}]", beyond, re.IGNORECASE)
    matched = {c: next(a for a in string.ascii_lowercase if re.fullmatch(a, c, re.IGNORECASE)) for c in found}
    assert matched == lazyre._TO_ASCII


@given(st.text(alphabet=st.sampled_from("kKeEyYıİſ\u212a█é =:_-"), max_size=12))
def test_ruled_out_text_never_matches(text: str) -> None:
    for hint in ("key", "sik", "is"):
        if not may_hold(text, (hint,)):
            assert re.search(hint, text, re.IGNORECASE) is None
