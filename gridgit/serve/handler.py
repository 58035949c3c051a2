"""One HTTP request: the page, a JSON API route, the live event stream, `git show`, or an action.

GET and HEAD read; POST `/api/act/<name>` acts (gridgit.serve.actions), unless the server is
read-only, after the write guard (gridgit.serve.guard: the run's token, a same origin, a JSON
body). Every answer carries a strict Content-Security-Policy, `nosniff` and `no-store`. The JSON
is the CLI's `--json` envelope with `<`, `>` and `&` escaped, so no byte of it reads as markup
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
from gridgit.errors import BadInput, GridError, LockTimeout, NotFound, NothingReady, NotInitialised, PermissionDenied
from gridgit.serve import guard
from gridgit.serve import page as page_mod
from gridgit.serve.actions import ACTIONS
from gridgit.serve.feed import EventFeed, TooManyClients
from gridgit.serve.routes import ROUTES, Route
from gridgit.store import redaction

if TYPE_CHECKING:
    from gridgit.store.layout import Layout

STREAM = "/api/stream"
ACT = "/api/act/"
SHOW = "/show"
DRAIN_MOST = 32 * 1024 * 1024  # a refused body up to this size is read and dropped, so the client reads the answer
# A comment line this often keeps proxies and browsers from timing a quiet stream out; every
# CHECK_SECONDS a quiet stream looks whether its page went away, freeing its slot.
KEEPALIVE_SECONDS = 15.0
CHECK_SECONDS = 1.0
log = logging.getLogger("gridgit.serve")

_UNBUFFERED = {"X-Accel-Buffering": "no"}  # a proxy must pass the stream on as it comes
_HTTP_STATUS = {
    BadInput: 400, PermissionDenied: 403, NotFound: 404, NothingReady: 409, NotInitialised: 503, LockTimeout: 503,
}  # fmt: skip


def to_json(data: Any) -> bytes:
    """JSON text, secrets redacted, with <, > and & as \\u escapes (they only ever occur inside strings).

    Every answer and streamed event goes through here: a .grid/ file (or the event log) may hold
    what a person typed by hand, which no write path redacted.
    """
    text = json.dumps(redaction.redact_obj(data), ensure_ascii=False, default=str)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026").encode("utf-8")


class Site(Protocol):
    """What a request needs of its server (gridgit.serve.server.GridServer)."""

    layout: Layout
    feed: EventFeed
    token: str | None
    actor: str | None
    read_only: bool

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

    def do_POST(self) -> None:
        if self.site.read_only:
            self._refuse_method()
        else:
            self._act()

    def _refuse_method(self) -> None:
        self._drain()
        text = b"read-only: GET and HEAD only\n" if self.site.read_only else b"GET, HEAD, and POST to /api/act/ only\n"
        self._send(HTTPStatus.METHOD_NOT_ALLOWED, "text/plain; charset=utf-8", text, True)

    # A cross-origin fetch with a token header asks OPTIONS first: no CORS answer, so it never follows.
    do_PUT = do_PATCH = do_DELETE = do_OPTIONS = _refuse_method

    # ---- dispatch ------------------------------------------------------------------------------

    def _answer(self, body: bool) -> None:
        if not self.site.host_allowed(self.headers.get("Host")):
            self._send(HTTPStatus.FORBIDDEN, "text/plain; charset=utf-8", b"unexpected Host header\n", body)
            return
        url = urlsplit(self.path)
        if url.path in ("/", "/index.html"):
            page = page_mod.page()
            self._send(HTTPStatus.OK, "text/html; charset=utf-8", page.body, body, page.policy)
        elif url.path == page_mod.ICON_PATH:
            self._send(HTTPStatus.OK, "image/svg+xml", page_mod.ICON, body, extra={"Cache-Control": "max-age=86400"})
        elif url.path == SHOW:
            self._show(parse_qs(url.query, keep_blank_values=True), body)
        elif url.path == "/api/session":
            self._json(HTTPStatus.OK, envelope(self._session()), body)
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
        self._call(lambda board: route(board, query), body)

    def _call(self, work: Any, body: bool = True) -> None:
        """Answer with WORK(a Blackboard)'s data in the envelope, or its error with the HTTP status of its kind."""
        from gridgit.blackboard import Blackboard

        try:
            # A Blackboard per request: config.json is read afresh, like a CLI call would.
            data = work(Blackboard(self.site.layout.root, agent=self.site.actor))
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

    def _session(self) -> dict[str, Any]:
        """Who the page acts as, and whether the token it sent lets it (the page asks once it loads)."""
        given = self.headers.get(guard.TOKEN_HEADER) or ""
        token = self.site.token
        can_act = not self.site.read_only and (token is None or guard.same_token(given, token))
        return {"actor": self.site.actor, "read_only": self.site.read_only, "can_act": can_act,
                "actions": sorted(ACTIONS) if can_act else []}  # fmt: skip

    # ---- actions (POST) --------------------------------------------------------------------------

    def _act(self) -> None:
        self.close_connection = True  # one action per connection: a refused body is never read as a request
        if not self.site.host_allowed(self.headers.get("Host")):
            self._drain()
            self._send(HTTPStatus.FORBIDDEN, "text/plain; charset=utf-8", b"unexpected Host header\n", True)
            return
        path = urlsplit(self.path).path
        action = ACTIONS.get(path[len(ACT) :]) if path.startswith(ACT) else None
        if action is None:
            self._drain()
            known = ", ".join(sorted(ACTIONS))
            self._json(HTTPStatus.NOT_FOUND, error_envelope("not_found", f"no action {path} (actions: {known})"), True)
            return
        try:
            guard.check_write(self.headers, self.site.token)
        except guard.WriteRefused as exc:
            self._drain()
            self._json(exc.status, error_envelope(exc.code, str(exc)), True)
            return
        raw = self.rfile.read(int(self.headers["Content-Length"]))
        name = path[len(ACT) :]
        self._call(lambda board: _acted(name, *action(board, guard.parse_body(raw))))

    def _drain(self) -> None:
        """Read and drop a request body no one will act on, so its client gets to read the answer."""
        length = self.headers.get("Content-Length") or ""
        left = int(length) if length.isdigit() and int(length) <= DRAIN_MOST else 0
        while left > 0:
            chunk = self.rfile.read(min(left, 1 << 16))
            if not chunk:
                return
            left -= len(chunk)

    def _show(self, query: dict[str, list[str]], body: bool) -> None:
        """`git show` of a commit or a file, as plain text: the local view of a link (gridgit.serve.links)."""
        from gridgit.serve import links

        def one(name: str) -> str | None:
            values = query.get(name) or [""]
            return values[0] or None

        unknown = sorted(set(query) - {"rev", "path"})
        try:
            if unknown:
                raise BadInput(f"unknown parameter {unknown[0]!r} (this page takes: path, rev)")
            text = links.show(self.site.layout, one("rev"), one("path"))
        except GridError as exc:
            self._send(HTTPStatus.BAD_REQUEST, "text/plain; charset=utf-8", f"{exc}\n".encode(), body)
            return
        self._send(HTTPStatus.OK, "text/plain; charset=utf-8", text.encode("utf-8", "replace"), body)

    def _stream(self, body: bool) -> None:
        feed = self.site.feed
        try:
            if not body:
                # A HEAD takes no slot: holding one until after its answer was read, it made the GET
                # that followed that answer busy.
                feed.check_room()
                self._send(HTTPStatus.OK, "text/event-stream; charset=utf-8", None, body, extra=_UNBUFFERED)
                return
            after = feed.join(self.headers.get("Last-Event-ID"))
        except TooManyClients as exc:
            self._json(HTTPStatus.SERVICE_UNAVAILABLE, error_envelope("busy", str(exc)), body)
            return
        self.close_connection = True
        try:
            self._send(HTTPStatus.OK, "text/event-stream; charset=utf-8", None, body, extra=_UNBUFFERED)
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
            headers["Allow"] = "GET, HEAD" if self.site.read_only else "GET, HEAD, POST"
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        if body and payload is not None:
            self.wfile.write(payload)


def _acted(name: str, result: Any, message: str) -> dict[str, Any]:
    return {"action": name, "message": message, "result": result}
