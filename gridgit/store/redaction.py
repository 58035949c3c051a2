"""Secret redaction (spec section 9): applied to user text before it is written or shown.

Two kinds of pattern. An assignment whose key names a secret (the spec's list: api key,
secret, password, token, credential, private key, and kin such as `AccountKey`, `pwd`,
`passphrase`, `Authorization`) keeps the key and loses the value, whatever the assignment
looks like: `key = value`, `key: value`, `"key": "value"`, `'key' => 'value'`, `key := value`,
`**Key:** value`, `--key value`. Well-known token formats (cloud keys, VCS and package-registry
tokens, chat and payment keys, JWTs, bearer tokens, private-key blocks, passwords in URLs and
connection strings) are replaced wherever they appear, glued to other words too
(`f_AKIA....py`). Redacting twice gives the same text as redacting once, and the time taken
grows linearly with the text (no pattern backtracks over a long word).

tests/fixtures/secrets.json is the corpus every write path is tested with.
"""

from __future__ import annotations

import re

from gridgit.store.lazyre import lazy, may_hold

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

MARK = "[REDACTED]"


# Words that make a key name a secret: `STRIPE_SECRET_KEY`, `db.password`, `"api-key"`, `Pwd`.
# `tokens` and `tokenizer` are left alone: `max_tokens=4096` is a count in agent tooling.
_KEYWORD = (
    r"api[ _-]?key|secret|passw(?:or)?d|passphrase|\bpwd\b|token(?!s|i[sz])|credential|private[ _-]?key"
    r"|access[_-]?key|account[_-]?key|authorization|\bsig\b"
)
_KEYWORD_RE = lazy(_KEYWORD, re.IGNORECASE)
# A literal that every match of _KEYWORD contains: ASCII text holding none of them names no
# secret, and is let through without compiling or running a pattern (most agent prose).
_KEYWORD_HINTS = ("key", "secret", "passw", "passphrase", "pwd", "token", "credential", "authorization", "sig")
_SECRET_KEY_RE = lazy(rf"[\w.-]*(?:{_KEYWORD})[\w.-]*", re.IGNORECASE)
_KEY_TAIL_RE = lazy(r"[\w.-]{0,100}")
_KEY_HEAD_RE = lazy(r"[\w.-]*\Z")
_SCHEME = r"(?:Bearer|Basic|Token|Digest)[ \t]+"
# What follows a secret key: the separator (quotes and markdown bold around the key allowed),
# then the value, which is a quoted or emphasised string or one bare word. A bare word that is
# itself followed by a separator is the next key (`Credentials: password = hunter2`), so the
# value is taken atomically and must not be followed by one.
_ASSIGNMENT_RE = lazy(
    r"""(?P<sep>(?>["'`]?(?:\*\*)?[ \t]*(?:=>|:=|==|[:=])(?:\*\*)?[ \t]*|[ \t]+(?=\S)))"""
    rf"""(?!(?:{_SCHEME})?[*"'`]?\[REDACTED\])(?P<scheme>{_SCHEME})?"""
    r"""(?P<value>(?>"[^"\n]*"|'[^'\n]*'|`[^`\n]*`|\*{1,2}[^*\n]+\*{1,2}|[^\s"'`,;&)}\]*<>=:][^\s"'`,;&)}\]]*))"""
    r"""(?![ \t]*(?:=>|:=|=|:(?!//)))""",
    re.IGNORECASE,
)

