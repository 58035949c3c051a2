"""Every path that writes user text to .grid/, to events or to the terminal, tested with the corpus
of real token formats in tests/fixtures/secrets.json: no secret survives anywhere on disk or in
the output, and ordinary prose passes unchanged."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from gridgit.errors import GridError
from gridgit.store.redaction import redact
from tests.conftest import Repo

CORPUS = json.loads((Path(__file__).parent / "fixtures" / "secrets.json").read_text(encoding="utf-8"))
SECRETS: list[dict[str, str]] = CORPUS["secrets"]
PROSE: list[str] = CORPUS["prose"]
ONE_LINE = [s for s in SECRETS if "\n" not in s["text"]]


def _batches(limit: int) -> list[str]:
    """The one-line texts joined with ` ; ` into as few strings as fit a free-text field of LIMIT bytes."""
    batches = [""]
    for case in ONE_LINE:
        joined = f"{batches[-1]} ; {case['text']}" if batches[-1] else case["text"]
        if len(joined.encode("utf-8")) > limit:
            batches.append(case["text"])
        else:
            batches[-1] = joined
    return batches


# The corpus no longer fits one note (4 KiB, an agent's task and a heartbeat's action): in batches that do.
EVERY = _batches(4000)


@pytest.mark.parametrize("case", SECRETS, ids=[s["name"] for s in SECRETS])
def test_each_token_format_is_redacted_once_and_for_all(case: dict[str, str]) -> None:
    once = redact(case["text"])
    assert case["secret"] not in once
    assert "[REDACTED]" in once
    assert redact(once) == once


@pytest.mark.parametrize("text", PROSE)
def test_prose_is_untouched(text: str) -> None:
    assert redact(text) == text


def test_redaction_time_grows_linearly() -> None:
    """A long run of key-like words once took minutes (a pattern backtracked over each word)."""
    import time

    for text in ("a-" * 32000, "token " * 10000, "x://a:" * 10000, "password=" * 7000):
        started = time.perf_counter()
        redact(text)
        assert time.perf_counter() - started < 5


# Each path: (name, call(board, text)) for one-line text; the multi-line fields get every case.
Writer = Callable[[Any, str], Any]
ONE_LINE_PATHS: list[tuple[str, Writer]] = [
    ("entry title", lambda b, t: b.write("discovery", "auth", "body", title=t[:200], agent="executor-001")),
    ("entry tag", lambda b, t: b.write("discovery", "auth", "body", tags=[t.replace(",", " ")[:100]], agent="mc")),
    ("entry block", lambda b, t: b.write("discovery", "auth", "body", block=t[:200], agent="executor-001")),
    ("STATE warning", lambda b, t: b.update_state({"warnings": [t]}, agent="mc")),
    ("STATE blocker item", lambda b, t: b.add_item("blockers", {"description": t}, agent="mc")),
    ("STATE cluster", lambda b, t: b.set_state({"cluster": t}, agent="mc")),
    ("STATE persistent", lambda b, t: b.update_state({"persistent": {"note": t}}, agent="memory-001")),
    ("agent task", lambda b, t: b.register_agent("executor-007", task=t, agent="mc")),
    ("agent summary", lambda b, t: b.finish_agent("executor-007", summary=t, agent="mc")),
    ("claim reason", lambda b, t: b.claim(["src/a.py"], agent="executor-001", reason=t)),
    ("event payload", lambda b, t: b.emit("heartbeat", {"note": t, "nested": [{"x": t}]})),
    ("phase name", lambda b, t: b.start_phase("03-extra", t[:200], agent="mc", force=True)),
    # A registered agent's heartbeat is copied into STATE.md's Recent Activity table too.
    ("heartbeat action", lambda b, t: b.heartbeat(5, t, agent="executor-001")),
    ("heartbeat thread", lambda b, t: b.heartbeat(5, "testing", thread=t, agent="executor-001")),
]


def _leaks(repo: Repo, outputs: list[str]) -> list[str]:
    blob = b"\n".join(repo.snapshot().values()).decode("utf-8", "replace") + "\n".join(outputs)
    return [s["name"] for s in SECRETS if s["secret"] in blob]


def test_every_write_path_redacts_every_format_in_the_files_and_the_history(
    repo: Repo, board: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The Python API (each field), then the CLI, the MCP tools and an agent hook: no secret in .grid/,
    and none in the grid ref's history once snapshotted (`git log -p grid`).

    A secret typed into a .grid/ file by hand and then snapshotted is the snapshot's to redact
    (tests/git); here every secret comes in through a write path.
    """
    board.register_agent("executor-001", task="auth", agent="mc")
    for name, call in ONE_LINE_PATHS:
        for case in ONE_LINE:
            # refused (too long for the field) writes nothing; the CLI's message is tested below
            with contextlib.suppress(GridError):
                call(board, case["text"])
            leaks = _leaks(repo, [])
            assert not leaks, f"{name}: {leaks}"
    for case in SECRETS:
        board.write("discovery", "auth", case["text"], agent="executor-001")
        board.resolve(board.write("question", "auth", "which key?", agent="executor-001").id, answer=case["text"][:400],
                      note=case["text"][:400], agent="mc")  # fmt: skip
    assert not _leaks(repo, [])
    _through_the_cli(repo, monkeypatch)
    _through_mcp(repo, tmp_path)
    _through_an_agent_hook(repo)
    assert not _leaks(repo, []), "a write path of the CLI, MCP or an agent hook"
    repo.gridgit("snapshot", "-m", "secrets")
    history = repo.git("log", "-p", "--no-color", "grid")
    assert "STATE.md" in history and "heartbeat" in history
    assert not [s["name"] for s in SECRETS if s["secret"] in history]


