"""Real `gridgit mcp` processes driven by the SDK's own stdio client, from synchronous tests.

The client runs on an event loop in a thread (anyio's blocking portal); `Client` calls into
it. `served` is one repository and one server for the whole test session (per xdist
worker): tests use topics and paths of their own, so they share it.
"""

from __future__ import annotations

import itertools
import json
import os
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import AbstractContextManager, ExitStack, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from anyio.from_thread import BlockingPortal, start_blocking_portal
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.types import CallToolResult

from tests.conftest import Repo, git, isolate

AGENT = "executor-001"


@asynccontextmanager
async def _session(params: StdioServerParameters, errlog: Any) -> AsyncIterator[ClientSession]:
    async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        yield session


@dataclass
class Client:
    """One initialised MCP client session with a `gridgit mcp` process, called synchronously."""

    portal: BlockingPortal
    session: ClientSession
    stderr: Path

    def call(self, tool: str, **arguments: Any) -> CallToolResult:
        return self.portal.call(lambda: self.session.call_tool(tool, arguments, read_timeout_seconds=60))

    def text(self, tool: str, **arguments: Any) -> str:
        """The text of a successful call."""
        result = self.call(tool, **arguments)
        assert not result.is_error, result.content
        (content,) = result.content
        return str(getattr(content, "text", ""))

    def data(self, tool: str, **arguments: Any) -> Any:
        """The JSON answer of a successful call."""
        return json.loads(self.text(tool, **arguments))

    def error(self, tool: str, **arguments: Any) -> dict[str, Any]:
        """The {code, exit_code, message} of a failed call."""
        result = self.call(tool, **arguments)
        assert result.is_error, result.content
        (content,) = result.content
        error: dict[str, Any] = json.loads(getattr(content, "text", ""))["error"]
        return error

    def tools(self) -> Any:
        return self.portal.call(self.session.list_tools).tools

    def resources(self) -> Any:
        return self.portal.call(self.session.list_resources).resources

    def read(self, uri: str) -> str:
        result = self.portal.call(self.session.read_resource, uri)
        (content,) = result.contents
        return str(getattr(content, "text", ""))

    def ping(self) -> None:
        self.portal.call(self.session.send_ping)


def server_env(agent: str | None = AGENT) -> dict[str, str]:
    """The server's environment: this one's (git identity, HOME) with GRID_AGENT_ID set to AGENT."""
    env = {k: v for k, v in os.environ.items() if k != "GRID_AGENT_ID"}
    env.setdefault("GRIDGIT_LOCK_TIMEOUT", "60")
    if agent is not None:
        env["GRID_AGENT_ID"] = agent
    return env


def connect(
    stack: ExitStack,
    cwd: Path,
    env: dict[str, str],
    stderr: Path,
    args: tuple[str, ...] = (),
    argv: list[str] | None = None,
) -> Client:
    """Start `gridgit mcp ARGS` (or the command ARGV) in CWD and initialise a session with it; STACK closes both."""
    portal = stack.enter_context(start_blocking_portal())
    errlog = stack.enter_context(stderr.open("w", encoding="utf-8"))
    command, *rest = argv or [sys.executable, "-m", "gridgit", "mcp", *args]
    params = StdioServerParameters(command=command, args=rest, env=env, cwd=cwd)
    manager: AbstractContextManager[ClientSession] = portal.wrap_async_context_manager(_session(params, errlog))
    return Client(portal, stack.enter_context(manager), stderr)


@pytest.fixture
def clients(tmp_path: Path) -> Iterator[Any]:
    """Start servers for a test: `clients(repo, agent)` returns a Client; all are closed at its end.

    ARGS go to `gridgit mcp`; CWD (default: the repository) is where it starts.
    """
    with ExitStack() as stack:
        started = itertools.count()

        def start(repo: Repo, agent: str | None = AGENT, args: tuple[str, ...] = (), cwd: Path | None = None) -> Client:
            stderr = tmp_path / f"mcp-{next(started)}.stderr"
            return connect(stack, cwd or repo.path, server_env(agent), stderr, args)

        yield start


@pytest.fixture(scope="session")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Repo, Client]]:
    """One initialised repository and one `gridgit mcp` (as executor-001) on it, for the session."""
    with pytest.MonkeyPatch.context() as patch, ExitStack() as stack:
        isolate(patch, tmp_path_factory.mktemp("home"))
        path = tmp_path_factory.mktemp("served") / "repo"
        path.mkdir()
        git(path, "init", "-q", "-b", "main")
        git(path, "commit", "-q", "--allow-empty", "-m", "initial")
        repo = Repo(path)
        repo.gridgit(
            "init", "--mission", "MCP Mission", "--phase", "01-foundation:Foundation", "--phase", "02-core:Core"
        )
        client = connect(stack, path, server_env(), tmp_path_factory.mktemp("logs") / "served.stderr")
        yield repo, client
