"""A scripted model on 127.0.0.1: the four wire formats the agent programs speak, replaying a script by position.

The agent CLIs of the end-to-end tier are pointed at this server instead of their vendor's API.
Each request that offers the model tools is a *turn* and gets the script's next step (a tool
call, or text that ends the turn); a request without tools (a title, a summary, a check a CLI
makes on the side) gets a short text and takes no step. Every request is logged with its
parsed body, so a test asserts on exactly what reached the model.

Wire formats, as each program's client reads them:

- Anthropic Messages (`POST /v1/messages`, Claude Code): server-sent events `message_start`,
  `content_block_start`, `content_block_delta` (`text_delta`, `input_json_delta`),
  `content_block_stop`, `message_delta` (`stop_reason`), `message_stop`
  (https://docs.anthropic.com/en/api/messages-streaming); JSON when `stream` is false.
- OpenAI Responses (`POST /v1/responses`, Codex CLI): events `response.created`,
  `response.output_item.added` / `.done` (a `message`, `function_call` or `custom_tool_call`
  item), `response.completed` (https://platform.openai.com/docs/api-reference/responses-streaming).
- OpenAI Chat Completions (`POST /v1/chat/completions`, OpenCode's openai-compatible provider):
  `chat.completion.chunk` deltas (`content`, `tool_calls`), a `finish_reason`, `data: [DONE]`.
- Gemini (`POST /v1beta/models/M:streamGenerateContent?alt=sse` and `:generateContent`, Gemini
  CLI with `GOOGLE_GEMINI_BASE_URL`): `GenerateContentResponse` objects, `functionCall` parts.

Faults: a step may answer HTTP 500, or start its stream and close the connection mid-way.
"""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any


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


WIRES = {
    "/v1/messages": "anthropic",
    "/v1/responses": "responses",
    "/responses": "responses",
    "/v1/chat/completions": "chat",
    "/chat/completions": "chat",
}


def wire_of(path: str) -> str | None:
    bare = path.split("?", 1)[0]
    if bare in WIRES:
        return WIRES[bare]
    if ":streamGenerateContent" in bare or ":generateContent" in bare:
        return "gemini"
    return None


def offers_tools(wire: str, body: dict[str, Any]) -> bool:
    """Whether the request is a turn of the agent's loop: the model is offered tools to call."""
    tools = body.get("tools")
    if wire == "gemini":
        return any(t.get("functionDeclarations") for t in tools or [] if isinstance(t, dict))
    return bool(tools)


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
            step = Step(text=_side_answer(wire, body))
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


def _side_answer(wire: str, body: dict[str, Any]) -> str:
    """What a request made on the side gets: JSON where the request asks for JSON, else a short title."""
    if wire == "gemini" and (body.get("generationConfig") or {}).get("responseMimeType") == "application/json":
        return json.dumps({"reasoning": "The model finished its turn.", "next_speaker": "user"})
    return "Scripted session"


def _id(prefix: str) -> str:
    return f"{prefix}_{uuid.uuid4().hex[:24]}"


# ---- Anthropic Messages ------------------------------------------------------------------