def _through_the_cli(repo: Repo, monkeypatch: pytest.MonkeyPatch) -> None:
    """The CLI's heartbeat `--action` with each kind, then `--thread` and the agent's task with all of them
    (one line, `;` between them), in this process through the CLI's real entry point."""
    from gridgit.cli import common
    from gridgit.cli.main import main

    monkeypatch.chdir(repo.path)
    monkeypatch.setenv("GRID_AGENT_ID", "executor-001")
    runs = [["heartbeat", "-p", "7", "-a", case["text"]] for case in ONE_LINE]
    for every in EVERY:
        runs += [["heartbeat", "-p", "7", "-a", "testing", "--thread", every], ["agent", "register", "--task", every]]
    for argv in runs:
        common.json_mode = False
        with pytest.raises(SystemExit) as exit_code:
            main(argv)
        assert exit_code.value.code == 0, argv


def _through_mcp(repo: Repo, tmp_path: Path) -> None:
    """The MCP tools that write text, through the SDK's client, each given every kind at once."""
    from tests.mcp.conftest import connect, server_env

    calls: list[tuple[str, dict[str, Any]]] = [
        ("write_entry", {"category": "discovery", "topic": "mcp", "content": "\n".join(s["text"] for s in SECRETS)}),
    ]
    for every in EVERY:
        calls += [
            ("heartbeat", {"progress": 9, "action": every, "thread": every}),
            ("write_entry", {"category": "gotcha", "topic": "mcp", "content": "c", "title": every[:200]}),
            ("start_session", {"task": every}),
            ("claim_paths", {"patterns": ["src/mcp.py"], "reason": every[:2000]}),
        ]
    with contextlib.ExitStack() as stack:
        client = connect(stack, repo.path, server_env("executor-001"), tmp_path / "mcp.stderr")
        for tool, arguments in calls:
            assert not client.call(tool, **arguments).is_error, tool


def _through_an_agent_hook(repo: Repo) -> None:
    """A Codex apply_patch touching a file named after each secret (paths go into events), then its Stop hook.

    Texts with a `/` would be folders (and a URL's password no URL), and a key word right after
    a `/` is a path, not a key (`/etc/passwd`): each name is `src/N TEXT.py`.
    """
    from tests.agents.helpers import command, payload, run

    repo.gridgit("setup", "codex")
    names = [f"src/{i} {c['text']}.py" for i, c in enumerate(ONE_LINE) if "/" not in c["text"]]
    patch = "*** Begin Patch\n" + "".join(f"*** Add File: {n}\n+x = 1\n" for n in names) + "*** End Patch\n"
    data = json.loads(payload("codex", "after-edit", session="codex-secrets", cwd=str(repo.path), rel="x.py"))
    data["tool_input"]["command"] = patch
    for event, text in (("after-edit", json.dumps(data)), ("end", payload("codex", "end", session="codex-secrets",
                                                                           cwd=str(repo.path)))):  # fmt: skip
        result = run(command(repo.path, "codex", event), text, repo.path)
        assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr


