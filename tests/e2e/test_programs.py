"""The tier's own harness: a program of another version fails naming both versions, one that cannot be had skips
with the reason, and the scripted model answers each wire format as its client reads it."""

from __future__ import annotations

import json
import stat
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from tests.e2e import programs
from tests.e2e.modelserver import ModelServer, Script, Step, say


def fake(tmp_path: Path, said: str) -> str:
    """An executable that prints SAID for `--version`, standing in for an installed CLI of that version."""
    path = tmp_path / "cli"
    path.write_text(f"#!/bin/sh\necho '{said}'\n", encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return str(path)


def test_a_program_of_another_version_is_a_failure_naming_both(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRIDGIT_E2E_CLAUDE", fake(tmp_path, "2.0.1 (Claude Code)"))
    with pytest.raises(programs.WrongVersion, match=r"version 2\.0\.1, the end-to-end tier is pinned to 2\.1\.197"):
        programs.executable("claude")


def test_the_pinned_version_given_by_path_is_taken(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cli = fake(tmp_path, "codex-cli 0.171.0")
    monkeypatch.setenv("GRIDGIT_E2E_CODEX", cli)
    assert programs.executable("codex") == cli


def test_a_program_that_does_not_run_is_unavailable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRIDGIT_E2E_GEMINI", str(tmp_path / "no-such-gemini"))
    with pytest.raises(programs.Unavailable, match="did not run"):
        programs.executable("gemini")


def test_without_npm_a_program_not_installed_is_unavailable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRIDGIT_E2E_DIR", str(tmp_path / "tools"))
    monkeypatch.delenv("GRIDGIT_E2E_OPENCODE", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))  # no npm anywhere
    with pytest.raises(programs.Unavailable, match="npm is not installed"):
        programs.executable("opencode")


def post(url: str, body: Any) -> tuple[int, str]:
    request = urllib.request.Request(url, json.dumps(body).encode(), {"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def test_the_scripted_model_replays_by_position_and_logs_every_request() -> None:
    steps = [Step("Write", {"file_path": "a.py", "content": "A = 1\n"}, label="write", fault="500"), say("Done.")]
    with ModelServer(Script(steps)) as server:
        turn = {"model": "m", "messages": [{"role": "user", "content": "go"}], "tools": [{"name": "Write"}]}
        assert post(f"{server.url}/v1/messages", turn)[0] == 500  # the fault, once
        code, body = post(f"{server.url}/v1/messages", turn)  # the retry gets the step itself
        assert code == 200 and json.loads(body)["content"][0]["input"] == {"file_path": "a.py", "content": "A = 1\n"}
        side = post(f"{server.url}/v1/messages", {"model": "m", "messages": [{"role": "user", "content": "title?"}]})
        assert side[0] == 200  # a request without tools takes no step
        code, body = post(f"{server.url}/v1/chat/completions", {**turn, "stream": True})
        assert code == 200 and '"content": "Done."' in body and body.rstrip().endswith("data: [DONE]")
        assert [(r.wire, r.turn, r.step) for r in server.requests] == [
            ("anthropic", True, 0), ("anthropic", True, 0), ("anthropic", False, None), ("chat", True, 1)
        ]  # fmt: skip
        assert server.requests[0].text().endswith("go")


def test_each_wire_streams_a_tool_call_its_client_can_read() -> None:
    call = Step("write_file", {"file_path": "a.py", "content": "A = 1\n"})
    bodies = {
        "/v1/responses": {"input": [], "tools": [{"type": "function", "name": "write_file"}], "stream": True},
        "/v1beta/models/m:streamGenerateContent?alt=sse": {"contents": [],
                                                          "tools": [{"functionDeclarations": [{"name": "write_file"}]}]},
    }  # fmt: skip
    for path, body in bodies.items():
        with ModelServer(Script([call])) as server:
            code, text = post(server.url + path, body)
        events = [json.loads(line[6:]) for line in text.splitlines() if line.startswith("data: ")]
        assert code == 200, text
        if "responses" in path:
            done = next(e for e in events if e["type"] == "response.output_item.done")["item"]
            assert done["type"] == "function_call" and json.loads(done["arguments"]) == call.args
            assert events[-1]["type"] == "response.completed"
        else:
            part = events[0]["candidates"][0]["content"]["parts"][0]
            assert part == {"functionCall": {"name": "write_file", "args": call.args}}
            assert events[-1]["candidates"][0]["finishReason"] == "STOP"