_PEM_RE = lazy(
    r"(-----BEGIN (?P<kind>[A-Z0-9 ]*)PRIVATE KEY(?P<block> BLOCK|)-----)"
    r"(?:.*?(-----END (?P=kind)PRIVATE KEY(?P=block)-----)|\s*(?:\[REDACTED\]\n?)?[A-Za-z0-9+/=\s:,-]*)",
    re.DOTALL,
)
_PEM_HEAD_RE = lazy(r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----")
# Token formats: left and right edges are "not another character of the token", so a token
# glued to a word (`f_AKIA....py`, `key=ghp_...`) is still found.
_A = r"(?<![A-Za-z0-9])"
_Z = r"(?![A-Za-z0-9])"
# Each token format with the literal text it must contain: a format whose hint is absent is
# not searched at all (a substring test is far cheaper than a regex over the whole text).
_TOKENS: list[tuple[tuple[str, ...], re.Pattern[str]]] = [
    (
        ("AKIA", "ASIA", "AGPA", "AIDA", "AROA", "ANPA", "ANVA", "AIPA", "ABIA", "ACCA"),
        lazy(r"(?<![A-Z0-9])(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA|ABIA|ACCA)[0-9A-Z]{16}(?![A-Z0-9])"),
    ),  # AWS key ids
    (("gh",), lazy(rf"{_A}gh[pousr]_[A-Za-z0-9]{{30,}}{_Z}")),  # GitHub tokens
    (("github_pat_",), lazy(rf"{_A}github_pat_[A-Za-z0-9_]{{20,}}")),  # GitHub fine-grained tokens
    (("gl",), lazy(rf"{_A}gl(?:pat|ptt|dt|rt|cbt|oas|ft|imt|soat|agent)-[0-9A-Za-z_-]{{20,}}")),  # GitLab tokens
    (("GR1348941",), lazy(rf"{_A}GR1348941[0-9A-Za-z_-]{{20,}}")),  # GitLab runner registration tokens
    (("npm_",), lazy(rf"{_A}npm_[A-Za-z0-9]{{36,}}{_Z}")),  # npm tokens
    (("pypi-",), lazy(rf"{_A}pypi-Ag[A-Za-z0-9_-]{{40,}}")),  # PyPI API tokens
    (("xox",), lazy(r"xox[abposr]-[A-Za-z0-9-]{8,}")),  # Slack tokens
    (("xapp-",), lazy(r"xapp-[0-9]-[A-Za-z0-9-]{8,}")),  # Slack app tokens
    (
        ("hooks.slack.com",),
        lazy(r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9/_-]+"),
    ),  # Slack webhooks
    (("_live_", "_test_"), lazy(rf"{_A}(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{{10,}}")),  # Stripe secret keys
    (("whsec_",), lazy(rf"{_A}whsec_[A-Za-z0-9]{{20,}}")),  # Stripe webhook secrets
    (
        ("sk-",),
        lazy(r"sk-(?:proj-|ant-(?:api03-|admin01-)?|svcacct-|admin-)?[A-Za-z0-9_-]{20,}"),
    ),  # OpenAI / Anthropic
    (("AIza",), lazy(rf"{_A}AIza[0-9A-Za-z_-]{{35}}")),  # Google API keys
    (("ya29.",), lazy(rf"{_A}ya29\.[0-9A-Za-z_-]{{20,}}")),  # Google OAuth access tokens
    (("GOCSPX-",), lazy(rf"{_A}GOCSPX-[0-9A-Za-z_-]{{20,}}")),  # Google OAuth client secrets
    (("Q~",), lazy(r"(?<![\w~.-])[\w~.-]{3}\dQ~[\w~.-]{31,40}")),  # Azure AD client secrets
    (("hf_",), lazy(rf"{_A}hf_[A-Za-z0-9]{{30,}}{_Z}")),  # Hugging Face tokens
    (("SG.",), lazy(rf"{_A}SG\.[\w-]{{20,24}}\.[\w-]{{40,46}}")),  # SendGrid keys
    (("SK",), lazy(rf"{_A}SK[0-9a-f]{{32}}{_Z}")),  # Twilio API keys
    (("dop_v1_",), lazy(rf"{_A}dop_v1_[a-f0-9]{{64}}{_Z}")),  # DigitalOcean tokens
    (("shp",), lazy(rf"{_A}shp(?:at|ss|ca|pa)_[a-fA-F0-9]{{32}}{_Z}")),  # Shopify tokens
    (("eyJ",), lazy(r"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*")),  # JWTs
]
_BEARER_RE = lazy(r"\b(Bearer[ \t]+)(?!\[REDACTED)[A-Za-z0-9\-._~+/]{8,}=*", re.IGNORECASE)
# `scheme://user:password@host` and `scheme://:password@host` (redis); the password runs to
# the last `@` of the authority, so a password holding an `@` goes whole.
_URL_PASSWORD_RE = lazy(r"\b([a-z][a-z0-9+.-]{0,30}://[^\s:/@]{0,200}:)(?!\[REDACTED\]@)[^\s/?#]+(@)", re.IGNORECASE)


def _pem(match: re.Match[str]) -> str:
    end = match.group(4) or ""
    return f"{match.group(1)}\n{MARK}\n{end}" if end else f"{match.group(1)}\n{MARK}\n"


def _assignments(text: str) -> str:
    """TEXT with the value of every secret key's assignment replaced (see _ASSIGNMENT_RE)."""
    out: list[str] = []
    done = 0
    for keyword in _KEYWORD_RE.finditer(text):
        if keyword.start() < done or _in_path(text, keyword.start()):
            continue
        key_end = _KEY_TAIL_RE.match(text, keyword.end())
        assert key_end is not None  # {0,100} always matches
        if not _separator_follows(text, key_end.end()) and not _is_flag(text, keyword.start()):
            continue  # `the token refresh flow`: prose, decided without _ASSIGNMENT_RE (see below)
        found = _ASSIGNMENT_RE.match(text, key_end.end())
        if found is None:
            continue
        value = found.group("value")
        if found.group("sep").strip() == "" and not _is_flag(text, keyword.start()):
            continue  # `the token refresh flow`: a key followed by a space is prose, unless `--token x`
        wrap = value[0] if value[0] in "\"'`" else value[: len(value) - len(value.lstrip("*"))]
        out += [text[done : found.start("value")], f"{wrap}{MARK}{wrap[::-1] if value.endswith(wrap) else ''}"]
        done = found.end("value")
    return "".join(out) + text[done:] if out else text


def _separator_follows(text: str, pos: int) -> bool:
    """Whether an `=` or `:` separator may start at POS (after a closing quote, `**` and blanks).

    Without one, _ASSIGNMENT_RE could only match a key followed by blanks, which is prose
    unless the key is a flag: the caller skips the pattern (and its compiling) for that.
    """
    if pos < len(text) and text[pos] in "\"'`":
        pos += 1
    if text.startswith("**", pos):
        pos += 2
    while pos < len(text) and text[pos] in " \t":
        pos += 1
    return pos < len(text) and text[pos] in "=:"


def _in_path(text: str, start: int) -> bool:
    """Whether the key word at START is a path component (`/etc/passwd: no such file`), not a key."""
    word = _KEY_HEAD_RE.search(text, max(0, start - 100), start)
    begin = word.start() if word else start
    return begin > 0 and text[begin - 1] in "/\\"


def _is_flag(text: str, start: int) -> bool:
    """Whether the key at START is a command-line flag (`--password hunter2`)."""
    line_start = text.rfind("\n", 0, start) + 1
    word_start = max(text.rfind(" ", line_start, start), text.rfind("\t", line_start, start), line_start - 1) + 1
    return text.startswith("-", word_start)


def redact(text: str) -> str:
    """TEXT with secret values replaced by [REDACTED]; keys and surrounding text kept."""
    if not text:
        return text
    if "PRIVATE KEY" in text:
        text = _PEM_RE.sub(_pem, text)
    for hints, pattern in _TOKENS:
        for hint in hints:
            if hint in text:
                text = pattern.sub(MARK, text)
                break
    if may_hold(text, ("bearer",)):
        text = _BEARER_RE.sub(rf"\1{MARK}", text)
    if "://" in text:
        text = _URL_PASSWORD_RE.sub(rf"\1{MARK}\2", text)
    return _assignments(text) if may_hold(text, _KEYWORD_HINTS) else text


def redact_line(text: str) -> str:
    """One line of TEXT redacted, and kept one line: a private key's header goes whole.

    The key it announces cannot be on this line; left there, the header would take whatever
    follows it when this line becomes part of a larger text (a block's name in its plan's title).
    """
    clean = redact(text)
    if "\n" not in clean:
        return clean
    return " ".join(part for part in _PEM_HEAD_RE.sub(MARK, clean).split("\n") if part)


def names_secret(key: str) -> bool:
    """Whether KEY (a dict key, a field name) names a secret, like `password` or `api_key`."""
    return may_hold(key, _KEYWORD_HINTS) and _SECRET_KEY_RE.fullmatch(key) is not None


def distinct_name(name: str) -> str:
    """NAME when it holds no secret, else `redacted-` and the first 10 hex digits of its SHA-256.

    For names that are keys (a budget bucket's session or model, a JSON key): `[REDACTED]` would
    make two names that differ only in their secrets one, merging what they name.
    """
    if redact(name) == name:
        return name
    import hashlib

    return f"redacted-{hashlib.sha256(name.encode('utf-8', 'surrogatepass')).hexdigest()[:10]}"


def redact_obj(obj: Any, key: Any = None) -> Any:
    """A copy of OBJ (JSON-like: dicts, lists, strings) with every string redacted.

    A string under a key that names a secret (`{"password": "x"}`) is replaced whole; keys
    are redacted too, since a dict built from `key=value` text may carry a value there: by KEY
    when given (distinct_name keeps distinct keys apart), else as any text.
    """
    if isinstance(obj, str):
        return redact(obj)
    if isinstance(obj, dict):
        name = key or redact
        return {
            (name(k) if isinstance(k, str) else k): (
                MARK if isinstance(v, str) and isinstance(k, str) and names_secret(k) else redact_obj(v, key)
            )
            for k, v in obj.items()
        }
    if isinstance(obj, (list, tuple)):
        return [redact_obj(v, key) for v in obj]
    return obj
