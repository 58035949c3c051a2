"""`gridgit mcp`: time to the first tool result from process start, and tool calls over stdio next to the CLI.

The client here speaks JSON-RPC lines over the server's pipes itself (no SDK client in the
way): what is timed is the server's side plus the pipe, as an MCP client sees it. The CLI
side of each ratio is the `gridgit` process doing the same operation, interleaved round by
round into the same phase, so both sides write into a scratchpad of the same size.
"""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path
from typing import IO, Any

from benchmarks.harness import GRIDGIT, Config, Row, Unavailable, Workspace, interleaved, ratios, runner
from benchmarks.suite import benchmark

AGENT = "executor-001"
PHASE = "01-foundation"


class StdioServer:
    """One `gridgit mcp` process, initialised, answering calls one at a time."""

    def __init__(self, path: Path, env: dict[str, str]) -> None:
        self.proc = subprocess.Popen(
            [GRIDGIT, "mcp"],
            cwd=path,
            env={**env, "GRID_AGENT_ID": AGENT},
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        self.stdin: IO[str] = self.proc.stdin  # type: ignore[assignment]
        self.stdout: IO[str] = self.proc.stdout  # type: ignore[assignment]
        self.next_id = 0
        info = {"name": "bench", "version": "1"}
        self.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": info})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, message: dict[str, Any]) -> None:
        self.stdin.write(json.dumps(message) + "\n")
        self.stdin.flush()

    def request(self, method: str, params: dict[str, Any]) -> Any:
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        line = self.stdout.readline()
        if not line:
            raise Unavailable("unavailable: gridgit mcp exited (is the mcp extra installed?)")
        answer = json.loads(line)
        if "error" in answer or answer["result"].get("isError"):
            raise RuntimeError(f"gridgit mcp {method}: {line[:300]}")
        return answer["result"]

    def call(self, tool: str, **arguments: Any) -> Any:
        return self.request("tools/call", {"name": tool, "arguments": arguments})

    def close(self) -> None:
        self.stdin.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def _first_result(path: Path, env: dict[str, str]) -> float:
    """ms from spawning `gridgit mcp` to the answer of its first tool call (initialize included)."""
    start = time.perf_counter_ns()
    server = StdioServer(path, env)
    try:
        server.call("read_entries", topic="auth", limit=5)
        return (time.perf_counter_ns() - start) / 1e6
    finally:
        server.close()


@benchmark("mcp", "mcp", "gridgit mcp over stdio")
def mcp(cfg: Config, ws: Workspace) -> list[Row]:
    path = ws.grid_repo("mcp")
    env = {**ws.env, "GRID_AGENT_ID": AGENT}
    starts = [_first_result(path, env) for _ in range(cfg.repeats(10, 2) + 1)][1:]
    rows = [Row("mcp", "mcp: process start -> first tool result (read_entries)", "ms", starts)]

    server = StdioServer(path, env)
    try:
        tools = server.request("tools/list", {})
        count = iter(range(10**6))

        def mcp_write() -> None:
            n = next(count)
            server.call("write_entry", category="discovery", topic=f"mcp-{n}", content=f"Found: over stdio {n}")

        def cli_write() -> None:
            n = next(count)
            runner([GRIDGIT, "write", "-c", "discovery", "-t", f"cli-{n}", "--content", f"Found: {n}"], path, env)()

        repeats, warmup = cfg.repeats(30, 3), cfg.warmup()
        over_stdio, over_cli = interleaved([mcp_write, cli_write], repeats, warmup)
        rows += [
            Row("mcp", "mcp: write_entry over stdio", "ms", over_stdio),
            Row("mcp", "cli: gridgit write (same phase, interleaved)", "ms", over_cli),
            Row("mcp", "mcp write / cli write", "x", ratios(over_stdio, over_cli)),
        ]
        read_stdio, read_cli = interleaved(
            [
                lambda: server.call("read_entries", topic="mcp-1"),
                runner([GRIDGIT, "read", "--topic", "mcp-1"], path, env),
            ],
            repeats,
            warmup,
        )
        rows += [
            Row("mcp", "mcp: read_entries --topic over stdio", "ms", read_stdio),
            Row("mcp", "cli: gridgit read --topic (interleaved)", "ms", read_cli),
            Row("mcp", "mcp read / cli read", "x", ratios(read_stdio, read_cli)),
        ]
        size = len(json.dumps(tools["tools"], separators=(",", ":")))
        label = f"mcp: tools/list size ({len(tools['tools'])} tools, compact JSON)"
        rows.append(Row("mcp", label, "count", [float(size)], note=f"{size} bytes"))
    finally:
        server.close()
    return rows
