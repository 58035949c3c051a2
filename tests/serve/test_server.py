"""`gridgit serve` as a process: binding, the port-in-use error, other hosts, --open, a clean stop."""

from __future__ import annotations

import json
import signal
import socket
import stat
import threading
from pathlib import Path
from typing import Any

import pytest

from gridgit.serve.server import bind, is_loopback
from tests.conftest import Repo, wait_for
from tests.serve.conftest import Server, start_server


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_stops_it_cleanly_with_streams_and_idle_connections_open(
    repo: Repo, server_processes: list[Server], signum: int
) -> None:
    headless = {"DISPLAY": None, "WAYLAND_DISPLAY": None, "BROWSER": None}
    server = start_server(repo.path, "--open", env=headless)  # nothing to open: a note, not a text browser
    server_processes.append(server)
    stream = server.stream()
    idle = socket.create_connection(("127.0.0.1", server.port))  # connected, never sends its request
    try:
        code, err = server.stop(signum, timeout=5)
    finally:
        stream.close()
        idle.close()
    assert code == 0 and "Traceback" not in err, err
    assert err == f"gridgit serve: --open: no graphical display here; open {server.url} in a browser\n"


def test_a_port_in_use_is_a_one_line_error(repo: Repo) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        proc = repo.gridgit("serve", "--port", str(port), check=False)
        assert proc.returncode == 1 and proc.stdout == ""
        assert (
            proc.stderr
            == f"gridgit: error: port {port} on 127.0.0.1 is already in use: stop what uses it or pick another with --port\n"
        )
        answer = json.loads(repo.gridgit("serve", "--port", str(port), "--json", check=False).stdout)
        assert answer["ok"] is False and answer["error"]["code"] == "error" and str(port) in answer["error"]["message"]


def test_help_names_the_defaults(repo: Repo) -> None:
    out = " ".join(repo.gridgit("serve", "--help").stdout.split())
    assert "default: 127.0.0.1" in out and "default: 8765" in out and "exit code 0" in out


def test_a_repository_without_a_blackboard(bare_repo: Repo) -> None:
    proc = bare_repo.gridgit("serve", "--port", "0", check=False)
    assert proc.returncode == 3 and "gridgit init" in proc.stderr


def test_another_host_is_served_with_a_warning_and_open_starts_a_browser(
    repo: Repo, tmp_path: Path, server_processes: list[Server]
) -> None:
    opened = tmp_path / "opened.txt"
    browser = tmp_path / "browser.sh"
    browser.write_text(f'#!/bin/sh\necho "$1" > {opened}\n', encoding="utf-8")
    browser.chmod(browser.stat().st_mode | stat.S_IXUSR)
    server = start_server(repo.path, "--host", "0.0.0.0", "--open", env={"BROWSER": str(browser)})
    server_processes.append(server)
    assert server.info["host"] == "0.0.0.0" and server.url == f"http://127.0.0.1:{server.port}/?token={server.token}"
    assert len(server.token) >= 40  # drawn for the run: a page elsewhere on the network cannot act
    # No Host check on an address the user chose to expose: the names it is reached by are theirs.
    assert server.request("/api/status", headers={"Host": "grid.example:1"})[0] == 200
    wait_for(lambda: opened.exists() and opened.read_text().strip())
    assert opened.read_text().strip() == server.url
    code, err = server.stop()
    assert code == 0
    assert "gridgit: warning: serve is listening on 0.0.0.0" in err and "sensitive text" in err
    assert server.token not in err  # the URL, token and all, goes to stdout only


def test_loopback_addresses() -> None:
    for host in ("127.0.0.1", "127.1.2.3", "localhost", "::1", "[::1]", "LOCALHOST"):
        assert is_loopback(host), host
    for host in ("0.0.0.0", "::", "192.168.1.4", "example.com", "localhost.example.com"):
        assert not is_loopback(host), host


def test_streams_are_limited_and_a_closed_page_frees_its_slot_and_no_thread_outlives_stop(board: Any) -> None:
    threads = set(threading.enumerate())
    served = bind(board.layout, "127.0.0.1", 0)
    served.feed.max_clients = 1
    served.start()
    try:
        client = Server(None, served.url, {"port": served.server_port})
        first = client.stream()
        status, _, body = client.request("/api/stream")
        assert status == 503 and json.loads(body)["error"]["code"] == "busy"
        first.close()  # the page went away: its slot is free within about a second
        wait_for(lambda: client.request("/api/stream", method="HEAD")[0] == 200)
        client.stream()  # left open, and an idle connection: stop ends both
        idle = socket.create_connection(("127.0.0.1", served.server_port))
    finally:
        served.stop()
    idle.close()
    assert not set(threading.enumerate()) - threads  # request threads, the feed and the accept loop all ended
