"""How each wire format the agent programs speak carries one answer of the scripted model.

A request is told apart by its path (`wire_of`) and is a turn of the agent's loop when it offers
the model tools (`offers_tools`). RENDER streams a Step as the wire's events (server-sent
events: an event name, or none, and its data); FINAL folds them into the one JSON answer of a
request that did not ask for a stream. The formats, as each program's client reads them:

- Anthropic Messages (`POST /v1/messages`, Claude Code): `message_start`,
  `content_block_start`, `content_block_delta` (`text_delta`, `input_json_delta`),
  `content_block_stop`, `message_delta` (`stop_reason`), `message_stop`
  (https://docs.anthropic.com/en/api/messages-streaming).
- OpenAI Responses (`POST /v1/responses`, Codex CLI): `response.created`,
  `response.output_item.added` / `.done` (a `message`, `function_call` or `custom_tool_call`
  item), `response.completed` (https://platform.openai.com/docs/api-reference/responses-streaming).
- OpenAI Chat Completions (`POST /v1/chat/completions`, OpenCode's openai-compatible provider and
  Copilot CLI's own provider): `chat.completion.chunk` deltas (`content`, `tool_calls`), a
  `finish_reason`, `data: [DONE]`.
- Gemini (`POST /v1beta/models/M:streamGenerateContent?alt=sse` and `:generateContent`, Gemini
  CLI with `GOOGLE_GEMINI_BASE_URL`): `GenerateContentResponse` objects, `functionCall` parts.
"""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Callable, Iterator
from typing import Any

TYPE_CHECKING = False
if TYPE_CHECKING:
    from tests.e2e.modelserver import Step

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


def side_answer(wire: str, body: dict[str, Any]) -> str:
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
