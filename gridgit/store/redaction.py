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
# The self-identifying formats of gitleaks' rule set (config/gitleaks.toml, https://github.com/gitleaks/gitleaks)
# that the list below had not: each is found by its prefix alone, wherever it stands. The rules gitleaks
# finds only near a keyword (`adafruit ... = <32 characters>`) are the assignments of _ASSIGNMENT_RE when the
# key names a secret; tests/fixtures/secrets.json has one case per rule, named after its gitleaks id.
_GITLEAKS: list[tuple[tuple[str, ...], re.Pattern[str]]] = [
    (
        ("A3-",),
        lazy(
            rf"A3-(?<![A-Za-z0-9]A3-)[A-Z0-9]{{6}}-(?:[A-Z0-9]{{11}}|[A-Z0-9]{{6}}-[A-Z0-9]{{5}})(?:-[A-Z0-9]{{5}}){{3}}{_Z}"
        ),
    ),
    (("ops_eyJ",), lazy(r"ops_eyJ[A-Za-z0-9+/]{250,}={0,3}")),  # 1Password service account
    (("p8e-",), lazy(rf"p8e-(?<![A-Za-z0-9]p8e-)[A-Za-z0-9]{{32}}{_Z}")),  # Adobe client secret
    (("AGE-SECRET-KEY-1",), lazy(r"AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}")),  # age
    (("pat",), lazy(rf"pat(?<![A-Za-z0-9]pat)[A-Za-z0-9]{{14}}\.[a-f0-9]{{64}}{_Z}")),  # Airtable personal access token
    (("LTAI",), lazy(rf"LTAI(?<![A-Za-z0-9]LTAI)[A-Za-z0-9]{{20}}{_Z}")),  # Alibaba access key id
    (("AKCp",), lazy(rf"AKCp(?<![A-Za-z0-9]AKCp)[A-Za-z0-9]{{69}}{_Z}")),  # Artifactory API key
    (("cmVmd",), lazy(rf"cmVmd(?<![A-Za-z0-9]cmVmd)[A-Za-z0-9]{{59}}{_Z}")),  # Artifactory reference token
    (
        (".acc",),
        lazy(
            r"(?:sc|ext|scauth|authress)_[A-Za-z0-9]{5,30}\.[A-Za-z0-9]{4,6}\.acc[_-][a-z0-9-]{10,32}\.[a-z0-9+/_=-]{30,120}"
        ),
    ),  # Authress service client access key
    (("ABSK",), lazy(r"ABSK(?<![A-Za-z0-9]ABSK)[A-Za-z0-9+/]{109,269}={0,2}")),  # Amazon Bedrock long-lived key
    (("bedrock-api-key-",), lazy(r"bedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t[A-Za-z0-9+/=&%_-]*")),  # short-lived
    (("4b1d",), lazy(rf"4b1d(?<![A-Za-z0-9]4b1d)[A-Za-z0-9]{{38}}{_Z}")),  # ClickHouse Cloud API secret
    (("CLOJARS_", "clojars_"), lazy(rf"{_A}(?i:clojars)_[A-Za-z0-9]{{60}}{_Z}")),  # Clojars
    (("v1.0-",), lazy(rf"v1(?<![A-Za-z0-9]v1)\.0-[a-f0-9]{{24}}-[a-f0-9]{{146}}{_Z}")),  # Cloudflare origin CA key
    (("dapi",), lazy(rf"dapi(?<![A-Za-z0-9]dapi)[a-f0-9]{{32}}(?:-\d)?{_Z}")),  # Databricks
    (("dp.pt.",), lazy(r"dp(?<![A-Za-z0-9]dp)\.pt\.[A-Za-z0-9]{43}")),  # Doppler
    (("duffel_",), lazy(r"duffel_(?:test|live)_[A-Za-z0-9_=-]{43}")),  # Duffel
    (("dt0c01.",), lazy(r"dt0c01\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{64}")),  # Dynatrace
    (("EZAK", "EZTK"), lazy(rf"EZ(?<![A-Za-z0-9]EZ)[AT]K[A-Za-z0-9]{{54}}{_Z}")),  # EasyPost
    (("EAAM", "EAAC"), lazy(r"EAA(?<![A-Za-z0-9]EAA)[MC][A-Za-z0-9]{100,}")),  # Facebook page access token
    (("FLW",), lazy(r"FLW(?:SECK|PUBK)_TEST-[A-Ha-h0-9]{12,32}(?:-X)?")),  # Flutterwave
    (
        ("fo1_", "fm1a_", "fm1r_", "fm2_"),
        lazy(rf"{_A}(?:fo1_[\w-]{{43}}|fm1[ar]_[A-Za-z0-9+/]{{100,}}={{0,3}}|fm2_[A-Za-z0-9+/]{{100,}}={{0,3}})"),
    ),  # Fly.io
    (("fio-u-",), lazy(r"fio-u-[A-Za-z0-9_=-]{64}")),  # Frame.io
    (("_gitlab_session=",), lazy(r"(?<=_gitlab_session=)[0-9a-z]{32}")),  # GitLab session cookie
    (("eyJrIjoi",), lazy(r"eyJrIjoi[A-Za-z0-9]{70,400}={0,3}")),  # Grafana API key
    (("glc_",), lazy(r"glc_(?<![A-Za-z0-9]glc_)[A-Za-z0-9+/]{32,400}={0,3}")),  # Grafana cloud API token
    (
        ("glsa_",),
        lazy(rf"glsa_(?<![A-Za-z0-9]glsa_)[A-Za-z0-9]{{32}}_[A-Fa-f0-9]{{8}}{_Z}"),
    ),  # Grafana service account token
    (("pat.", "sat."), lazy(rf"{_A}(?:pat|sat)\.[\w-]{{22}}\.[A-Za-z0-9]{{24}}\.[A-Za-z0-9]{{20}}{_Z}")),  # Harness
    ((".atlasv1.",), lazy(r"[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,70}")),  # HashiCorp Terraform
    (("HRKU-AA",), lazy(r"HRKU-AA[0-9A-Za-z_-]{58}")),  # Heroku API key v2
    (("api_org_",), lazy(rf"api_org_(?<![A-Za-z0-9]api_org_)[A-Za-z]{{34}}{_Z}")),  # Hugging Face organisation token
    (("ico-",), lazy(rf"ico-(?<![A-Za-z0-9]ico-)[A-Za-z0-9]{{32}}{_Z}")),  # Infracost
    (("s-s4t2",), lazy(rf"s-s4t2(?<![A-Za-z0-9]s-s4t2)(?:ud|af)-[A-Fa-f0-9]{{64}}{_Z}")),  # 42 Intra client secret
    (
        ("ZXlK",),
        lazy(
            r"ZXlK(?:aGJHY2lPaU|aGNIVWlPaU|aGNIWWlPaU|aGRXUWlPaU|aU5qUWlP|amNtbDBJanBi|amRIa2lPaU|bGNHc2lPbn"
            r"|bGJtTWlPaU|cWEzVWlPaU|cWQyc2lPb|cGMzTWlPaU|cGRpSTZJ|cmFXUWlP|clpYbGZiM0J6SWpwY|cmRIa2lPaUp"
            r"|dWIyNWpaU0k2|d01tTWlP|d01uTWlPaU|d2NIUWlPaU|emRXSWlPaU|emRuUWlP|MFlXY2lPaU|MGVYQWlPaUp|MWNtd2l"
            r"|MWMyVWlPaUp|MlpYSWlPaU|MlpYSnphVzl1SWpv|NElqb2|NE5XTWlP|NE5YUWlPaU|NE5YUWpVekkxTmlJNkl|NE5YVWlPaU"
            r"|NmFYQWlPaU)[A-Za-z0-9/_+-]{40,}={0,2}"
        ),
    ),  # a JWT, base64-encoded again
    (("lin_api_",), lazy(rf"lin_api_(?<![A-Za-z0-9]lin_api_)[A-Za-z0-9]{{40}}{_Z}")),  # Linear
    (("_mmk",), lazy(rf"{_A}[A-Za-z0-9]{{6}}_[A-Za-z0-9]{{29}}_mmk{_Z}")),  # MaxMind license key
    (("webhook.office.com",), lazy(r"https://[a-z0-9]+\.webhook\.office\.com/webhookb2/[^\s\"'`<>]+")),  # Teams
    (("ntn_",), lazy(rf"ntn_(?<![A-Za-z0-9]ntn_)[0-9]{{11}}[A-Za-z0-9]{{35}}{_Z}")),  # Notion
    (("API-",), lazy(rf"API-(?<![A-Za-z0-9]API-)[A-Z0-9]{{26}}{_Z}")),  # Octopus Deploy
    (("sha256~",), lazy(r"(?<![\w-])sha256~[\w-]{43}(?![\w-])")),  # OpenShift user token
    (("pplx-",), lazy(rf"pplx-(?<![A-Za-z0-9]pplx-)[A-Za-z0-9]{{48}}{_Z}")),  # Perplexity
    (("pscale_",), lazy(r"pscale_(?<![A-Za-z0-9]pscale_)(?:tkn|oauth|pw)_[\w=.-]{32,64}")),  # PlanetScale
    (("PMAK-",), lazy(rf"PMAK-(?<![A-Za-z0-9]PMAK-)[A-Fa-f0-9]{{24}}-[A-Fa-f0-9]{{34}}{_Z}")),  # Postman
    (("pnu_",), lazy(rf"pnu_(?<![A-Za-z0-9]pnu_)[A-Za-z0-9]{{36}}{_Z}")),  # Prefect
    (("pul-",), lazy(rf"pul-(?<![A-Za-z0-9]pul-)[a-f0-9]{{40}}{_Z}")),  # Pulumi
    (("rdme_",), lazy(rf"rdme_(?<![A-Za-z0-9]rdme_)[a-z0-9]{{70}}{_Z}")),  # ReadMe
    (("rubygems_",), lazy(rf"rubygems_(?<![A-Za-z0-9]rubygems_)[a-f0-9]{{48}}{_Z}")),  # RubyGems
    (("tk-us-",), lazy(r"tk-us-(?<![A-Za-z0-9]tk-us-)[\w-]{48}")),  # Scalingo
    (("xkeysib-",), lazy(rf"xkeysib-(?<![A-Za-z0-9]xkeysib-)[a-f0-9]{{64}}-[A-Za-z0-9]{{16}}{_Z}")),  # Sendinblue
    (("sntrys_eyJ",), lazy(r"sntrys_eyJpYXQiO[A-Za-z0-9+/=_]{40,}")),  # Sentry organisation token
    (("sntryu_",), lazy(rf"sntryu_(?<![A-Za-z0-9]sntryu_)[a-f0-9]{{64}}{_Z}")),  # Sentry user token
    (("sm_",), lazy(rf"sm_(?<![A-Za-z0-9]sm_)(?:aat|pat|sat)_[A-Za-z0-9]{{16}}{_Z}")),  # SettleMint
    (("shippo_",), lazy(rf"shippo_(?<![A-Za-z0-9]shippo_)(?:live|test)_[A-Fa-f0-9]{{40}}{_Z}")),  # Shippo
    (
        ("sgp_",),
        lazy(rf"sgp_(?<![A-Za-z0-9]sgp_)(?:(?:[a-fA-F0-9]{{16}}|local)_)?[a-fA-F0-9]{{40}}{_Z}"),
    ),  # Sourcegraph
    (("EAAA", "sq0atp-"), lazy(rf"{_A}(?:EAAA|sq0atp-)[\w-]{{22,60}}")),  # Square
    (("hvb.", "hvs."), lazy(rf"{_A}(?:hvb\.[\w-]{{138,300}}|hvs\.[\w-]{{90,120}})")),  # HashiCorp Vault
]
# Each token format with the literal text it must contain: a format whose hint is absent is
# not searched at all (a substring test is far cheaper than a regex over the whole text).
_TOKENS: list[tuple[tuple[str, ...], re.Pattern[str]]] = [
    (
        ("AKIA", "ASIA", "AGPA", "AIDA", "AROA", "ANPA", "ANVA", "AIPA", "ABIA", "ACCA", "A3T"),
        lazy(r"(?<![A-Z0-9])(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA|ABIA|ACCA|A3T[A-Z0-9])[0-9A-Z]{16}(?![A-Z0-9])"),
    ),  # AWS key ids
    (("gh",), lazy(rf"{_A}gh[pousr]_[A-Za-z0-9]{{30,}}{_Z}")),  # GitHub tokens
    (("github_pat_",), lazy(rf"{_A}github_pat_[A-Za-z0-9_]{{20,}}")),  # GitHub fine-grained tokens
    (("gl",), lazy(rf"{_A}gl(?:pat|ptt|dt|rt|cbt|oas|ft|ffct|imt|soat|agent)-[0-9A-Za-z_-]{{20,}}")),  # GitLab tokens
    (("GR1348941",), lazy(rf"{_A}GR1348941[0-9A-Za-z_-]{{20,}}")),  # GitLab runner registration tokens
    (("npm_",), lazy(rf"{_A}npm_[A-Za-z0-9]{{36,}}{_Z}")),  # npm tokens
    (("pypi-",), lazy(rf"{_A}pypi-Ag[A-Za-z0-9_-]{{40,}}")),  # PyPI API tokens
    (("xox",), lazy(r"xox[abposre]-[A-Za-z0-9-]{8,}")),  # Slack tokens (xoxe: configuration tokens)
    (("xapp-",), lazy(r"xapp-[0-9]-[A-Za-z0-9-]{8,}")),  # Slack app tokens
    (
        ("hooks.slack.com",),
        lazy(r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9/_-]+"),
    ),  # Slack webhooks
    (("_live_", "_test_", "_prod_"), lazy(rf"{_A}(?:sk|rk)_(?:live|test|prod)_[0-9A-Za-z]{{10,}}")),  # Stripe
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
    (("dop_v1_", "doo_v1_", "dor_v1_"), lazy(rf"{_A}do[opr]_v1_[a-f0-9]{{64}}{_Z}")),  # DigitalOcean tokens
    (("shp",), lazy(rf"{_A}shp(?:at|ss|ca|pa)_[a-fA-F0-9]{{32}}{_Z}")),  # Shopify tokens
    (("eyJ",), lazy(r"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*")),  # JWTs
    *_GITLEAKS,
]
# gitleaks' rules whose secret follows a context that is kept: group 1 stays, the value after it goes.
_AFTER: list[tuple[tuple[str, ...], re.Pattern[str]]] = [
    (
        ("curl",),
        lazy(r"""(\bcurl\b[^\n]*?[ \t](?:-u|--user)(?:=|[ \t]{1,5})["']?[^\s:"']{1,100}:)[^\s"']{3,}"""),
    ),  # curl-auth-user: `curl -u user:password`, the user kept
    (
        ("<add key=",),
        lazy(r"""(?i)(<add key="(?:ClearText)?Password"\s*value=")[^"]{8,}"""),
    ),  # nuget-config-password
]
# gitleaks' kubernetes-secret-yaml: the values of a Secret's `data:` map (base64), in a text that says `kind: Secret`.
_K8S_SECRET_RE = lazy(r"""\bkind:[ \t]*["']?Secret\b""", re.IGNORECASE)
_K8S_DATA_RE = lazy(r"""(?m)^([ \t]*data:[ \t]*\n)((?:[ \t]+[\w.-]+:[ \t]*\S.*\n?)+)""")
_K8S_VALUE_RE = lazy(r"""(?m)^([ \t]+[\w.-]+:[ \t]*)["']?(?!\[REDACTED\])[A-Za-z0-9+/]{10,}={0,3}["']?[ \t]*$""")
# Which token formats a text may hold, without testing each of ~100 hints (the loop alone cost a short write
# ~15 µs): each hint is filed under its rarest character, and a short text's characters pick the formats
# worth testing. A long text tests every hint: there, `in` over the text costs less than hashing each character.
# Characters by how common they are in agents' prose and paths, the most common first; an uppercase letter,
# `_` or `~` is rarer than any.
_COMMON_FIRST = "etaoinsrhldcu./mfpg0123456789-wybvk:xjqz"