def _anthropic(step: Step, body: dict[str, Any]) -> Iterator[tuple[str, Any]]:
    model = body.get("model", "scripted")
    usage = {"input_tokens": 100, "output_tokens": 20, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
    message = {"id": _id("msg"), "type": "message", "role": "assistant", "model": model, "content": [],
               "stop_reason": None, "stop_sequence": None, "usage": {**usage, "output_tokens": 1}}  # fmt: skip
    yield "message_start", {"type": "message_start", "message": message}
    if step.tool is not None:
        block = {"type": "tool_use", "id": _id("toolu"), "name": step.tool, "input": {}}
        yield "content_block_start", {"type": "content_block_start", "index": 0, "content_block": block}
        delta = {"type": "input_json_delta", "partial_json": json.dumps(step.args or {})}
        yield "content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}
        stop = "tool_use"
    else:
        block = {"type": "text", "text": ""}
        yield "content_block_start", {"type": "content_block_start", "index": 0, "content_block": block}
        delta = {"type": "text_delta", "text": step.text or ""}
        yield "content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}
        stop = "end_turn"
    yield "content_block_stop", {"type": "content_block_stop", "index": 0}
    yield "message_delta", {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                            "usage": {"output_tokens": 20}}  # fmt: skip
    yield "message_stop", {"type": "message_stop"}


def _anthropic_final(events: list[tuple[str, Any]]) -> dict[str, Any]:
    message: dict[str, Any] = events[0][1]["message"]
    for _, data in events:
        if data["type"] == "content_block_start":
            message["content"].append(dict(data["content_block"]))
        elif data["type"] == "content_block_delta":
            block = message["content"][data["index"]]
            if data["delta"]["type"] == "text_delta":
                block["text"] += data["delta"]["text"]
            else:
                block["input"] = json.loads(data["delta"]["partial_json"])
        elif data["type"] == "message_delta":
            message["stop_reason"] = data["delta"]["stop_reason"]
    return message


# ---- OpenAI Responses --------------------------------------------------------------------


def _responses(step: Step, body: dict[str, Any]) -> Iterator[tuple[str, Any]]:
    rid = _id("resp")
    base = {"id": rid, "object": "response", "created_at": int(time.time()), "model": body.get("model", "scripted"),
            "status": "in_progress", "output": []}  # fmt: skip
    yield "response.created", {"type": "response.created", "response": base}
    if step.tool is not None and isinstance(step.args, str):
        item: dict[str, Any] = {"type": "custom_tool_call", "id": _id("ctc"), "call_id": _id("call"),
                                "name": step.tool, "input": step.args, "status": "completed"}  # fmt: skip
    elif step.tool is not None:
        item = {"type": "function_call", "id": _id("fc"), "call_id": _id("call"), "name": step.tool,
                "arguments": json.dumps(step.args or {}), "status": "completed"}  # fmt: skip
    else:
        item = {"type": "message", "id": _id("msg"), "role": "assistant", "status": "completed",
                "content": [{"type": "output_text", "text": step.text or "", "annotations": []}]}  # fmt: skip
    yield "response.output_item.added", {"type": "response.output_item.added", "output_index": 0, "item": item}
    if item["type"] == "message":
        delta = {"type": "response.output_text.delta", "item_id": item["id"], "output_index": 0, "content_index": 0,
                 "delta": step.text or ""}  # fmt: skip
        yield "response.output_text.delta", delta
    yield "response.output_item.done", {"type": "response.output_item.done", "output_index": 0, "item": item}
    usage = {"input_tokens": 100, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 20,
             "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 120}  # fmt: skip
    done = {**base, "status": "completed", "output": [item], "usage": usage}
    yield "response.completed", {"type": "response.completed", "response": done}


def _responses_final(events: list[tuple[str, Any]]) -> dict[str, Any]:
    final: dict[str, Any] = events[-1][1]["response"]
    return final


# ---- OpenAI Chat Completions -------------------------------------------------------------


def _chat(step: Step, body: dict[str, Any]) -> Iterator[tuple[str, Any]]:
    cid, created, model = _id("chatcmpl"), int(time.time()), body.get("model", "scripted")

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {"id": cid, "object": "chat.completion.chunk", "created": created, "model": model,
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}  # fmt: skip

    yield "", chunk({"role": "assistant", "content": ""})
    if step.tool is not None:
        call = {"index": 0, "id": _id("call"), "type": "function",
                "function": {"name": step.tool, "arguments": json.dumps(step.args or {})}}  # fmt: skip
        yield "", chunk({"tool_calls": [call]})
        yield "", chunk({}, "tool_calls")
    else:
        yield "", chunk({"content": step.text or ""})
        yield "", chunk({}, "stop")
    usage = {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}
    yield "", {"id": cid, "object": "chat.completion.chunk", "created": created, "model": model, "choices": [],
               "usage": usage}  # fmt: skip
    yield "", "[DONE]"


def _chat_final(events: list[tuple[str, Any]]) -> dict[str, Any]:
    first = events[0][1]
    message: dict[str, Any] = {"role": "assistant", "content": None}
    finish = "stop"
    for _, data in events:
        if not isinstance(data, dict) or not data.get("choices"):
            continue
        choice = data["choices"][0]
        delta = choice["delta"]
        if delta.get("content"):
            message["content"] = (message["content"] or "") + delta["content"]
        if delta.get("tool_calls"):
            message["tool_calls"] = [{k: v for k, v in c.items() if k != "index"} for c in delta["tool_calls"]]
        finish = choice["finish_reason"] or finish
    return {"id": first["id"], "object": "chat.completion", "created": first["created"], "model": first["model"],
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}}  # fmt: skip


# ---- Gemini ------------------------------------------------------------------------------


def _gemini(step: Step, body: dict[str, Any]) -> Iterator[tuple[str, Any]]:
    if step.tool is not None:
        part: dict[str, Any] = {"functionCall": {"name": step.tool, "args": step.args or {}}}
    else:
        part = {"text": step.text or ""}
    usage = {"promptTokenCount": 100, "candidatesTokenCount": 20, "totalTokenCount": 120}
    yield "", {"candidates": [{"content": {"role": "model", "parts": [part]}, "index": 0}]}
    yield "", {"candidates": [{"content": {"role": "model", "parts": [{"text": ""}]}, "finishReason": "STOP",
                               "index": 0}], "usageMetadata": usage, "modelVersion": "scripted"}  # fmt: skip


def _gemini_final(events: list[tuple[str, Any]]) -> dict[str, Any]:
    first: dict[str, Any] = events[0][1]
    last: dict[str, Any] = events[-1][1]
    return {"candidates": [{**first["candidates"][0], "finishReason": "STOP"}], "usageMetadata": last["usageMetadata"]}


RENDER: dict[str, Callable[[Step, dict[str, Any]], Iterator[tuple[str, Any]]]] = {
    "anthropic": _anthropic,
    "responses": _responses,
    "chat": _chat,
    "gemini": _gemini,
}
FINAL: dict[str, Callable[[list[tuple[str, Any]]], dict[str, Any]]] = {
    "anthropic": _anthropic_final,
    "responses": _responses_final,
    "chat": _chat_final,
    "gemini": _gemini_final,
}
