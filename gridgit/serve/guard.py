"""Who may act through the web view, and the checks every write request passes before it acts.

`gridgit serve` acts as Master Control under a name of the person's own (`--as mc-ana`, else
`mc-` and `git config user.name` made into an agent id). A write needs all of:

- the per-run secret token (`secrets.token_urlsafe`, 256 bits, drawn at every start, as Jupyter
  does; or the person's own, `--token`; none at all only on loopback) in the `X-Gridgit-Token`
  header: the page reads it from the URL `serve` printed, so only who was given that URL can
  act; a token of an earlier run is refused;
- a same-origin request: `Sec-Fetch-Site: same-origin` when the browser sends it, and an `Origin`
  that is this server's own (`http://` + the Host header); a request with neither is refused, so a
  page of another site cannot act even where it could guess the token;
- a JSON body (`Content-Type: application/json`) of at most MAX_BODY bytes: a form post (the one
  kind of write another site's page can send without CORS) is refused before anything is read.

A refusal is a WriteRefused with its HTTP status, one line, and nothing changed.
"""

from __future__ import annotations

import hmac
import json
import re
import secrets
import unicodedata
from typing import TYPE_CHECKING, Any

from gridgit.errors import BadInput, PermissionDenied

if TYPE_CHECKING:
    from email.message import Message

    from gridgit.store.layout import Layout

TOKEN_HEADER = "X-Gridgit-Token"
MAX_BODY = 1024 * 1024  # an answer, a plan or a message is at most 64 KiB as stored; a MiB leaves room for JSON
_NAME_RE = re.compile(r"[^a-z0-9_.]+")
_TOKEN_RE = re.compile(r"^[A-Za-z0-9._~-]{16,256}$")
_NONE = "this request carries no token, and a write needs the one of this run"
_STALE = "this request's token, not the one of this run (serve draws a new one each time it starts), is refused"


class WriteRefused(Exception):
    """A write request refused before it acted: HTTP STATUS, error CODE, one-line message."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status, self.code = status, code


def new_token() -> str:
    return secrets.token_urlsafe(32)


def actor(layout: Layout, chosen: str | None) -> str:
    """The Master Control id the page acts as: CHOSEN (`--as`), else `mc-` + `git config user.name`, else `mc`."""
    from gridgit.model import permissions
    from gridgit.store import gitcmd

    if chosen is None:
        # `Ana María López` -> `mc-ana-maria-lopez`: accents dropped (NFKD), anything else not an id's becomes `-`.
        person = unicodedata.normalize("NFKD", gitcmd.config_get(layout.root, "user.name") or "")
        name = _NAME_RE.sub("-", person.encode("ascii", "ignore").decode().lower()).strip("-.")
        chosen = f"mc-{name}"[:64].rstrip("-.") if name else "mc"
    agent = permissions.check_agent(layout, chosen)
    if permissions.agent_type(agent) != "mc":
        raise BadInput(f"--as {agent}: the web view acts as Master Control: an id of type mc, e.g. mc-ana")
    return agent


def same_token(given: str, token: str) -> bool:
    """GIVEN is the run's TOKEN (compared in constant time: no timing tells how much of a guess was right)."""
    return hmac.compare_digest(given.encode("utf-8", "replace"), token.encode("utf-8"))


def check_token(token: str) -> str:
    """A token the person chose (`--token`): 16 to 256 URL-safe characters, so it can go into the URL as it is."""
    if not _TOKEN_RE.match(token):
        raise BadInput(
            "a chosen token, set with --token, else with GRIDGIT_SERVE_TOKEN, must be 16 to 256 characters of "
            "A-Z, a-z, 0-9, -, _, . or ~"
        )
    return token


def check_write(headers: Message, token: str | None) -> None:
    """Refuse a write request (WriteRefused) unless its headers carry the token, a same origin and a JSON body."""
    site = headers.get("Sec-Fetch-Site")
    if site is not None and site != "same-origin":
        raise WriteRefused(403, PermissionDenied.code, f"a {site} request may not act: only this server's own page")
    origin = headers.get("Origin")
    if origin is None and site is None:
        raise WriteRefused(403, PermissionDenied.code, "a write needs a same-origin Origin or Sec-Fetch-Site header")
    if origin is not None and origin != f"http://{headers.get('Host', '')}":
        raise WriteRefused(403, PermissionDenied.code, f"a request from {origin[:100]!r} may not act on this server")
    given = headers.get(TOKEN_HEADER) or ""
    # The messages never put a word after "token": redaction (of every answer) would take it for its value.
    if token is not None and not given:
        raise WriteRefused(403, PermissionDenied.code, f"{_NONE}; open the URL `gridgit serve` printed, whole")
    if token is not None and not same_token(given, token):
        raise WriteRefused(403, PermissionDenied.code, f"{_STALE}; open the URL `gridgit serve` printed, whole")
    kind = (headers.get("Content-Type") or "").split(";", 1)[0].strip().lower()
    if kind != "application/json":
        raise WriteRefused(
            415, BadInput.code, f"a write takes a JSON body (Content-Type: application/json), not {kind or 'none'}"
        )
    length = headers.get("Content-Length")
    if length is None or not length.isdigit():
        raise WriteRefused(411, BadInput.code, "a write needs a Content-Length")
    if int(length) > MAX_BODY:
        raise WriteRefused(413, BadInput.code, f"the request is {int(length)} bytes; a write takes at most {MAX_BODY}")


def parse_body(raw: bytes) -> dict[str, Any]:
    """The JSON object of a write request's body (BadInput for anything else)."""
    try:
        value = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise BadInput(f"the body is not JSON: {str(exc)[:100]}") from None
    if not isinstance(value, dict):
        raise BadInput(f"the body must be a JSON object, not {type(value).__name__}")
    return value
