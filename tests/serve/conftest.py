"""Real `gridgit serve` processes for the web view's tests, and one small mission to serve.

`served` is one repository and one server per test session (per xdist worker): tests that
only read share it, and tests that write use topics of their own.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import select
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.conftest import Repo, git, isolate

HOSTILE = '<script>window.__pwned = "script"</script><img src=x onerror="window.__pwned = \'img\'">'
MISSION = f"Shop {HOSTILE}"


@dataclass
class Server:
    """A `gridgit serve --json` process (or, without PROC, a server in this one); `url` is what it printed."""

    proc: subprocess.Popen[str] | None
    url: str
    info: dict[str, Any] = field(default_factory=dict)

    @property
    def port(self) -> int:
        return int(self.info["port"])

    @property
    def token(self) -> str:
        return parse_qs(urlsplit(self.url).query).get("token", [""])[0]

    def request(
        self, path: str, method: str = "GET", headers: dict[str, str] | None = None, body: bytes | None = None
    ) -> tuple[int, http.client.HTTPMessage, bytes]:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        try:
            conn.request(method, path, body=body, headers=headers or {})
            response = conn.getresponse()
            return response.status, response.headers, response.read()
        finally:
            conn.close()

    def act(
        self, action: str, fields: Any = None, headers: dict[str, str | None] | None = None, body: bytes | None = None
    ) -> tuple[int, dict[str, Any]]:
        """POST an action as this server's own page does (token, same origin, JSON); HEADERS' None values are left out."""
        sent = {"Host": f"127.0.0.1:{self.port}", "Origin": f"http://127.0.0.1:{self.port}",
                "Sec-Fetch-Site": "same-origin", "Content-Type": "application/json", "X-Gridgit-Token": self.token,
                **(headers or {})}  # fmt: skip
        data = body if body is not None else json.dumps(fields or {}).encode()
        status, _, answer = self.request(
            f"/api/act/{action}", "POST", {k: v for k, v in sent.items() if v is not None}, data
        )
        return status, json.loads(answer) if answer.startswith(b"{") else {"text": answer.decode()}

    def api(self, path: str) -> Any:
        """The data of a successful API answer (asserting the --json envelope)."""
        status, headers, body = self.request(path)
        assert status == 200, body
        assert headers["Content-Type"] == "application/json; charset=utf-8"
        answer = json.loads(body)
        assert answer["schema_version"] == 1 and answer["ok"] is True, answer
        return answer["data"]

    def stream(self, headers: dict[str, str] | None = None) -> Stream:
        """An open /api/stream connection, past its preamble (the server is feeding it)."""
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        conn.request("GET", "/api/stream", headers=headers or {})
        response = conn.getresponse()
        assert response.status == 200 and response.headers["Content-Type"] == "text/event-stream; charset=utf-8"
        stream = Stream(conn, response)
        assert stream.message(timeout=10) == {"retry": "1000"}  # the preamble
        return stream

    def stop(self, signum: int = signal.SIGTERM, timeout: float = 10) -> tuple[int, str]:
        """Signal the server and wait: (exit code, stderr)."""
        assert self.proc is not None
        if self.proc.poll() is None:
            self.proc.send_signal(signum)
        try:
            _, err = self.proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.communicate()
            raise AssertionError(f"gridgit serve still running {timeout}s after signal {signum}") from None
        return self.proc.returncode, err


@dataclass
class Stream:
    """Server-Sent Events read off one connection, a message at a time."""

    conn: http.client.HTTPConnection
    response: http.client.HTTPResponse

    def message(self, timeout: float = 10) -> dict[str, str]:
        """The next message's fields (`data`, `id`, `event`, `retry`); comments (keep-alives) are skipped."""
        deadline = time.monotonic() + timeout
        fields: dict[str, str] = {}
        while True:
            if time.monotonic() > deadline:
                raise TimeoutError(f"no complete message within {timeout}s (so far {fields})")
            line = self.response.readline().decode("utf-8")
            if line == "":
                raise EOFError("the stream ended")
            line = line.rstrip("\n")
            if not line:
                if fields:
                    return fields
                continue
            if line.startswith(":"):
                continue
            name, _, value = line.partition(":")
            fields[name] = value[1:] if value.startswith(" ") else value

    def event(self, timeout: float = 10) -> dict[str, Any]:
        """The next gridgit event on the stream."""
        fields = self.message(timeout)
        assert "event" not in fields, fields  # a resync or another kind of message
        event: dict[str, Any] = json.loads(fields["data"])
        assert fields["id"] == event["id"]
        return event

    def close(self) -> None:
        self.response.close()  # holds the socket open even after the connection is closed
        self.conn.close()


