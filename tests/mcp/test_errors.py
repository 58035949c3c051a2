"""Bad input through the MCP client: an error result with the CLI's code, exit status and message; nothing written;
the server still answers."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

import pytest
from mcp.shared.exceptions import MCPError

from tests.conftest import Repo
from tests.mcp.conftest import AGENT, Client, server_env


def cli_error(repo: Repo, *args: str, agent: str = AGENT) -> dict[str, Any]:
    """The --json error envelope's {code, message} of a failing CLI call, with its exit status."""
    proc = repo.gridgit(*args, "--json", agent=agent, check=False)
    error: dict[str, Any] = json.loads(proc.stdout)["error"]
    return {**error, "exit_code": proc.returncode}


BAD_WRITES = {
    "permission refusal": (
        {"category": "discovery", "topic": "mcp-bad", "content": "x", "agent": "scout-001"},
        ["write", "-c", "discovery", "-t", "mcp-bad", "--content", "x", "--agent", "scout-001"],
    ),
    "oversized entry": (
        {"category": "discovery", "topic": "mcp-bad", "content": "x" * (64 * 1024 + 1)},
        ["write", "-c", "discovery", "-t", "mcp-bad", "--content", "x" * (64 * 1024 + 1)],
    ),
    "phase id that is a path": (
        {"category": "discovery", "topic": "mcp-bad", "content": "x", "phase": "../../etc"},
        ["write", "-c", "discovery", "-t", "mcp-bad", "--content", "x", "--phase", "../../etc"],
    ),
    "malformed agent id": (
        {"category": "discovery", "topic": "mcp-bad", "content": "x", "agent": "nobody"},
        ["write", "-c", "discovery", "-t", "mcp-bad", "--content", "x", "--agent", "nobody"],
    ),
    "agent type without its id": (
        {"category": "discovery", "topic": "mcp-bad", "content": "x", "agent": "executor"},
        ["write", "-c", "discovery", "-t", "mcp-bad", "--content", "x", "--agent", "executor"],
    ),
    "phase that does not exist": (
        {"category": "discovery", "topic": "mcp-bad", "content": "x", "phase": "55-none"},
        ["write", "-c", "discovery", "-t", "mcp-bad", "--content", "x", "--phase", "55-none"],
    ),
}


@pytest.mark.parametrize("case", sorted(BAD_WRITES))
def test_a_refused_write_answers_as_the_cli_and_writes_nothing(served: tuple[Repo, Client], case: str) -> None:
    repo, client = served
    arguments, cli_args = BAD_WRITES[case]
    before = repo.snapshot()
    error = client.error("write_entry", **arguments)
    assert repo.snapshot() == before
    assert error == cli_error(repo, *cli_args)
    assert repo.snapshot() == before
    assert error["exit_code"] in (1, 4, 7)
    if case == "permission refusal":
        assert error == {
            "code": "permission_denied", "exit_code": 4,
            "message": "scout agents may not write to a scratchpad (agent scout-001)",
        }  # fmt: skip


BAD_PATHS = {
    "touch_file": {"path": "a\x00b.py"},
    "touch_file (moved from)": {"path": "src/a.py", "operation": "moved", "old_path": "evil\n- path: injected.py"},
    "claim_paths": {"patterns": ["src/**", "src/\x1b[2J"]},
    "release_paths": {"patterns": ["src/a\tb.py"]},
    "heartbeat": {"progress": 5, "action": "testing", "files": ["ok.py", "a\rb.py"]},
}


@pytest.mark.parametrize("case", sorted(BAD_PATHS))
def test_a_path_with_a_control_character_is_bad_input_and_writes_nothing(
    served: tuple[Repo, Client], case: str
) -> None:
    repo, client = served
    before = repo.snapshot()
    error = client.error(case.split(" ")[0], **BAD_PATHS[case])
    assert (error["code"], error["exit_code"]) == ("bad_input", 1)
    assert "holds a control character" in error["message"]
    assert repo.snapshot() == before


@pytest.mark.parametrize(
    ("tool", "arguments", "expected"),
    [
        ("write_entry", {"category": "discovery", "topic": "mcp-bad"}, "write_entry: content: Field required"),
        ("heartbeat", {"progress": "lots", "action": "x"}, "heartbeat: progress: Input should be a valid integer"),
        (
            "touch_file",
            {"path": "a.py", "operation": "eaten"},
            "touch_file: operation: must be one of created, modified, deleted, moved, not 'eaten'",
        ),
        (
            "write_entry",
            {"category": "rumour", "topic": "mcp-bad", "content": "x"},
            "write_entry: category: must be one of discovery, decision, gotcha, pattern, warning, question, blocker, "
            "handoff, not 'rumour'",
        ),
        (
            "heartbeat",
            {"progress": 150, "action": "x"},
            "heartbeat: progress: Input should be less than or equal to 100",
        ),
        (
            "claim_paths",
            {"patterns": ["a"], "ttl_minutes": 0},
            "claim_paths: ttl_minutes: Input should be greater than 0",
        ),
        (
            "heartbeat",
            {"progress": 5, "action": "x", "colour": "red"},
            "heartbeat: unknown argument(s): colour (it takes",
        ),
        ("read_entries", {"limit": 0}, "read_entries: limit: Input should be greater than or equal to 1"),
        ("claim_paths", {"patterns": "src/**", "exclusive": "maybe"}, "claim_paths: patterns: Input should be"),
    ],
)
def test_usage_errors_answer_code_usage_exit_2(
    served: tuple[Repo, Client], tool: str, arguments: dict[str, Any], expected: str
) -> None:
    repo, client = served
    before = repo.snapshot()
    error = client.error(tool, **arguments)
    assert (error["code"], error["exit_code"]) == ("usage", 2)
    assert error["message"].startswith(expected) and "\n" not in error["message"]
    assert repo.snapshot() == before
    client.ping()
    assert client.text("read_entries", topic="mcp-bad") == "(no entries)"


