"""The stdio transport, with one promise more than the SDK's: every request read is answered before the server exits.

The SDK's dispatcher cancels the calls in flight when stdin ends ("their callers are already
gone"). A client that writes its request and closes stdin at once (`echo ... | gridgit mcp`,
the spec's stdio shutdown: close the server's input, then wait for it to exit) would never get
its answer, and a write it asked for might be cut short. So the end of stdin reaches the
dispatcher only once every request read so far has been answered (or cancelled by the client).
"""

from __future__ import annotations

from typing import Any

import anyio
from mcp.server.stdio import stdio_server
from mcp.types import JSONRPCError, JSONRPCNotification, JSONRPCRequest, JSONRPCResponse

# How long the end of stdin waits for the answers still owed: a call waits at most for a lock
# (GRIDGIT_LOCK_TIMEOUT) and git; past this the server stops as the SDK would.
DRAIN_SECONDS = 300.0


class _Owed:
    """The ids of the requests read and not answered yet."""

    def __init__(self) -> None:
        self.ids: set[Any] = set()
        self.changed = anyio.Event()

    def settle(self, request_id: Any) -> None:
        self.ids.discard(request_id)
        self.changed.set()

    async def drained(self) -> None:
        with anyio.move_on_after(DRAIN_SECONDS):
            while self.ids:
                self.changed = anyio.Event()
                await self.changed.wait()


class _Reading:
    """The read stream, noting each request, whose end waits until every request noted is answered."""

    def __init__(self, inner: Any, owed: _Owed) -> None:
        self.inner = inner
        self.owed = owed

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)  # last_context, close, clone ...

    def __aiter__(self) -> _Reading:
        return self

    async def __anext__(self) -> Any:
        try:
            item = await self.inner.__anext__()
        except StopAsyncIteration:
            await self.owed.drained()
            raise
        message = getattr(getattr(item, "message", None), "root", getattr(item, "message", None))
        if isinstance(message, JSONRPCRequest):
            self.owed.ids.add(message.id)
        elif isinstance(message, JSONRPCNotification) and message.method == "notifications/cancelled":
            self.owed.settle((message.params or {}).get("requestId"))  # the spec: a cancelled request is not answered
        return item

    async def __aenter__(self) -> _Reading:
        await self.inner.__aenter__()
        return self

    async def __aexit__(self, *exc: Any) -> Any:
        return await self.inner.__aexit__(*exc)


class _Writing:
    """The write stream, settling each request whose answer it sends."""

    def __init__(self, inner: Any, owed: _Owed) -> None:
        self.inner = inner
        self.owed = owed

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    async def send(self, item: Any) -> None:
        await self.inner.send(item)
        message = getattr(getattr(item, "message", None), "root", getattr(item, "message", None))
        if isinstance(message, (JSONRPCResponse, JSONRPCError)):
            self.owed.settle(message.id)

    async def __aenter__(self) -> _Writing:
        await self.inner.__aenter__()
        return self

    async def __aexit__(self, *exc: Any) -> Any:
        return await self.inner.__aexit__(*exc)


async def serve(lowlevel: Any) -> None:
    """Serve LOWLEVEL (an MCPServer's low-level server) on stdin/stdout until the client closes stdin and every
    request read is answered."""
    owed = _Owed()
    async with stdio_server() as (read_stream, write_stream):
        reading, writing = _Reading(read_stream, owed), _Writing(write_stream, owed)
        await lowlevel.run(reading, writing, lowlevel.create_initialization_options())