def _rarest(hint: str) -> str:
    return max(hint, key=lambda c: _COMMON_FIRST.find(c) if c in _COMMON_FIRST else len(_COMMON_FIRST))


_BY_CHAR: dict[str, list[int]] = {}
for _number, (_hints, _) in enumerate(_TOKENS):
    for _hint in _hints:
        if _number not in _BY_CHAR.setdefault(_rarest(_hint), []):
            _BY_CHAR[_rarest(_hint)].append(_number)
_INDEXED = frozenset(_BY_CHAR)
_SHORT = 512


def _maybe_tokens(text: str) -> list[tuple[tuple[str, ...], re.Pattern[str]]]:
    """The token formats whose hints TEXT may hold (every one for a long text), in _TOKENS's order."""
    if len(text) > _SHORT:
        return _TOKENS
    numbers = {n for c in _INDEXED.intersection(text) for n in _BY_CHAR[c]}
    return [_TOKENS[n] for n in sorted(numbers)]


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
    for hints, pattern in _maybe_tokens(text):
        for hint in hints:
            if hint in text:
                text = pattern.sub(MARK, text)
                break
    if may_hold(text, ("bearer",)):
        text = _BEARER_RE.sub(rf"\1{MARK}", text)
    for hints, pattern in _AFTER:
        if any(hint in text for hint in hints):
            text = pattern.sub(rf"\1{MARK}", text)
    if "data:" in text and may_hold(text, ("secret",)) and _K8S_SECRET_RE.search(text):
        text = _K8S_DATA_RE.sub(lambda m: m.group(1) + _K8S_VALUE_RE.sub(rf"\1{MARK}", m.group(2)), text)
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