def test_an_unknown_tool_is_a_protocol_error_and_no_prompts_are_offered(served: tuple[Repo, Client]) -> None:
    """The MCP spec's tools page (2025-11-25, "Error Handling"): an unknown tool is a JSON-RPC error -32602; input
    validation, an unknown argument included, is a tool error the model can correct (above)."""
    repo, client = served
    before = repo.snapshot()
    with pytest.raises(MCPError) as caught:
        client.call("no_such_tool")
    assert (caught.value.code, caught.value.message) == (-32602, "Unknown tool: no_such_tool")
    assert repo.snapshot() == before
    capabilities = client.session.server_capabilities
    assert capabilities is not None and capabilities.prompts is None and capabilities.tools is not None
    # No resource notification is ever sent: none is advertised.
    assert capabilities.resources is not None and not capabilities.resources.subscribe
    assert not capabilities.resources.list_changed and not capabilities.tools.list_changed
    client.ping()


def test_before_init_and_without_an_agent_it_answers_the_cli_errors(clients: Any, bare_repo: Repo) -> None:
    """No Blackboard yet, and no GRID_AGENT_ID: the CLI's errors; after `gridgit init` the same server works.

    The server starts elsewhere and is pointed at the repository with --repo.
    """
    elsewhere = bare_repo.path.parent / "elsewhere"
    elsewhere.mkdir()
    client = clients(bare_repo, agent=None, args=("--repo", str(bare_repo.path)), cwd=elsewhere)
    assert client.error("write_entry", category="discovery", topic="t", content="x", agent=AGENT) == cli_error(
        bare_repo, "write", "-c", "discovery", "-t", "t", "--content", "x"
    ) | {"exit_code": 3}
    with pytest.raises(MCPError, match='"code":"not_initialised","exit_code":3'):
        client.read("grid://state")
    bare_repo.gridgit("init", "--mission", "Later", "--phase", "01-foundation:Foundation")
    no_agent = client.error("write_entry", category="discovery", topic="t", content="x")
    assert no_agent == {
        "code": "bad_input",
        "exit_code": 1,
        "message": "no agent id: pass agent, set GRID_AGENT_ID or `git config grid.agent`",  # the tool's argument
    }
    assert client.data("write_entry", category="discovery", topic="t", content="x", agent="executor-009")["entry"] == 1
    assert "Later" in client.read("grid://state")


def _handshake(version: str) -> list[dict[str, Any]]:
    """A raw client's initialize request (id 1) at protocol VERSION and its initialized notification."""
    return [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
    ]  # fmt: skip


def _all_at_once(repo: Repo, messages: list[dict[str, Any]]) -> subprocess.CompletedProcess[str]:
    """A raw `gridgit mcp` given MESSAGES on stdin, closed right after them, run to its exit."""
    return subprocess.run(
        [sys.executable, "-m", "gridgit", "mcp"],
        cwd=repo.path,
        env=server_env(),
        input="".join(json.dumps(m) + "\n" for m in messages),
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_nothing_but_protocol_on_stdout(served: tuple[Repo, Client]) -> None:
    """A raw server: every stdout line is a JSON-RPC message, the library's warning goes to stderr."""
    repo, _ = served
    proc = subprocess.Popen(
        [sys.executable, "-m", "gridgit", "mcp"],
        cwd=repo.path,
        env=server_env(),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdin is not None and proc.stdout is not None
    messages = [
        *_handshake("2025-06-18"),
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "write_entry", "arguments": {"category": "decision", "topic": "mcp-raw", "content": "no fields"}}},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "write_entry", "arguments": {}}},
    ]  # fmt: skip
    lines = []
    try:
        for message in messages:
            proc.stdin.write(json.dumps(message) + "\n")
            proc.stdin.flush()
            if "id" in message:
                lines.append(proc.stdout.readline())
    finally:
        out, err = proc.communicate(timeout=30)  # closes stdin: the client hangs up
    lines += out.splitlines()
    answers = [json.loads(line) for line in lines if line.strip()]
    assert [a["id"] for a in answers] == [1, 2, 3] and all(a["jsonrpc"] == "2.0" for a in answers)
    assert answers[2]["result"]["isError"] is True
    assert "lacks the spec's Decision" in err
    assert proc.returncode == 0, err


