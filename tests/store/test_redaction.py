"""Secret redaction: the spec's key patterns (value replaced, key kept) and token formats."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gridgit.store.redaction import redact, redact_obj


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("api_key=abc123", "api_key=[REDACTED]"),
        ("API-KEY: 'abc 123'", "API-KEY: '[REDACTED]'"),
        ("apikey: abc", "apikey: [REDACTED]"),
        ("secret = s3cr3t", "secret = [REDACTED]"),
        ("STRIPE_SECRET_KEY=sk_abc", "STRIPE_SECRET_KEY=[REDACTED]"),
        ("password: hunter2", "password: [REDACTED]"),
        ("DB_PASSWD=hunter2", "DB_PASSWD=[REDACTED]"),
        ("token=abc.def", "token=[REDACTED]"),
        ("credential: x", "credential: [REDACTED]"),
        ("private_key: abc", "private_key: [REDACTED]"),
        ("private-key=abc", "private-key=[REDACTED]"),
        ('{"password": "x y", "user": "bob"}', '{"password": "[REDACTED]", "user": "bob"}'),
        ("**Password:** hunter2", "**Password:** [REDACTED]"),
        ("https://x.io/?api_key=abc&page=2", "https://x.io/?api_key=[REDACTED]&page=2"),
    ],
)
def test_spec_patterns_replace_the_value_and_keep_the_key(text: str, expected: str) -> None:
    assert redact(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("key AKIAIOSFODNN7EXAMPLE here", "key [REDACTED] here"),
        ("ghp_" + "A1b2" * 9, "[REDACTED]"),
        ("gho_" + "x" * 36 + " ghs_" + "y" * 36, "[REDACTED] [REDACTED]"),
        ("github_pat_11AAAAAAA0123456789_abcdefghijklmnop", "[REDACTED]"),
        ("slack xoxb-123456-abcdef-XYZ", "slack [REDACTED]"),
        ("xoxp-1-2-3-abcdefgh", "[REDACTED]"),
        ("stripe sk_live_abcdefghijkl1234", "stripe [REDACTED]"),
        ("openai sk-proj-abcdefghijklmnopqrstuvwxyz", "openai [REDACTED]"),
        ("google AIza" + "B" * 35, "google [REDACTED]"),
        (
            "jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U ok",
            "jwt [REDACTED] ok",
        ),
        ("Authorization: Bearer abcdef123456", "Authorization: Bearer [REDACTED]"),
        ("token: Bearer abcdef123456", "token: Bearer [REDACTED]"),
        ("postgres://app:pa55@db.local/x", "postgres://app:[REDACTED]@db.local/x"),
        (
            "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\nq83+/=\n-----END RSA PRIVATE KEY-----\nafter",
            "-----BEGIN RSA PRIVATE KEY-----\n[REDACTED]\n-----END RSA PRIVATE KEY-----\nafter",
        ),
        (
            "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkq\n-----END PRIVATE KEY-----",
            "-----BEGIN PRIVATE KEY-----\n[REDACTED]\n-----END PRIVATE KEY-----",
        ),
        ("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk", "-----BEGIN OPENSSH PRIVATE KEY-----\n[REDACTED]\n"),
    ],
)
def test_token_formats_are_replaced(text: str, expected: str) -> None:
    assert redact(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "Required: STRIPE_SECRET_KEY environment variable.",
        "max_tokens=4096",
        "Found: Auth middleware must run AFTER body parsing middleware.",
        "See entry [3] for the jose error handling pattern.",
        "",
    ],
)
def test_ordinary_text_is_kept(text: str) -> None:
    assert redact(text) == text


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.text(max_size=20),
            st.sampled_from(
                ["password: ", "token=", "Bearer ", "ghp_", "-----BEGIN RSA PRIVATE KEY-----\n", "\n", '"']
            ),
        ),
        max_size=10,
    ).map("".join)
)
def test_redaction_is_idempotent(text: str) -> None:
    once = redact(text)
    assert redact(once) == once


def test_redact_obj_walks_dicts_and_lists() -> None:
    payload = {
        "password": "hunter2",
        "nested": [{"note": "api_key=abc"}, 3, None],
        "tokens_used": "12",
        "topic": "auth",
    }
    assert redact_obj(payload) == {
        "password": "[REDACTED]",
        "nested": [{"note": "api_key=[REDACTED]"}, 3, None],
        "tokens_used": "12",
        "topic": "auth",
    }
    assert payload["password"] == "hunter2"  # a copy, not an in-place change


_KEY_WORDS = ["api key", "Secret", "PASSWD", "passphrase", "pwd", "Token", "credential", "PrivateKey", "sig", "Bearer"]
# Letters re.IGNORECASE matches to ASCII ones, and what separates a key from its value.
_FOLDING = ["ı", "İ", "ſ", "K", "é", "x", " ", "=", ":", "_", "**", '"', "'", "\t", "=>", "-"]


@given(st.lists(st.sampled_from(_KEY_WORDS + _FOLDING) | st.text(max_size=6), max_size=8).map("".join))
def test_the_prefilters_never_skip_a_text_a_pattern_would_match(text: str) -> None:
    # The prefilters stand in for compiling and running the patterns: they may say "maybe"
    # too often, never "no" to a text that a pattern matches.
    from gridgit.store import redaction as r
    from gridgit.store.lazyre import may_hold

    if r._KEYWORD_RE.search(text):
        assert may_hold(text, r._KEYWORD_HINTS)
    if r._BEARER_RE.search(text):
        assert may_hold(text, ("bearer",))
    for keyword in r._KEYWORD_RE.finditer(text):
        key_end = r._KEY_TAIL_RE.match(text, keyword.end())
        assert key_end is not None
        found = r._ASSIGNMENT_RE.match(text, key_end.end())
        if found is not None and found.group("sep").strip():
            assert r._separator_follows(text, key_end.end())


def test_dotless_i_still_names_a_secret() -> None:
    assert redact("credentıal: hunter2") == "credentıal: [REDACTED]"


def test_the_character_index_offers_every_format_a_short_text_holds() -> None:
    """issue 38: gitleaks' formats tripled the token list; a short text tests only the formats its characters
    allow (redaction runs on every write). Every format that matches a corpus text is among them."""
    import json
    from pathlib import Path

    from gridgit.store import redaction as r

    corpus = json.loads((Path(__file__).parents[1] / "fixtures" / "secrets.json").read_text(encoding="utf-8"))
    for case in corpus["secrets"]:
        text = case["text"]
        assert len(text) <= r._SHORT or case["name"].startswith("gitleaks 1password-service")
        offered = r._maybe_tokens(text)
        for group in r._TOKENS:
            if group[1].search(text):
                assert group in offered, (case["name"], group[0])
