"""Secret redaction (spec section 9): applied to everything before it is written to .grid/.

Two kinds of pattern: `key: value` pairs whose key names a secret (the spec's list: api key,
secret, password, token, credential, private key) keep the key and lose the value; well-known
token formats (AWS, GitHub, Slack, Stripe, OpenAI, Google keys, JWTs, Bearer tokens, PEM
private keys, passwords in URLs) are replaced wherever they appear. Redacting twice gives
the same text as redacting once.
"""

from __future__ import annotations

import re
from typing import Any

MARK = "[REDACTED]"

# A key that contains one of the spec's words, e.g. `STRIPE_SECRET_KEY`, `db.password`, `"api-key"`.
# `tokens` (plural) is left alone: `max_tokens=4096` is a count in agent tooling, not a secret.
_KEY = r"[\w.-]*(?:api[_-]?key|secret|passw(?:or)?d|token(?!s)|credential|private[_-]?key)[\w.-]*"
_SECRET_KEY_RE = re.compile(_KEY, re.IGNORECASE)
_SCHEME = r"(?:Bearer|Basic|Token)[ \t]+"
_KEY_VALUE_RE = re.compile(
    rf"""(?P<key>\b{_KEY})(?P<sep>["']?\**[ \t]*[:=]\**[ \t]*)(?!(?:{_SCHEME})?\[REDACTED)"""
    rf"""(?P<scheme>{_SCHEME})?(?P<value>"[^"\n]*"|'[^'\n]*'|[^\s"',;&)}}\]*][^\s"',;&)}}\]]*)""",
    re.IGNORECASE,
)

_PEM_RE = re.compile(
    r"(-----BEGIN (?P<kind>[A-Z0-9 ]*)PRIVATE KEY-----)"
    r"(?:.*?(-----END (?P=kind)PRIVATE KEY-----)|\s*(?:\[REDACTED\]\n?)?[A-Za-z0-9+/=\s:,-]*)",
    re.DOTALL,
)
_TOKEN_RES = [
    re.compile(r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[0-9A-Z]{16}\b"),  # AWS access key ids
    re.compile(r"\bgh[pousr]_[A-Za-z0-9]{30,}\b"),  # GitHub tokens
    re.compile(r"\bgithub_pat_[A-Za-z0-9_]{20,}\b"),  # GitHub fine-grained tokens
    re.compile(r"\bxox[abprs]-[A-Za-z0-9-]{8,}"),  # Slack tokens
    re.compile(r"\bxapp-[0-9]-[A-Za-z0-9-]{8,}"),  # Slack app tokens
    re.compile(r"\b(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{10,}\b"),  # Stripe secret keys
    re.compile(r"\bsk-(?:proj-|ant-)?[A-Za-z0-9_-]{20,}"),  # OpenAI / Anthropic keys
    re.compile(r"\bAIza[0-9A-Za-z_-]{35}\b"),  # Google API keys
    re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*"),  # JWTs
]
_BEARER_RE = re.compile(r"\b(Bearer[ \t]+)(?!\[REDACTED)[A-Za-z0-9\-._~+/]{8,}=*", re.IGNORECASE)
_URL_PASSWORD_RE = re.compile(r"\b([a-z][a-z0-9+.-]*://[^\s:/@]+:)(?!\[REDACTED)[^\s@/]+(@)", re.IGNORECASE)


def _pem(match: re.Match[str]) -> str:
    end = match.group(3) or ""
    return f"{match.group(1)}\n{MARK}\n{end}" if end else f"{match.group(1)}\n{MARK}\n"


def _key_value(match: re.Match[str]) -> str:
    value = match.group("value")
    quote = value[0] if value[:1] in ("'", '"') else ""
    return f"{match.group('key')}{match.group('sep')}{match.group('scheme') or ''}{quote}{MARK}{quote}"


def redact(text: str) -> str:
    """TEXT with secret values replaced by [REDACTED]; keys and surrounding text kept."""
    if not text:
        return text
    text = _PEM_RE.sub(_pem, text)
    for pattern in _TOKEN_RES:
        text = pattern.sub(MARK, text)
    text = _BEARER_RE.sub(rf"\1{MARK}", text)
    text = _URL_PASSWORD_RE.sub(rf"\1{MARK}\2", text)
    return _KEY_VALUE_RE.sub(_key_value, text)


def redact_obj(obj: Any) -> Any:
    """A copy of OBJ (JSON-like: dicts, lists, strings) with every string redacted.

    A string under a key that names a secret (`{"password": "x"}`) is replaced whole; keys
    are redacted too, since a dict built from `key=value` text may carry a value there.
    """
    if isinstance(obj, str):
        return redact(obj)
    if isinstance(obj, dict):
        return {
            (redact(k) if isinstance(k, str) else k): (
                MARK if isinstance(v, str) and isinstance(k, str) and _SECRET_KEY_RE.fullmatch(k) else redact_obj(v)
            )
            for k, v in obj.items()
        }
    if isinstance(obj, (list, tuple)):
        return [redact_obj(v) for v in obj]
    return obj