def test_init_arguments_are_redacted(bare_repo: Repo) -> None:
    secret = "ghp_16C7e42F292c6912E7710c838347Ae178B4a"
    bare_repo.gridgit("init", "--mission", f"deploy {secret}", "--phase", f"01-a:token={secret}")
    assert secret not in "".join(p.read_text("utf-8", "replace") for p in bare_repo.grid.rglob("*") if p.is_file())


def test_reads_redact_what_a_hand_edit_left_in_a_file(repo: Repo, tmp_path: Path) -> None:
    """A secret typed into a .grid/ file by hand (or quoted in an error) never reaches the terminal, the web
    view's API or its live stream, nor an MCP tool's answer or resource."""
    from tests.mcp.conftest import connect, server_env
    from tests.serve.conftest import start_server

    secret = "sk_live_4eC39HqLyjWDarjtT1zdp7dc"
    pad = repo.grid / "phases" / "01-foundation" / "scratchpad.md"
    repo.gridgit("write", "-c", "discovery", "-t", "auth", "--content", "placeholder", agent="executor-001")
    pad.write_text(pad.read_text("utf-8").replace("placeholder", f"key {secret} \x1b[31mred\x1b[0m"), "utf-8")
    state = repo.grid / "STATE.md"
    state.write_text(state.read_text("utf-8").replace("cluster: Test Mission", f"cluster: Mission {secret}"), "utf-8")
    shown = repo.gridgit("read", "--json").stdout + repo.gridgit("read").stdout + repo.gridgit("status").stdout
    assert secret not in shown and "\x1b" not in shown
    refused = repo.gridgit(
        "write", "-c", f"bogus {secret}", "-t", "x", "--content", "c", agent="executor-001", check=False
    )
    assert refused.returncode == 1 and secret not in refused.stderr
    server = start_server(repo.path)
    try:
        stream = server.stream()
        repo.gridgit("events", "emit", "heartbeat", "--payload", '{"note": "live"}')
        with (repo.grid / "events" / "current.jsonl").open("a", encoding="utf-8") as log:  # a hand-written event
            log.write(json.dumps({"id": "18ff0000000000ff-000000000000-000000", "type": "heartbeat",
                                  "timestamp": "2030-01-01T00:00:00Z", "payload": {"note": secret}}) + "\n")  # fmt: skip
        served = [json.dumps(server.api(route)) for route in ("/api/entries", "/api/status", "/api/events")]
        served += [json.dumps(stream.event()), json.dumps(stream.event())]
        stream.close()
    finally:
        server.stop()
    assert "[REDACTED]" in "".join(served) and secret not in "".join(served)
    with contextlib.ExitStack() as stack:
        client = connect(stack, repo.path, server_env("executor-001"), tmp_path / "mcp.stderr")
        answers = [str(client.call("read_entries").content), str(client.call("start_session").content)]
        answers += [str(client.portal.call(client.session.read_resource, "grid://state").contents)]
    assert "[REDACTED]" in "".join(answers) and secret not in "".join(answers)


def test_a_topic_that_holds_a_secret_is_refused(board: Any) -> None:
    with pytest.raises(GridError, match="secret"):
        board.write("discovery", "x-sk_live_4eC39HqLyjWDarjtT1zdp7dc", "c", agent="executor-001")


def test_control_characters_are_not_stored(repo: Repo) -> None:
    content = "nul\x00 bell\x07 \x1b[2Jclear \x1b]0;title\x07 ok"
    repo.gridgit("write", "-c", "discovery", "-t", "auth", "--content", "-", agent="executor-001", input=content)
    text = (repo.grid / "phases" / "01-foundation" / "scratchpad.md").read_text("utf-8")
    assert "nul bell clear  ok" in text
    assert not any(c in text for c in "\x00\x07\x1b")