def test_a_call_whose_client_closes_stdin_at_once_is_still_answered(served: tuple[Repo, Client]) -> None:
    """issue 38: `gridgit mcp` with stdin closed right after a tools/call never answered the call (the SDK cancels
    what is in flight at the end of stdin); the spec's stdio shutdown is exactly that: close stdin, wait for the exit."""
    repo, _ = served
    messages = [
        *_handshake("2025-11-25"),
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "write_entry", "arguments": {"category": "gotcha", "topic": "mcp-eof", "content": "Gotcha: eof"}}},
    ]  # fmt: skip
    proc = _all_at_once(repo, messages)
    answers = {a["id"]: a for a in map(json.loads, proc.stdout.splitlines())}
    assert sorted(answers) == [1, 2] and proc.returncode == 0, proc.stderr
    assert answers[2]["result"]["structuredContent"]["entry"] >= 1 and not answers[2]["result"]["isError"]
    assert "Gotcha: eof" in (repo.grid / "phases" / "01-foundation" / "scratchpad.md").read_text("utf-8")


def test_the_2026_discovery_advertises_no_subscriptions(served: tuple[Repo, Client]) -> None:
    """issue 38: `server/discover` advertised resource subscriptions (and list changes) that never notify."""
    repo, _ = served
    request = {"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}}}}  # fmt: skip
    proc = _all_at_once(repo, [request])
    (answer,) = map(json.loads, proc.stdout.splitlines())
    capabilities = answer["result"]["capabilities"]
    assert capabilities["resources"] == {"listChanged": False, "subscribe": False}
    assert capabilities["tools"] == {"listChanged": False} and "prompts" not in capabilities


def test_without_the_extra_the_command_says_how_to_get_it(repo: Repo, tmp_path: Any) -> None:
    # A stand-in `mcp` package that cannot be found: what a gridgit without the extra sees.
    shadow = tmp_path / "shadow"
    shadow.mkdir()
    (shadow / "sitecustomize.py").write_text(
        "import sys\n"
        "class _Hide:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'mcp' or name.startswith('mcp.'):\n"
        "            raise ModuleNotFoundError('No module named ' + repr(name), name=name)\n"
        "sys.meta_path.insert(0, _Hide())\n",
        encoding="utf-8",
    )
    env = {**os.environ, "PYTHONPATH": str(shadow)}
    proc = repo.gridgit("mcp", check=False, env=env)
    assert proc.returncode == 1
    assert proc.stderr == "gridgit: error: the MCP server needs the mcp extra: pip install 'gridgit[mcp]'\n"


# A required argument's harmless value while another argument gets the payload.
MCP_REQUIRED = {
    "category": "discovery", "topic": "mcp-options", "content": "x", "progress": 5, "action": "testing",
    "path": "src/options.py", "patterns": ["src/options.py"], "entry_id": "1",
    "to": "executor-002", "message_id": "01JAAAAAAAAAAAAAAAAAAAAAAA", "block": "01-01", "summary": "done",
    "tokens_in": 1, "tokens_out": 1, "id": "01-01",
}  # fmt: skip


def _takes_text(schema: dict[str, Any]) -> str | None:
    """`string` or `array` when the argument takes text or a list of it (the lean schemas drop `anyOf [X, null]`)."""
    kinds = [schema, *schema.get("anyOf", [])]
    if any(k.get("type") == "string" and "enum" not in k for k in kinds):
        return "string"
    if any(k.get("type") == "array" and k.get("items", {}).get("type") == "string" for k in kinds):
        return "array"
    return None


def test_no_argument_of_any_tool_is_an_option_to_git(clients: Any, repo: Repo, tmp_path: Any) -> None:
    """The CLI's walk (tests/cli/test_git_options.py) over the server's own tool list: a tool added later is fed too."""
    from tests.cli.test_git_options import payloads

    client = clients(repo)  # a repository of its own: the payloads are written as entries, paths, tasks
    marker = tmp_path / "ran"
    marker.mkdir()
    fed = set()
    for tool in client.tools():
        schema = tool.input_schema
        for name, prop in schema.get("properties", {}).items():
            kind = _takes_text(prop)
            if kind is None:
                continue
            for payload in payloads(marker):
                required = {r: MCP_REQUIRED[r] for r in schema.get("required", []) if r != name}
                arguments = {**required, name: [payload] if kind == "array" else payload}
                result = client.call(tool.name, **arguments)
                assert not list(marker.iterdir()), f"{tool.name} {name}: git ran {payload!r}"
                assert "Traceback" not in str(result.content)
                fed.add(tool.name)
    # Every tool that takes an argument takes some text, and got the payloads (`resume` takes none).
    assert fed == {t.name for t in client.tools() if t.input_schema.get("properties")}
    client.ping()
