"""Acting through the web view over HTTP (a real `gridgit serve --as mc-ana`): the write guard refuses every
request that is not this server's own page with its token, an action is the CLI's library call as Master
Control, bad fields are one-line errors, and a refused or failed action changes nothing."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Repo, git, lock_holder, wait_for
from tests.serve.conftest import HOSTILE, Server, start_server


def unchanged(repo: Repo) -> tuple[dict[str, bytes], int]:
    return repo.snapshot(), len(repo.events())


@pytest.mark.parametrize(
    ("headers", "body", "status", "message"),
    [
        ({"X-Gridgit-Token": None}, None, 403, "this request carries no token, and a write needs the one of this run"),
        ({"X-Gridgit-Token": "x" * 43}, None, 403, "this request's token, not the one of this run"),
        ({"Origin": "http://evil.example", "Sec-Fetch-Site": None}, None, 403, "a request from 'http://evil.example'"),
        ({"Sec-Fetch-Site": "cross-site"}, None, 403, "a cross-site request may not act"),
        ({"Origin": None, "Sec-Fetch-Site": None}, None, 403, "needs a same-origin Origin or Sec-Fetch-Site"),
        ({"Content-Type": "application/x-www-form-urlencoded"}, b"to=%40all&content=hi", 415, "a JSON body"),
        ({"Content-Type": "multipart/form-data; boundary=x"}, b"--x--", 415, "not multipart/form-data"),
        ({"Content-Type": "text/plain"}, b'{"to": "@all", "content": "hi"}', 415, "not text/plain"),
        ({}, b'{"to": "@all", "content": ', 400, "the body is not JSON"),
        ({}, b'["@all", "hi"]', 400, "the body must be a JSON object, not list"),
        (
            {},
            b'{"to": "@all", "content": "hi", "cc": "x"}',
            400,
            "unknown field 'cc' (this action takes: to, content, thread)",
        ),
        ({}, b'{"to": "@all", "content": 5}', 400, "field 'content' must be a string, got int"),
        ({}, b'{"to": "@all"}', 400, "missing field 'content'"),
    ],
)
def test_a_write_that_is_not_the_pages_own_is_refused_with_nothing_changed(
    console: tuple[Repo, Server], headers: dict[str, str | None], body: bytes | None, status: int, message: str
) -> None:
    repo, server = console
    before = unchanged(repo)
    got, answer = server.act("send", {"to": "@all", "content": "hi"}, headers, body)
    assert got == status and answer["ok"] is False and message in answer["error"]["message"], answer
    assert "\n" not in answer["error"]["message"]
    assert unchanged(repo) == before


def test_no_action_by_another_method_or_name(console: tuple[Repo, Server]) -> None:
    repo, server = console
    before = unchanged(repo)
    assert server.act("drop_tables", {})[0] == 404
    status, headers, _ = server.request("/api/act/send", "PUT", {"Content-Type": "application/json"}, b"{}")
    assert status == 405 and headers["Allow"] == "GET, HEAD, POST"
    assert server.request("/api/act/send", "OPTIONS", {"Origin": "http://evil.example"})[0] == 405  # no CORS
    assert server.act("send", {}, {"Host": "evil.example"})[0] == 403  # DNS rebinding: refused before all else
    assert unchanged(repo) == before


def test_an_action_is_the_clis_library_call_as_master_control_and_the_token_stays_out(
    console: tuple[Repo, Server],
) -> None:
    repo, server = console
    status, answer = server.act("send", {"to": "executor-001", "content": f"Ship it {HOSTILE}"})
    assert status == 200 and answer["ok"] is True
    data = answer["data"]
    assert data["action"] == "send" and data["message"].startswith("message ") and data["result"]["from"] == "mc-ana"
    sent = repo.events("message_sent")[-1]["payload"]
    assert (sent["agent"], sent["to"]) == ("mc-ana", "executor-001")
    assert repo.gridgit_json("thread", data["result"]["id"])[0]["content"] == f"Ship it {HOSTILE}"  # text, as sent
    status, answer = server.act("set_mode", {"mode": "guided"})
    assert status == 200 and repo.gridgit_json("status")["mode"] == "guided"
    assert repo.events("state_updated")[-1]["payload"]["agent"] == "mc-ana"
    # The URL's token is the person's: in no .grid/ file and no event (it is not even redacted there: absent).
    token = server.token.encode()
    assert len(token) >= 40 and not any(token in data for data in repo.snapshot().values())
    server.act("set_mode", {"mode": "autopilot"})


def test_bad_values_are_the_clis_one_line_errors(console: tuple[Repo, Server]) -> None:
    repo, server = console
    cases: list[tuple[str, dict[str, Any], int, str, list[str]]] = [
        ("set_mode", {"mode": "yolo"}, 400, "field 'mode' must be one of autopilot, guided, hands_on",
         ["state", "update", "--set", "mode=yolo"]),
        ("plan_block", {"block": "01-09", "name": "bell\x07"}, 400, "control character",
         ["block", "plan", "01-09", "--name", "bell\x07"]),
        ("plan_block", {"block": "01-09", "files": ["src/\x01a.py"]}, 400, "control character",
         ["block", "plan", "01-09", "--files", "src/\x01a.py"]),
        ("plan_block", {"block": "1-9"}, 400, "invalid block id '1-9'", ["block", "plan", "1-9"]),
        ("answer", {"entry": "999", "answer": "REST"}, 404, "999", ["resolve", "999", "--answer", "REST"]),
        ("assign_block", {"block": "01-02", "to": "scout-001"}, 403, "scouts only read",
         ["block", "assign", "01-02", "scout-001"]),
        ("send", {"to": "../etc", "content": "x"}, 400, "invalid", ["send", "--to", "../etc", "--content", "x"]),
    ]  # fmt: skip
    for action, fields, status, message, command in cases:
        before = unchanged(repo)
        got, answer = server.act(action, fields)
        assert got == status and message in answer["error"]["message"], (action, answer)
        assert unchanged(repo) == before
        cli = repo.gridgit(*command, agent="mc-ana", check=False)
        assert cli.stderr == f"gridgit: error: {answer['error']['message']}\n", (action, cli.stderr)  # the same words
        assert unchanged(repo) == before
    # Control characters in text are dropped as the CLI drops them; the HTML stays text.
    status, answer = server.act("send", {"to": "@all", "content": "\x1b[31m<b>red</b>\x07 done"})
    assert status == 200 and answer["data"]["result"]["content"] == "<b>red</b> done"


def test_a_ten_megabyte_answer_is_refused_whole(console: tuple[Repo, Server]) -> None:
    repo, server = console
    before = unchanged(repo)
    status, answer = server.act("answer", {"entry": "5", "answer": "x" * (10 * 1024 * 1024)})
    assert status == 413 and "a write takes at most 1048576" in answer["error"]["message"]
    status, answer = server.act("answer", {"entry": "5", "answer": "x" * (900 * 1024)})  # under the body's limit
    assert status == 400 and "the limit is" in answer["error"]["message"]  # the library's own, as the CLI says it
    assert unchanged(repo) == before


def test_the_person_acting_comes_from_git_and_only_master_control_may(
    repo: Repo, server_processes: list[Server]
) -> None:
    git(repo.path, "config", "user.name", "Ana María López")
    server = start_server(repo.path)
    server_processes.append(server)
    assert server.info["actor"] == "mc-ana-maria-lopez" and server.info["read_only"] is False
    assert server.api("/api/session")["can_act"] is False  # the page without the token only reads
    _, _, body = server.request("/api/session", headers={"X-Gridgit-Token": server.token})
    assert json.loads(body)["data"]["can_act"] is True
    proc = repo.gridgit("serve", "--port", "0", "--as", "executor-001", check=False)
    assert proc.returncode == 1 and "the web view acts as Master Control: an id of type mc" in proc.stderr
    proc = repo.gridgit("serve", "--port", "0", "--read-only", "--as", "mc-ana", check=False)
    assert proc.returncode == 2 and "--read-only acts as nobody" in proc.stderr
    proc = repo.gridgit("serve", "--port", "0", "--token", "short", check=False)
    assert (
        proc.returncode == 1
        and "a chosen token, set with --token, else with GRIDGIT_SERVE_TOKEN, must be 16 to 256 characters"
        in proc.stderr
    )


def test_another_host_needs_a_token(repo: Repo, server_processes: list[Server]) -> None:
    proc = repo.gridgit("serve", "--port", "0", "--host", "0.0.0.0", "--token", "", check=False)
    assert proc.returncode == 1 and proc.stdout == ""
    assert "--host 0.0.0.0 with an empty --token, so anyone who reaches it could act as mc" in proc.stderr
    server = start_server(repo.path, "--host", "0.0.0.0", env={"GRIDGIT_SERVE_TOKEN": "a-token-of-my-own-choosing"})
    server_processes.append(server)
    assert server.url == f"http://127.0.0.1:{server.port}/?token=a-token-of-my-own-choosing"
    window = start_server(repo.path, "--host", "0.0.0.0", "--read-only")  # nothing acts: no token needed
    server_processes.append(window)
    assert window.url == f"http://127.0.0.1:{window.port}/" and window.act("set_mode", {"mode": "guided"})[0] == 405
    local = start_server(repo.path, "--token", "")  # no token at all: loopback only, same origin still needed
    server_processes.append(local)
    assert local.url == f"http://127.0.0.1:{local.port}/" and local.act("set_mode", {"mode": "guided"})[0] == 200
    assert (
        local.act("set_mode", {"mode": "autopilot"}, {"Origin": "http://evil.example", "Sec-Fetch-Site": None})[0]
        == 403
    )


def test_a_server_killed_mid_action_loses_and_doubles_nothing_and_its_token_dies_with_it(
    repo: Repo, server_processes: list[Server]
) -> None:
    repo.gridgit("block", "plan", "01-01", "--name", "Login", agent="mc")
    server = start_server(repo.path, "--as", "mc-ana")
    server_processes.append(server)
    before = unchanged(repo)
    answers: list[Any] = []
    with lock_holder(repo.grid / "blocks"):  # the queue's lock (.grid/.locks/blocks.lock): the action waits in its call
        thread = threading.Thread(
            target=lambda: answers.append(_try(server, "plan_block", {"block": "01-01", "priority": 0}))
        )
        thread.start()
        wait_for(lambda: _waiting_on_lock(server))
        assert server.proc is not None
        server.proc.send_signal(signal.SIGKILL)
        server.proc.wait(10)
        thread.join(30)
    assert answers and answers[0] is None  # the connection died with the server: no answer
    assert unchanged(repo) == before  # nothing half-done
    again = start_server(repo.path, "--as", "mc-ana")
    server_processes.append(again)
    stale = again.act("plan_block", {"block": "01-01", "priority": 0}, {"X-Gridgit-Token": server.token})
    assert stale[0] == 403 and "serve draws a new one each time it starts" in stale[1]["error"]["message"]
    assert unchanged(repo) == before
    assert again.act("plan_block", {"block": "01-01", "priority": 0})[0] == 200
    (planned,) = [e for e in repo.events("block_planned") if e["payload"]["agent"] == "mc-ana"]  # once
    assert planned["payload"]["priority"] == 0


def _try(server: Server, action: str, fields: dict[str, Any]) -> Any:
    try:
        return server.act(action, fields)
    except (ConnectionError, OSError, json.JSONDecodeError):
        return None


def _waiting_on_lock(server: Server) -> bool:
    """The server waits for a lock: /proc/locks lists a blocked flock (`->`) of its process."""
    assert server.proc is not None
    blocked = [line.split() for line in Path("/proc/locks").read_text().splitlines() if " -> " in line]
    return any(str(server.proc.pid) in fields for fields in blocked)


def test_help_names_the_console(repo: Repo) -> None:
    out = " ".join(repo.gridgit("serve", "--help").stdout.split())
    assert "--as ID" in out and "--read-only" in out and "--token TEXT" in out


def test_an_action_on_what_changed_a_moment_before_says_so_and_changes_nothing(console: tuple[Repo, Server]) -> None:
    repo, server = console
    repo.gridgit("block", "plan", "01-07", "--name", "Proposed", agent="mc")
    repo.gridgit("agent", "register", "executor-007", "--task", "x", agent="executor-007")
    question = next(e for e in repo.gridgit_json("read", "--category", "question"))
    # Another process got there first: the CLI as another person.
    repo.gridgit("resolve", question["uid"], "--answer", "RPC", agent="mc")
    repo.gridgit("conflicts", "resolve", "src/shop.py", agent="mc")
    repo.gridgit("release", "--holder", "executor-001", agent="mc")
    repo.gridgit("agent", "done", "executor-007", agent="mc")
    before = unchanged(repo)
    cases = [
        ("answer", {"entry": question["uid"], "answer": "REST"}, 200, "was answered already (by mc): nothing changed"),
        ("resolve_conflicts", {"paths": ["src/shop.py"]}, 404, "no open write conflict on src/shop.py"),
        (
            "release_claims",
            {"holder": "executor-001", "patterns": ["src/api/**"]},
            404,
            "released or expired meanwhile",
        ),
        ("approve_block", {"block": "01-07"}, 400, "block 01-07 is not proposed: it is planned"),
        ("release_block", {"block": "01-07"}, 400, "nobody holds block 01-07"),
        ("finish_agent", {"agent": "executor-007"}, 200, "executor-007: already-done"),
    ]
    for action, fields, status, message in cases:
        got, answer = server.act(action, fields)
        text = answer["data"]["message"] if got == 200 else answer["error"]["message"]
        assert got == status and message in text, (action, answer)
    assert unchanged(repo) == before


@pytest.mark.parametrize(
    ("remote", "web"),
    [
        ("https://github.com/ana/shop.git", ("github", "https://github.com/ana/shop")),
        ("git@github.com:ana/shop.git", ("github", "https://github.com/ana/shop")),
        ("ssh://git@gitlab.example.org:2222/team/sub/shop.git", ("gitlab", "https://gitlab.example.org/team/sub/shop")),
        ("https://ana:glpat-secret@gitlab.com/ana/shop", ("gitlab", "https://gitlab.com/ana/shop")),
        ("https://codeberg.org/ana/shop.git", ("gitea", "https://codeberg.org/ana/shop")),
        ("https://gitea.example.net/ana/shop/", ("gitea", "https://gitea.example.net/ana/shop")),
        ("https://example.com/ana/shop.git", None),  # a host whose links nobody knows: the local view
        ("/srv/git/shop.git", None),
        ('https://github.com/ana/shop"><script>.git', None),
        ("javascript:alert(1)//github.com/x/y", None),
    ],
)
def test_links_go_to_the_repositorys_web_host_when_origin_names_a_known_one(
    remote: str, web: tuple[str, str] | None
) -> None:
    from gridgit.serve.links import web_of

    assert web_of(remote) == web


def test_the_local_view_of_a_commit_and_a_file_is_plain_text_and_takes_no_option(console: tuple[Repo, Server]) -> None:
    repo, server = console
    repo.write("src/app.py", "print('hi')\n")
    repo.git("add", "src/app.py")
    repo.git("commit", "-q", "-m", "app", "--no-verify")
    head = repo.git("rev-parse", "HEAD").strip()
    info = server.api("/api/repo")
    assert (info["kind"], info["commit"], info["head"]) == ("local", "/show?rev={sha}", head)
    status, headers, body = server.request(f"/show?rev={head[:10]}")
    assert status == 200 and headers["Content-Type"] == "text/plain; charset=utf-8" and b"src/app.py" in body
    assert headers["Content-Security-Policy"].startswith("default-src 'none'")
    status, _, body = server.request("/show?path=src/app.py")
    assert (status, body) == (200, b"print('hi')\n")
    for bad in ("rev=--output=/tmp/x", "path=--output", "path=../../etc/passwd", "rev=HEAD", "nothing=1", ""):
        assert server.request(f"/show?{bad}")[0] == 400, bad
    repo.git("remote", "add", "origin", "git@github.com:ana/shop.git")
    assert server.api("/api/repo")["file"] == "https://github.com/ana/shop/blob/{rev}/{path}"
    status, headers, body = server.request("/favicon.svg")
    assert status == 200 and headers["Content-Type"] == "image/svg+xml" and body.startswith(b"<svg")


def test_the_url_is_printed_whole_token_and_all(repo: Repo) -> None:
    """Not through the redaction meant for .grid/ files, which would take `token=…` for a secret to blank."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "gridgit", "serve", "--port", "0", "--as", "mc-ana"],
        cwd=repo.path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=20)
    match = re.fullmatch(
        r"gridgit serve: (http://127\.0\.0\.1:\d+/\?token=([\w-]{43})) \(acting as mc-ana; Ctrl-C to stop\)\n", line
    )
    assert match is not None, line
    assert proc.returncode == 0
