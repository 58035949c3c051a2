"""The server: the tools and resources on the SDK's MCPServer, served over stdio until the client hangs up."""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp.shared.exceptions import MCPError
from mcp.types import INVALID_PARAMS, CallToolResult, InputRequiredResult, Tool, ToolAnnotations
from pydantic import ValidationError

from gridgit import __version__
from gridgit.mcp import resources as resources_mod
from gridgit.mcp import results, schema
from gridgit.mcp.tools import Tools

INSTRUCTIONS = (
    "gridgit: the shared memory of the agents working on this repository. Call start_session first; "
    "write_entry what others should know; touch_file after each edit; heartbeat every few minutes; "
    "read_inbox between steps; ack the messages it lists once read, send to answer. Left out, `agent` is "
    "GRID_AGENT_ID, `phase` the current phase, `block` yours."
)


class GridServer(MCPServer[Any]):
    """MCPServer with lean tool schemas, whose argument errors answer like the CLI's usage errors (`usage`, exit 2).

    As the MCP spec's tools page says (https://modelcontextprotocol.io/specification/2025-11-25/server/tools,
    "Error Handling"), an unknown tool is a protocol error, JSON-RPC -32602 (invalid params), and
    input validation errors are tool execution errors (`isError: true`) the model can read and
    correct: a missing, mistyped or out-of-range argument, and one the tool does not take (which
    would otherwise be dropped without a word). It offers no prompts and sends no resource
    notifications, so it advertises neither.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.arguments: dict[str, set[str]] = {}  # tool -> the arguments it takes
        # The SDK registers prompt handlers whether or not a server has prompts, and a handler
        # is what makes it advertise the `prompts` capability: without prompts, none.
        for method in ("prompts/list", "prompts/get"):
            self._lowlevel_server._request_handlers.pop(method, None)

    def add_arguments(self, name: str, function: Any) -> None:
        """Remember the arguments tool NAME (the Python FUNCTION) takes."""
        self.arguments[name] = {p for p in inspect.signature(function).parameters if p != "self"}

    async def list_tools(self) -> list[Tool]:
        return [
            t.model_copy(update={"input_schema": lean_schema(t.input_schema), "output_schema": _lean_output(t)})
            for t in await super().list_tools()
        ]

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        if name not in self.arguments:
            raise MCPError(INVALID_PARAMS, f"Unknown tool: {name}")
        unknown = sorted(set(arguments) - self.arguments[name])
        if unknown:
            takes = ", ".join(sorted(self.arguments[name]))
            message = f"{name}: unknown argument(s): {', '.join(unknown)} (it takes {takes})"
            return results.failure(results.USAGE_CODE, results.USAGE_EXIT, message)
        try:
            return await super().call_tool(name, arguments, context)
        except UnexpectedToolError:
            raise  # a crash: the SDK logs it on stderr and answers a generic error
        except ToolError as exc:
            return results.failure(results.USAGE_CODE, results.USAGE_EXIT, _usage_message(name, exc))


def lean_schema(schema: Any) -> Any:
    """SCHEMA without what pydantic adds and a model does not need: titles, `anyOf [X, null]` with `default: null`
    (the argument may be left out), and `anyOf [{type: X}, {type: null}]` written `type: [X, null]`.

    Every agent pays for the tool list in context on every turn. Arguments are still validated
    against the full model, so an explicit null is still accepted.
    """
    if isinstance(schema, list):
        return [lean_schema(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    lean = {k: lean_schema(v) for k, v in schema.items() if k != "title" or not isinstance(v, str)}
    options = lean.get("anyOf")
    if isinstance(options, list) and len(options) == 2 and {"type": "null"} in options:
        (kept,) = [o for o in options if o != {"type": "null"}]
        rest = {k: v for k, v in lean.items() if k != "anyOf"}
        if lean.get("default", 0) is None:
            lean = {**{k: v for k, v in rest.items() if k != "default"}, **kept}
        elif set(kept) == {"type"} and isinstance(kept["type"], str):
            lean = {**rest, "type": [kept["type"], "null"]}
    return lean


def _lean_output(tool: Tool) -> Any:
    """The tool's outputSchema, lean, without `required`: every key but the few marked optional is always there,
    and the answer's text says the same; the bytes go to the input schemas, which a model must get right."""
    lean = lean_schema(tool.output_schema)
    return {k: v for k, v in lean.items() if k != "required"} if isinstance(lean, dict) else lean


def _usage_message(tool: str, exc: ToolError) -> str:
    """One line: `TOOL: ARGUMENT: what is wrong; ...`, or the SDK's message."""
    cause = exc.__cause__
    if not isinstance(cause, ValidationError):
        return str(exc)
    problems = [
        f"{'.'.join(str(p) for p in e['loc']) or 'arguments'}: {e['msg'].removeprefix('Value error, ')}"
        for e in cause.errors()
    ]
    return f"{tool}: {'; '.join(problems)}"


def build(root: Path) -> GridServer:
    """The server for the repository around ROOT (found on each call, so `gridgit init` may come later)."""
    # WARNING: the SDK logs each failed call at INFO; the answer already carries it. subscriptions=False: no
    # `subscriptions/listen` (2026-07-28), so no resource subscriptions or list changes are advertised: none are sent.
    server = GridServer(
        "gridgit", version=__version__, instructions=INSTRUCTIONS, log_level="WARNING", subscriptions=False
    )
    for tool in Tools(root).all():
        spec = schema.spec(tool)
        annotations = ToolAnnotations.model_validate(spec.annotations())
        server.add_tool(tool, title=spec.title, annotations=annotations, structured_output=True)
        server.add_arguments(tool.__name__, tool)
    for uri, name, description, read in resources_mod.resources(root):
        server.resource(uri, name=name, description=description, mime_type="text/markdown")(read)
    return server


def run(root: Path) -> None:
    """Serve on stdin/stdout until the client closes them; only protocol messages go to stdout."""
    import anyio

    from gridgit.mcp import stdio

    anyio.run(stdio.serve, build(root)._lowlevel_server)