def start_server(path: Path, *args: str, env: dict[str, str | None] | None = None, timeout: float = 30) -> Server:
    """`gridgit serve --port 0 --json ARGS` in PATH, once it prints its URL; ENV's None values are unset."""
    full_env = {k: v for k, v in {**os.environ, **(env or {})}.items() if v is not None}
    proc = subprocess.Popen(
        [sys.executable, "-m", "gridgit", "serve", "--port", "0", "--json", *args],
        cwd=path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=full_env,
    )
    assert proc.stdout is not None
    ready, _, _ = select.select([proc.stdout], [], [], timeout)
    line = proc.stdout.readline() if ready else ""
    if not line:
        proc.kill()
        _, err = proc.communicate()
        raise AssertionError(f"gridgit serve did not start: {err}")
    info = json.loads(line)["data"]
    assert urlsplit(info["url"]).port == info["port"]
    return Server(proc, info["url"], info)


@pytest.fixture
def server_processes() -> Iterator[list[Server]]:
    """Servers a test starts; each is stopped (and proven gone) at its end."""
    started: list[Server] = []
    yield started
    for server in started:
        if server.proc is not None and server.proc.poll() is None:
            server.proc.kill()
            server.proc.communicate()


def build_mission(path: Path) -> Repo:
    """A repository with a mission in progress: registered and seen agents, heartbeats, open items,
    a finished agent, an entry with commit evidence, a write conflict, a claim, a message, a promoted learning, hostile text."""
    from gridgit import Blackboard

    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    git(path, "commit", "-q", "--allow-empty", "-m", "initial")
    board = Blackboard(path)
    board.init(MISSION, ["01-foundation:Foundation", "02-api:API"], hooks=False)
    active = [
        {"id": "executor-001", "type": "executor", "task": "Auth endpoints", "block": "01-02"},
        {"id": "recognizer-001", "type": "recognizer", "task": "Review auth"},
        {"id": "scout-001", "type": "scout", "task": "Map the payment API"},
        {"id": "executor-003", "type": "executor", "task": "Schema"},
    ]
    board.update_state({"agents": {"active": active}}, agent="mc")
    board.finish_agent("executor-003", summary="schema migrated", agent="mc")
    board.heartbeat(40, "wiring the login route", thread="thread 2", files=["src/auth.py"], agent="executor-001")
    board.write(
        "decision", "auth", f"Use signed cookies. {HOSTILE}\n\nEvidence:\n- File: src/auth.py\n- Commit: 1a2b3c4d5e6f",
        tags=["architectural", "<b>bold</b>"], relevance="HIGH", agent="executor-001",
    )  # fmt: skip
    board.write("discovery", "db", "Found: the pool is per thread", agent="executor-001")
    board.write("blocker", "stripe", f"Blocker: no Stripe key {HOSTILE}", agent="recognizer-001")
    board.write("question", "api", "Question: REST or RPC?", agent="executor-002")  # seen, not registered
    board.touch("src/shop.py", agent="executor-001")
    board.touch("src/shop.py", agent="recognizer-001")
    board.claim(["src/api/**"], agent="executor-001", exclusive=True, reason=f"refactor {HOSTILE}")
    board.send("recognizer-001", f"Review the login flow {HOSTILE}", agent="executor-001")
    board.promote("01-foundation", agent="memory-001")
    board.plan_block("01-01", "## Goal\nA login form", name=f"Login form {HOSTILE}", agent="mc")
    board.plan_block("01-02", name="Auth API", depends_on=["01-01"], agent="mc")
    board.take("01-01", agent="recognizer-001")
    board.add_usage(12_000, 800, model="claude-sonnet-4-5", agent="recognizer-001")
    board.start_debug(f"Login loops {HOSTILE}", agent="executor-001")
    return Repo(path)


@contextlib.contextmanager
def serving(factory: pytest.TempPathFactory, name: str, *args: str) -> Iterator[tuple[Repo, Server]]:
    """A mission (build_mission) and `gridgit serve ARGS` on it, stopped (exit 0) at the end."""
    with pytest.MonkeyPatch.context() as patch:
        isolate(patch, factory.mktemp("home"))
        repo = build_mission(factory.mktemp(name) / "repo")
        server = start_server(repo.path, *args)
        try:
            yield repo, server
        finally:
            code, err = server.stop()
            assert code == 0, err


@pytest.fixture(scope="session")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Repo, Server]]:
    """One mission and one read-only server on it (today's window: nothing acts), for the session."""
    with serving(tmp_path_factory, "served", "--read-only") as both:
        yield both


@pytest.fixture(scope="module")
def console(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Repo, Server]]:
    """A mission of its own and a server acting as Master Control `mc-ana`, for one module: its tests act."""
    with serving(tmp_path_factory, "console", "--as", "mc-ana") as both:
        yield both
