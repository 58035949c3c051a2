"""Usage from a Claude Code transcript, through the real Stop hook: each message counted once, whatever the file."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest

from gridgit import Blackboard
from gridgit.work import transcript
from tests.agents.helpers import FIXTURES, command, payload, run
from tests.conftest import Repo

SONNET, HAIKU = "claude-sonnet-4-5-20250929", "claude-haiku-4-5-20251001"
ME = {"GRID_AGENT_ID": "executor-001"}


def fixture(cwd: Path, session: str) -> str:
    """The documented transcript (tests/fixtures/agents/claude/transcript.md) of SESSION in CWD."""
    text = (FIXTURES / "claude" / "transcript.jsonl").read_text(encoding="utf-8")
    return text.replace("{session}", session).replace("{cwd}", str(cwd))


def stop(cwd: Path, session: str, path: Path) -> str:
    """Claude Code's Stop payload (tests/fixtures/agents/claude/end.json) naming the transcript at PATH."""
    data = json.loads(payload("claude", "end", session=session, cwd=str(cwd)))
    data["transcript_path"] = str(path)
    return json.dumps(data)


def line(message_id: str, model: str, tokens_in: int, tokens_out: int) -> str:
    usage = {"input_tokens": tokens_in, "output_tokens": tokens_out, "cache_read_input_tokens": 0,
             "cache_creation_input_tokens": 0}  # fmt: skip
    message = {"id": message_id, "type": "message", "role": "assistant", "model": model, "usage": usage,
               "content": [{"type": "text", "text": "ok"}]}  # fmt: skip
    return json.dumps({"type": "assistant", "message": message}) + "\n"


def models(repo: Repo) -> dict[str, Any]:
    return {name: {k: row[k] for k in ("tokens_in", "tokens_out", "cache_read", "cache_write", "messages")}
            for name, row in repo.gridgit_json("budget")["by_model"].items()}  # fmt: skip


EXPECTED = {
    SONNET: {"tokens_in": 13, "tokens_out": 370, "cache_read": 22_000, "cache_write": 2_300, "messages": 2},
    HAIKU: {"tokens_in": 50, "tokens_out": 40, "cache_read": 0, "cache_write": 0, "messages": 1},
}


def test_a_claude_code_transcript_is_counted_exactly_once(repo: Repo, tmp_path: Path) -> None:
    repo.gridgit("setup", "claude")
    path = tmp_path / "session.jsonl"
    path.write_text(fixture(repo.path, "sess-1"), encoding="utf-8")
    hook, text = command(repo.path, "claude", "end"), stop(repo.path, "sess-1", path)
    first = run(hook, text, repo.path, ME)
    assert (first.returncode, first.stdout, first.stderr) == (0, "", "")
    assert models(repo) == EXPECTED
    data = repo.gridgit_json("budget")
    # $3/M in, $15/M out, $0.30/M cache read, $3.75/M cache write; Haiku 4.5 $1/M in, $5/M out
    assert data["total"]["cost_usd"] == 0.021064 and set(data["by_agent"]) == {"executor-001"}
    assert repo.gridgit_json("state", "show")["budget"]["total_cost_usd"] == 0.021064

    # The hook again, and twice at once (Stop and a second Stop): nothing is counted twice.
    assert run(hook, text, repo.path, ME).returncode == 0
    procs = [subprocess.Popen(["sh", "-c", hook], stdin=subprocess.PIPE, cwd=repo.path, text=True,
                              env={**os.environ, **ME}) for _ in range(2)]  # fmt: skip
    for proc in procs:
        proc.communicate(text, timeout=60)
        assert proc.returncode == 0
    assert models(repo) == EXPECTED

    # A line still being written counts once it is whole.
    half = line("msg_03Later", SONNET, 7, 70)
    with path.open("a", encoding="utf-8") as out:
        out.write(half[:40])
    assert run(hook, text, repo.path, ME).returncode == 0 and models(repo) == EXPECTED
    with path.open("a", encoding="utf-8") as out:
        out.write(half[40:])
    run(hook, text, repo.path, ME)
    assert models(repo)[SONNET]["tokens_out"] == 440 and models(repo)[SONNET]["messages"] == 3

    # Lines that are not JSON, or JSON of another shape, count nothing and break nothing.
    with path.open("a", encoding="utf-8") as out:
        out.write('not json at all\n{"usage": [1, 2]}\n{"type": "assistant", "message": {"usage": "x"}}\n[]\n')
        out.write(line("msg_04Huge", SONNET, 5_000_000_000, 1))  # an absurd count: a line not understood
    result = run(hook, text, repo.path, ME)
    assert (result.returncode, result.stderr) == (0, "")
    assert models(repo)[SONNET]["messages"] == 3
    counted = repo.gridgit_json("budget", "transcript", str(path), "--session", "sess-1", agent="executor-001")
    assert counted["messages"] == 0 and counted["bad"] == 0  # read before: the offset moved past them


def test_a_missing_transcript_and_other_tools_shapes_count_nothing(repo: Repo, tmp_path: Path) -> None:
    repo.gridgit("setup", "claude")
    hook = command(repo.path, "claude", "end")
    missing = run(hook, stop(repo.path, "sess-2", tmp_path / "gone.jsonl"), repo.path, ME)
    assert (missing.returncode, missing.stderr) == (0, "")
    gemini = tmp_path / "chat.json"  # Gemini CLI's transcript is one JSON document
    gemini.write_text(json.dumps({"messages": [{"role": "model", "usage": {"tokens": 5}}]}, indent=2))
    assert run(hook, stop(repo.path, "sess-3", gemini), repo.path, ME).returncode == 0
    assert repo.gridgit_json("budget")["total"] == {"tokens_in": 0, "tokens_out": 0, "cache_read": 0,
                                                    "cache_write": 0, "messages": 0, "cost_usd": 0}  # fmt: skip
    assert repo.events("budget_added") == []


def test_an_enormous_transcript_is_caught_up_over_several_runs(
    repo: Repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run reads at most MAX_READ bytes (here 4 KiB): later runs go on, and a line longer than that is skipped."""
    monkeypatch.setattr(transcript, "MAX_READ", 4096)
    board = Blackboard(repo.path)
    path = tmp_path / "big.jsonl"
    giant = json.loads(line("msg_giant", SONNET, 1, 1))
    giant["message"]["content"][0]["text"] = "x" * 10_000
    lines = [line(f"msg_{n:03d}", SONNET, 10, 1) for n in range(60)]
    path.write_text("".join(lines[:30]) + json.dumps(giant) + "\n" + "".join(lines[30:]), encoding="utf-8")
    runs, notes = 0, set()
    while True:
        counted = board.count_transcript(str(path), "sess-big", "executor-001")
        runs += 1
        notes.add(counted.note)
        if not counted.messages and not counted.note:
            break
    report = board.budget()["by_model"][SONNET]
    assert (report["messages"], report["tokens_in"]) == (60, 600) and runs > 3
    assert "a line over the read limit was skipped" in notes
    path.write_text("", encoding="utf-8")  # replaced by a shorter file: nothing more, nothing undone
    assert board.count_transcript(str(path), "sess-big", "executor-001").messages == 0
    assert board.budget()["by_model"][SONNET]["messages"] == 60
