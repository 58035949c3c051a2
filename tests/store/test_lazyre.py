"""Patterns compiled on first use behave as the compiled pattern."""

from __future__ import annotations

import re

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


def test_only_ascii_text_without_a_hint_is_ruled_out() -> None:
    assert may_hold("API_KEY=x", ("key",))
    assert not may_hold("plain prose", ("key", "token"))
    assert may_hold("credentıal", ("credential",))  # `ı` matches `i` under re.IGNORECASE
    assert re.search("credential", "credentıal", re.IGNORECASE)
