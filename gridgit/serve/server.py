"""The server: bind (127.0.0.1 unless asked), serve until SIGINT / SIGTERM / SIGHUP, then stop cleanly.

Stopping ends the accept loop, closes the feed (every live stream then ends), shuts down
the sockets of requests still open (a client that never sends its request) and joins every
request thread: nothing outlives `serve`.
"""

from __future__ import annotations

import contextlib
import errno
import ipaddress
import os
import signal
import socket
import socketserver
import sys
import threading
from collections.abc import Callable
from http.server import ThreadingHTTPServer
from typing import Any

from gridgit.errors import BadInput, GridError, PermissionDenied
from gridgit.serve.feed import EventFeed, log
from gridgit.serve.handler import Handler
from gridgit.store.layout import Layout

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765
_LOOPBACK_NAMES = ("localhost", "localhost.", "127.0.0.1", "::1")


def is_loopback(host: str) -> bool:
    """True for addresses only this machine can reach (127.0.0.0/8, ::1, localhost)."""
    name = host.strip("[]").lower()
    if name in _LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


class GridServer(ThreadingHTTPServer):
    """ThreadingHTTPServer that knows its Blackboard and feed, and can drop its open connections."""

    daemon_threads = False  # request threads are joined by server_close()
    block_on_close = True

    def __init__(
        self, layout: Layout, host: str, port: int, actor: str | None = None, token: str | None = None
    ) -> None:
        self.layout = layout
        self.actor = actor  # None: read-only (the page and API change nothing)
        self.token = token if actor is not None else None
        self.read_only = actor is None
        self.loopback = is_loopback(host)
        self.address_family = socket.AF_INET6 if ":" in host.strip("[]") else socket.AF_INET
        self._open: set[socket.socket] = set()
        self._open_lock = threading.Lock()
        self.feed = EventFeed(layout)
        self._loop: threading.Thread | None = None
        super().__init__((host.strip("[]"), port), Handler)

    def server_bind(self) -> None:
        # HTTPServer.server_bind asks DNS for the host's full name: seconds on some networks, for nothing.
        socketserver.TCPServer.server_bind(self)
        self.server_name, self.server_port = str(self.server_address[0]), int(self.server_address[1])

    @property
    def url(self) -> str:
        host = self.server_name
        if host in ("0.0.0.0", "::"):
            host = "127.0.0.1" if host == "0.0.0.0" else "::1"
        # The token goes into the URL whole: it is the person's to open (never into .grid/ or an event).
        query = f"?token={self.token}" if self.token else ""
        return f"http://{f'[{host}]' if ':' in host else host}:{self.server_port}/{query}"

    def host_allowed(self, header: str | None) -> bool:
        """On a loopback address, only requests for a loopback name (no DNS rebinding); else any."""
        if not self.loopback or not header:
            return True
        name = header.rsplit(":", 1)[0] if not header.endswith("]") else header
        return is_loopback(name)

    def start(self) -> None:
        """Serve in a thread of its own (the caller waits as it likes, then calls stop)."""
        self.feed.start()
        self._loop = threading.Thread(target=self.serve_forever, kwargs={"poll_interval": 0.1}, name="gridgit-serve")
        self._loop.start()

    def stop(self) -> None:
        """End the accept loop and every stream and request; returns once every thread has ended."""
        if self._loop is not None:
            self.shutdown()
            self._loop.join()
        self.feed.close()
        self.drop_connections()
        self.server_close()

    def process_request(self, request: Any, client_address: Any) -> None:
        with self._open_lock:
            self._open.add(request)
        super().process_request(request, client_address)

    def shutdown_request(self, request: Any) -> None:
        with self._open_lock:
            self._open.discard(request)
        super().shutdown_request(request)

    def drop_connections(self) -> None:
        """Unblock request threads still reading from their client."""
        with self._open_lock:
            for request in self._open:
                with contextlib.suppress(OSError):  # already closed by its client
                    request.shutdown(socket.SHUT_RDWR)

    def handle_error(self, request: Any, client_address: Any) -> None:
        error = sys.exc_info()[1]
        if isinstance(error, (ConnectionError, TimeoutError)):
            return  # a client that went away mid-answer
        log.error("gridgit serve: error answering %s", client_address[0], exc_info=True)


def bind(
    layout: Layout,
    host: str = DEFAULT_HOST,
    port: int = DEFAULT_PORT,
    actor: str | None = None,
    token: str | None = None,
) -> GridServer:
    """A server bound to HOST:PORT (0: a free port) for the Blackboard of LAYOUT; a one-line GridError when it cannot.

    ACTOR: the Master Control id actions run as (None: read-only); TOKEN: what each write must carry
    (None: no token, which only a loopback address may do without).
    """
    layout.require()
    if actor is not None and token is None and not is_loopback(host):
        raise BadInput(
            f"--host {host} with an empty --token, so anyone who reaches it could act as {actor}: "
            "drop that option (serve then draws a token), or pass --read-only"
        )
    try:
        return GridServer(layout, host, port, actor, token)
    except OSError as exc:
        where = f"{host}:{port}"
        if exc.errno == errno.EADDRINUSE:
            raise GridError(
                f"port {port} on {host} is already in use: stop what uses it or pick another with --port"
            ) from None
        if exc.errno == errno.EACCES:
            raise PermissionDenied(f"{where}: permission denied (ports below 1024 need privileges)") from None
        if isinstance(exc, socket.gaierror) or exc.errno == errno.EADDRNOTAVAIL:
            raise BadInput(f"{host}: not an address of this machine ({exc.strerror or exc})") from None
        raise GridError(f"{where}: cannot listen: {exc.strerror or exc}") from None


def run(server: GridServer, on_ready: Callable[[str], None]) -> None:
    """Serve until SIGINT, SIGTERM or SIGHUP (the normal way to stop: no error); ON_READY gets the URL first.

    For a command's main thread (signal handlers live there); other callers use start() and stop().
    """
    stop = threading.Event()
    handled = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
    previous = {}
    if threading.current_thread() is threading.main_thread():
        previous = {s: signal.signal(s, lambda signum, frame: stop.set()) for s in handled}
    server.start()
    try:
        on_ready(server.url)
        while not stop.wait(1.0):
            pass
    finally:
        server.stop()
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def open_browser(url: str) -> str | None:
    """Open URL in the user's browser, in the background; a note when there is no browser to open."""
    if not (os.environ.get("BROWSER") or os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")) and (
        sys.platform not in ("darwin", "win32")
    ):
        # With no display, webbrowser falls back to a text browser that would take over this terminal.
        return f"--open: no graphical display here; open {url} in a browser"
    import webbrowser

    # Daemon: some browser commands only return when the browser closes; serving must not wait for that.
    threading.Thread(target=webbrowser.open, args=(url,), name="gridgit-serve-open", daemon=True).start()
    return None
