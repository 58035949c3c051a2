"""One HTTP request: the page, a JSON API route, or the live event stream. GET and HEAD only.

Every answer carries a strict Content-Security-Policy, `nosniff` and `no-store`. The JSON is
the CLI's `--json` envelope with `<`, `>` and `&` escaped, so no byte of it reads as markup
even to a careless client. On a loopback address a request whose Host header names another
host is refused: that is how a web page elsewhere reaches a local server (DNS rebinding).
"""

from __future__ import annotations

import json
import logging
import select
import socket
import time
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler
from typing import TYPE_CHECKING, Any, Protocol, cast
from urllib.parse import parse_qs, urlsplit

from gridgit.cli.common import envelope, error_envelope
from gridgit.errors import BadInput, GridError, LockTimeout, NotFound, NotInitialised
from gridgit.serve import page as page_mod
from gridgit.serve.feed import EventFeed, TooManyClients
from gridgit.serve.routes import ROUTES, Route

if TYPE_CHECKING:
    from gridgit.store.layout import Layout

STREAM = "/api/stream"
# A comment line this often keeps proxies and browsers from timing a quiet stream out; every
# CHECK_SECONDS a quiet stream looks whether its page went away, freeing its slot.
KEEPALIVE_SECONDS = 15.0
CHECK_SECONDS = 1.0
log = logging.getLogger("gridgit.serve")

_HTTP_STATUS = {BadInput: 400, NotFound: 404, NotInitialised: 503, LockTimeout: 503}


def to_json(data: Any) -> bytes:
    """JSON text with <, > and & as \\u escapes (they only ever occur inside strings)."""
    text = json.dumps(data, ensure_ascii=False, default=str)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026").encode("utf-8")


class Site(Protocol):
    """What a request needs of its server (gridgit.serve.server.GridServer)."""

    layout: Layout
    feed: EventFeed

    def host_allowed(self, header: str | None) -> bool: ...


class Handler(BaseHTTPRequestHandler):
    # Seconds a connection may stay silent (a client that never sends its request, a page that stops reading).
    timeout = 30

    @property
    def site(self) -> Site:
        return cast(Site, self.server)

    def version_string(self) -> str:
        return "gridgit"  # not the Python version: nothing for a scanner to match

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: a line per request (and a stream per open page) would drown the terminal."""

    def do_GET(self) -> None:
        self._answer(body=True)

    def do_HEAD(self) -> None:
        self._answer(body=False)

    def _refuse_method(self) -> None:
        self._send(HTTPStatus.METHOD_NOT_ALLOWED, "text/plain; charset=utf-8", b"read-only: GET and HEAD only\n", True)

    do_POST = do_PUT = do_PATCH = do_DELETE = do_OPTIONS = _refuse_method

    # ---- dispatch ------------------------------------------------------------------------------

    def _answer(self, body: bool) -> None:
        if not self.site.host_allowed(self.headers.get("Host")):
            self._send(HTTPStatus.FORBIDDEN, "text/plain; charset=utf-8", b"unexpected Host header\n", body)
            return
        url = urlsplit(self.path)
        if url.path in ("/", "/index.html"):
            page = page_mod.page()
            self._send(HTTPStatus.OK, "text/html; charset=utf-8", page.body, body, page.policy)
        elif url.path == STREAM:
            self._stream(body)
        elif url.path in ROUTES:
            self._api(ROUTES[url.path], parse_qs(url.query, keep_blank_values=True), body)
        elif url.path.startswith("/api/"):
            known = ", ".join(sorted([*ROUTES, STREAM]))
            self._json(
                HTTPStatus.NOT_FOUND, error_envelope("not_found", f"no route {url.path} (routes: {known})"), body
            )
        else:
            self._send(HTTPStatus.NOT_FOUND, "text/plain; charset=utf-8", b"not found\n", body)

    def _api(self, route: Route, query: dict[str, list[str]], body: bool) -> None:
        from gridgit.blackboard import Blackboard

        try:
            # A Blackboard per request: config.json is read afresh, like a CLI call would.
            data = route(Blackboard(self.site.layout.root), query)
        except GridError as exc:
            status = next((s for kind, s in _HTTP_STATUS.items() if isinstance(exc, kind)), 500)
            self._json(status, error_envelope(exc.code, str(exc)), body)
            return
        except OSError as exc:
            self._json(500, error_envelope("error", f"{exc.filename or self.path}: {exc.strerror or exc}"), body)
            return
        except Exception as exc:  # a bug: the page still gets an answer, the terminal the traceback
            log.exception("gridgit serve: %s", self.path)
            self._json(500, error_envelope("internal", f"{type(exc).__name__}: {exc}"), body)
            return
        self._json(HTTPStatus.OK, envelope(data), body)

    def _stream(self, body: bool) -> None:
        feed = self.site.feed
        try:
            after = feed.join(self.headers.get("Last-Event-ID"))
        except TooManyClients as exc:
            self._json(HTTPStatus.SERVICE_UNAVAILABLE, error_envelope("busy", str(exc)), body)
            return
        self.close_connection = True
        try:
            self._send(HTTPStatus.OK, "text/event-stream; charset=utf-8", None, body, extra={"X-Accel-Buffering": "no"})
            if not body:
                return
            self.wfile.write(b"retry: 1000\n: gridgit live events\n\n")
            quiet_since = time.monotonic()
            while True:
                got = feed.wait(after, CHECK_SECONDS)
                if got is None:  # the server is stopping
                    return
                fresh, after, lost = got
                if not fresh and not lost:
                    if self._client_gone():
                        return
                    if time.monotonic() - quiet_since < KEEPALIVE_SECONDS:
                        continue
                # `resync`: events were dropped before this stream read them; the page reads everything again.
                chunks = [b"event: resync\ndata: {}\n\n"] if lost else []
                chunks += [
                    b"id: " + e["id"].encode("ascii", "replace") + b"\ndata: " + to_json(e) + b"\n\n" for e in fresh
                ]
                self.wfile.write(b"".join(chunks) or b": keep-alive\n\n")
                quiet_since = time.monotonic()
        except (ConnectionError, TimeoutError):
            return  # the page went away
        finally:
            feed.leave()

    def _client_gone(self) -> bool:
        """True once the page closed its end: a stream reads nothing after its request, so readable means EOF."""
        try:
            readable, _, _ = select.select([self.connection], [], [], 0)
            return bool(readable) and not self.connection.recv(1, socket.MSG_PEEK)
        except OSError:
            return True

    # ---- responses --------------------------------------------------------------------------------

    def _json(self, status: int, answer: dict[str, Any], body: bool) -> None:
        self._send(status, "application/json; charset=utf-8", to_json(answer), body)

    def _send(
        self,
        status: int,
        content_type: str,
        payload: bytes | None,
        body: bool,
        policy: str = page_mod.API_POLICY,
        extra: dict[str, str] | None = None,
    ) -> None:
        """Status line and headers, then PAYLOAD (unless HEAD); None: a stream whose length is unknown."""
        self.send_response(status)
        headers = {
            "Content-Type": content_type,
            "Cache-Control": "no-store",
            "Content-Security-Policy": policy,
            "X-Content-Type-Options": "nosniff",
            "X-Frame-Options": "DENY",
            "Referrer-Policy": "no-referrer",
            "Cross-Origin-Resource-Policy": "same-origin",
            **(extra or {}),
        }
        if payload is not None:
            headers["Content-Length"] = str(len(payload))
        if status == HTTPStatus.METHOD_NOT_ALLOWED:
            headers["Allow"] = "GET, HEAD"
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        if body and payload is not None:
            self.wfile.write(payload)
