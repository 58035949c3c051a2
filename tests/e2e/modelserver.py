"""A scripted model on 127.0.0.1: the wire formats the agent programs speak, replaying a script by position.

The agent CLIs of the end-to-end tier are pointed at this server instead of their vendor's API.
Each request that offers the model tools is a *turn* and gets the script's next step (a tool
call, or text that ends the turn); a request without tools (a title, a summary, a check a CLI
makes on the side) gets a short text and takes no step. Every request is logged with its
parsed body, so a test asserts on exactly what reached the model. How each wire format carries
an answer is tests/e2e/wires.py.

Faults: a step may answer HTTP 500, or start its stream and close the connection mid-way.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from tests.e2e.wires import FINAL, RENDER, offers_tools, side_answer, wire_of


@dataclass
class Step:
    """One answer of the scripted model: a tool call (TOOL with ARGS) or TEXT that ends the turn.

    ARGS is a dict (a JSON function call), or a str for a free-form tool (Codex's
    `apply_patch` grammar tool takes its patch as raw input). BEFORE runs before the answer
    is sent, with the requests so far (the test acts mid-run: sends a message, waits for
    another agent); a Step it returns is answered instead (a call made of what the model was
    just told, such as the command a hook named). LABEL names the step in the log. FAULT is
    "500" (answer an error) or "cut" (close the stream mid-way); a faulty step is not
    consumed, so the client's retry gets the same step without the fault.
    """

    tool: str | None = None
    args: dict[str, Any] | str | None = None
    text: str | None = None
    before: Callable[[list[Request]], Step | None] | None = None
    fault: str | None = None
    label: str = ""


def say(text: str, label: str = "") -> Step:
    return Step(text=text, label=label)


@dataclass
class Request:
    """One request that reached the model: its place, path, wire, whether it was a turn, and its body."""

    n: int
    path: str
    wire: str
    turn: bool
    body: dict[str, Any]
    step: int | None = None  # the script's step it was answered with (turns only)
    label: str = ""  # that step's label
    fault: str | None = None
    at: float = field(default_factory=time.monotonic)  # when it arrived

    def strings(self) -> list[str]:
        """Every string the model was shown in this request (its messages and system prompt; not its tool schemas)."""
        shown = {k: v for k, v in self.body.items() if k not in ("tools", "toolConfig", "tool_choice")}
        return list(_strings(shown))

    def text(self) -> str:
        return "\n".join(self.strings())

    def new_strings(self, before: Request | None) -> list[str]:
        """What this request shows the model that BEFORE (the previous turn's request) did not: the last step's results."""
        seen = set(before.strings()) if before is not None else set()
        return [s for s in self.strings() if s not in seen]

    def new_text(self, before: Request | None) -> str:
        return "\n".join(self.new_strings(before))


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
        # a tool call's arguments and some tool results are JSON inside a string: their strings count too
        if value[:1] in "{[":
            try:
                inner = json.loads(value)
            except ValueError:
                return
            if not isinstance(inner, str):
                yield from _strings(inner)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


class Script:
    """The steps of one session, answered in order to the turns that reach the server."""

    def __init__(self, steps: list[Step], idle: str = "Done.") -> None:
        self.steps = steps
        self.idle = idle  # the text answered once the script has run out
        self.position = 0
        self.lock = threading.Lock()

    def next(self) -> tuple[int | None, Step]:
        with self.lock:
            if self.position >= len(self.steps):
                return None, Step(text=self.idle)
            index, step = self.position, self.steps[self.position]
            if step.fault is None:
                self.position += 1
            else:  # the fault is answered once; the client's retry gets the step itself
                self.steps[index] = Step(step.tool, step.args, step.text, None, None, step.label)
            return index, step


@dataclass
class ModelServer:
    """A scripted model on 127.0.0.1 (an ephemeral port), logging every request; `with` it to run it."""

    script: Script
    log_file: Path | None = None
    requests: list[Request] = field(default_factory=list)
    url: str = ""
    _server: ThreadingHTTPServer | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def __enter__(self) -> ModelServer:
        owner = self

        class Handler(_Handler):
            server_owner = owner

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        threading.Thread(target=self._server.serve_forever, daemon=True, name="model-server").start()
        return self

    def __exit__(self, *exc: object) -> None:
        assert self._server is not None
        self._server.shutdown()
        self._server.server_close()

    def record(self, path: str, wire: str, body: dict[str, Any], turn: bool) -> Request:
        with self._lock:
            request = Request(len(self.requests), path, wire, turn, body)
            self.requests.append(request)
        return request

    def save(self, request: Request) -> None:
        if self.log_file is not None:
            with self._lock, self.log_file.open("a", encoding="utf-8") as log:
                row = {"n": request.n, "path": request.path, "wire": request.wire, "turn": request.turn,
                       "step": request.step, "label": request.label, "fault": request.fault, "body": request.body}  # fmt: skip
                log.write(json.dumps(row) + "\n")

    def turns(self) -> list[Request]:
        """The requests that were turns of the agent's loop, in order."""
        return [r for r in self.requests if r.turn]


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_owner: ModelServer

    def log_message(self, format: str, *args: Any) -> None:
        pass  # the requests are logged as data, not on stderr

    def do_GET(self) -> None:
        # model lists and health checks some clients make at start-up: an empty list, nothing else
        self._json(200, {"object": "list", "data": [], "models": []})

    def do_HEAD(self) -> None:
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else self._read_chunked()
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {"_raw": raw.decode("utf-8", "replace")}
        wire = wire_of(self.path)
        owner = self.server_owner
        if wire is None:
            owner.save(owner.record(self.path, "other", body, False))
            self._json(404, {"error": {"message": f"no such endpoint on the scripted model: {self.path}"}})
            return
        if self.path.split("?", 1)[0].endswith("/count_tokens"):
            self._json(200, {"input_tokens": 100})
            return
        turn = offers_tools(wire, body)
        request = owner.record(self.path, wire, body, turn)
        if turn:
            index, step = owner.script.next()
            request.step = index
            if step.before is not None:
                step = step.before(list(owner.requests[: request.n + 1])) or step
            request.label = step.label
        else:
            step = Step(text=side_answer(wire, body))
        request.fault = step.fault
        owner.save(request)
        if step.fault == "500":
            self._json(500, {"error": {"type": "api_error", "message": "scripted fault: internal error"}})
            return
        streaming = body.get("stream") is True or "streamGenerateContent" in self.path
        events = list(RENDER[wire](step, body))
        if not streaming:
            self._json(200, FINAL[wire](events))
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        for i, (name, data) in enumerate(events):
            if step.fault == "cut" and i == len(events) // 2:
                self.wfile.flush()
                self.close_connection = True
                self.connection.shutdown(2)  # mid-stream: no terminating chunk, no last events
                return
            frame = (
                f"event: {name}\n" if name else ""
            ) + f"data: {data if isinstance(data, str) else json.dumps(data)}\n\n"
            self._chunk(frame.encode("utf-8"))
        self._chunk(b"")

    def _read_chunked(self) -> bytes:
        if self.headers.get("Transfer-Encoding", "").lower() != "chunked":
            return b""
        out = b""
        while True:
            size = int(self.rfile.readline().strip().split(b";")[0], 16)
            if size == 0:
                self.rfile.readline()
                return out
            out += self.rfile.read(size)
            self.rfile.readline()

    def _chunk(self, data: bytes) -> None:
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()

    def _json(self, status: int, data: Any) -> None:
        payload = json.dumps(data).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)
