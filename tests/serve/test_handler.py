"""The web view over HTTP (a real `gridgit serve` process): the page, every API route, escaping, refusals, read-only."""

from __future__ import annotations

import json
import re
from pathlib import Path

from gridgit.serve.routes import ROUTES
from tests.conftest import Repo
from tests.serve.conftest import HOSTILE, Server

# /api/search needs something to search for: a word.
ALL_ROUTES = [*(r for r in ROUTES if r != "/api/search"), "/api/search?q=cookies", "/api/entries?category=blocker",
              "/api/events?limit=5&type=entry_written"]  # fmt: skip


def test_the_page_is_self_contained_under_a_strict_policy(served: tuple[Repo, Server]) -> None:
    _, server = served
    status, headers, body = server.request("/")
    assert status == 200 and headers["Content-Type"] == "text/html; charset=utf-8"
    policy = headers["Content-Security-Policy"]
    assert re.search(r"script-src 'sha256-[A-Za-z0-9+/=]+';", policy) and "unsafe" not in policy
    assert "default-src 'none'" in policy and "connect-src 'self'" in policy
    assert (headers["X-Content-Type-Options"], headers["Cache-Control"]) == ("nosniff", "no-store")
    page = body.decode("utf-8")
    assert "<style>" in page and "<script>" in page and "gridgit:script" not in page  # assets inlined
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", page)  # nothing from the network
    assert "innerHTML" not in page and "insertAdjacentHTML" not in page and "document.write" not in page
    assert "Shop" not in page  # no Blackboard data in the page itself: the API delivers it as data


def test_every_route_answers_in_the_json_envelope(served: tuple[Repo, Server]) -> None:
    _, server = served
    for route in ALL_ROUTES:
        server.api(route)
    status, headers, body = server.request("/api/status", method="HEAD")
    assert status == 200 and body == b"" and int(headers["Content-Length"]) > 0


def test_status_is_what_the_cli_prints(served: tuple[Repo, Server]) -> None:
    repo, server = served
    web, cli = server.api("/api/status"), repo.gridgit_json("status")
    for data in (web, cli):  # a heartbeat's age may tick over between the two calls
        for agent in data["agents"]:
            agent.pop("minutes_since")
    assert web == cli
    assert [e["id"] for e in server.api("/api/events?limit=8")] == [e["id"] for e in cli["events"][::-1]]


def test_agents_registered_and_seen_with_their_heartbeat(served: tuple[Repo, Server]) -> None:
    _, server = served
    data = server.api("/api/agents")
    assert (data["warning_minutes"], data["stale_minutes"]) == (5, 10)
    agents = {a["id"]: a for a in data["agents"]}
    assert [a["id"] for a in data["agents"]][:3] == ["executor-001", "recognizer-001", "scout-001"]  # STATE order
    executor = agents["executor-001"]
    assert executor["registered"] and executor["task"] == "Auth endpoints"
    assert (executor["action"], executor["progress"], executor["thread"]) == ("wiring the login route", 40, "thread 2")
    assert executor["files"] == ["src/auth.py"] and executor["warning_level"] == "ok" and executor["stale"] is False
    recognizer = agents["recognizer-001"]  # no heartbeat, but a write, a touch and a take: signs of its work
    assert recognizer["warning_level"] == "ok" and recognizer["last_heartbeat"] is not None
    assert agents["scout-001"]["warning_level"] == "n/a"  # scouts may not write heartbeats
    seen = agents["executor-002"]  # wrote a question, never registered
    assert seen["registered"] is False and seen["last_event"] == "entry_written" and seen["stale"] is False
    assert "system" not in agents and "unknown" not in agents
    assert [(a["id"], a["summary"]) for a in data["completed"]] == [("executor-003", "schema migrated")]


def test_entries_open_items_first_with_commits_and_facets(served: tuple[Repo, Server]) -> None:
    repo, server = served
    data = server.api("/api/entries")
    assert data["phase_id"] == "01-foundation" and data["archived"] is False
    cli_ids = {e["id"] for e in repo.gridgit_json("read")}
    assert {e["id"] for e in data["entries"]} == cli_ids and data["total"] == len(cli_ids)
    opened = [e["category"] for e in data["entries"] if e["open"]]
    assert opened == ["warning", "question", "blocker"]  # newest first among the open ones (the conflict's warning)
    assert [e["open"] for e in data["entries"]] == sorted((e["open"] for e in data["entries"]), reverse=True)
    rest = [e["id"] for e in data["entries"] if not e["open"]]
    assert rest == sorted(rest, reverse=True)
    decision = next(e for e in data["entries"] if e["category"] == "decision")
    assert decision["commits"] == ["1a2b3c4d5e6f"] and decision["relevance"] == "HIGH"
    # the write conflict's warning entry is gridgit's own (agent `system`, topic `conflict`); other
    # tests of the session may have added topics of their own
    facets = data["facets"]
    assert {"api", "auth", "conflict", "db", "progress", "stripe"} <= set(facets["topics"])
    assert {"executor-001", "executor-002", "recognizer-001", "system"} <= set(facets["agents"])
    assert facets["topics"] == sorted(facets["topics"]) and facets["agents"] == sorted(facets["agents"])
    assert facets["categories"][0] == "discovery" and facets["relevances"] == ["HIGH", "MEDIUM", "LOW"]


def test_entry_filters_are_the_read_command_filters(served: tuple[Repo, Server]) -> None:
    _, server = served
    assert [e["category"] for e in server.api("/api/entries?category=blocker")["entries"]] == ["blocker"]
    high = server.api("/api/entries?relevance=HIGH")
    assert {e["relevance"] for e in high["entries"]} == {"HIGH"} and high["total"] > len(high["entries"])
    assert {e["agent_id"] for e in server.api("/api/entries?agent=recognizer-001")["entries"]} == {"recognizer-001"}
    assert [e["topic"] for e in server.api("/api/entries?topic=db&limit=1")["entries"]] == ["db"]
    assert server.api("/api/entries?phase=02-api")["entries"] == []
    assert server.api("/api/entries?archived=1")["entries"] == []


def test_conflicts_claims_and_learnings(served: tuple[Repo, Server]) -> None:
    _, server = served
    conflicts = server.api("/api/conflicts")
    assert [(c["path"], c["agents"]) for c in conflicts["open"]] == [
        ("src/shop.py", ["executor-001", "recognizer-001"])
    ]
    assert [(c["pattern"], c["agent"], c["exclusive"]) for c in conflicts["claims"]] == [
        ("src/api/**", "executor-001", True)
    ]
    recent = server.api("/api/status")["conflicts"]
    assert recent[0]["type"] == "write_conflict" and recent[0]["payload"]["path"] == "src/shop.py"
    sections = server.api("/api/learnings")["sections"]
    assert [s["name"] for s in sections] == ["user_preferences", "decisions", "gotchas", "patterns", "discoveries"]
    decisions = next(s for s in sections if s["name"] == "decisions")["learnings"]
    assert len(decisions) == 1 and decisions[0]["agent_id"] == "executor-001"
    assert [len(s["learnings"]) for s in server.api("/api/learnings?section=gotchas")["sections"]] == [0] * 5


def test_messages_newest_first_with_who_acknowledged_them(served: tuple[Repo, Server]) -> None:
    _, server = served
    data = server.api("/api/messages")  # the page's test may send one more meanwhile: newest first
    message = data["messages"][-1]
    assert data["total"] == len(data["messages"]) and (message["from"], message["to"], message["acks"]) == (
        "executor-001", "recognizer-001", {}
    )  # fmt: skip
    assert HOSTILE in message["content"] and message["thread"] == message["id"]
    assert server.api("/api/messages?agent=recognizer-001")["messages"] == [message]  # waiting for it
    assert server.api("/api/messages?agent=memory-001&limit=5") == {"messages": [], "total": 0}


def test_bad_requests_get_one_line_errors_in_the_envelope(served: tuple[Repo, Server]) -> None:
    _, server = served
    cases = {
        "/api/entries?category=nope": (400, "bad_input", "unknown category 'nope'"),
        "/api/entries?bogus=1": (400, "bad_input", "unknown parameter 'bogus'"),
        "/api/entries?phase=../etc": (400, "bad_input", "phase"),
        "/api/entries?limit=0": (400, "bad_input", "'limit'"),
        "/api/events?type=Not-A-Type": (400, "bad_input", "invalid event type"),
        "/api/messages?agent=../x": (400, "bad_input", "invalid agent id"),
        "/api/messages?limit=0": (400, "bad_input", "'limit'"),
        "/api/status?x=1": (400, "bad_input", "this route takes: none"),
        "/api/nothing": (404, "not_found", "/api/nothing"),
        "/api/entries?phase=55-none": (404, "not_found", "no phase 55-none"),
    }
    for path, (status, code, message) in cases.items():
        got, headers, body = server.request(path)
        answer = json.loads(body)
        assert got == status and headers["Content-Type"] == "application/json; charset=utf-8", path
        assert answer["ok"] is False and answer["schema_version"] == 1 and answer["error"]["code"] == code, answer
        assert message in answer["error"]["message"] and "\n" not in answer["error"]["message"]
    status, headers, _ = server.request("/api/status", method="POST")
    assert status == 405 and headers["Allow"] == "GET, HEAD"
    assert server.request("/nothing")[0] == 404


def test_hostile_text_is_never_markup(served: tuple[Repo, Server]) -> None:
    _, server = served
    for route in [*ALL_ROUTES, "/api/events?limit=500"]:
        status, headers, body = server.request(route)
        assert status == 200 and b"<" not in body and b">" not in body, route  # escaped as \u003c, \u003e
        assert headers["X-Content-Type-Options"] == "nosniff"
        assert headers["Content-Security-Policy"].startswith("default-src 'none'")
    entries = server.api("/api/entries?category=decision")["entries"]
    assert HOSTILE in entries[0]["content"] and "<b>bold</b>" in entries[0]["tags"]  # the text itself, intact
    assert server.api("/api/status")["mission"].startswith("Shop <script>")


def test_a_foreign_host_header_is_refused(served: tuple[Repo, Server]) -> None:
    _, server = served
    # A page on another site that rebinds its name to 127.0.0.1 still sends its own name.
    assert server.request("/api/status", headers={"Host": f"evil.example:{server.port}"})[0] == 403
    assert server.request("/", headers={"Host": "evil.example"})[0] == 403
    for host in (f"localhost:{server.port}", f"127.0.0.1:{server.port}", f"[::1]:{server.port}"):
        assert server.request("/api/status", headers={"Host": host})[0] == 200


def test_serving_changes_nothing_in_the_blackboard(served: tuple[Repo, Server]) -> None:
    repo, server = served

    def files() -> list[str]:  # the search's machine-local index aside (.grid/.cache/, a cache of these files)
        return sorted(p.relative_to(repo.grid).as_posix() for p in repo.grid.rglob("*") if ".cache" not in p.parts)

    names = files()
    before = repo.snapshot()
    for route in ["/", *ALL_ROUTES, "/api/entries?archived=1", "/api/entries?phase=02-api", "/api/nothing"]:
        server.request(route)
    stream = server.stream()
    stream.close()
    assert repo.snapshot() == before
    assert files() == names  # not even a lock file


def test_status_has_the_phases_blocks_the_cost_and_debug_sessions(served: tuple[Repo, Server]) -> None:
    _, server = served
    data = server.api("/api/status")
    assert [(b["block_id"], b["status"], b["owner"]) for b in data["blocks"]] == [
        ("01-01", "taken", "recognizer-001"), ("01-02", "planned", None),
    ]  # fmt: skip
    assert data["ready"] == []  # 01-01 is held (its take counts as a sign of life), 01-02 waits for it
    assert data["budget"]["total_usd"] == 0.048 and data["budget"]["limit_usd"] == 0
    (session,) = data["debug"]
    assert session["status"] == "open" and session["title"].startswith("Login loops <script>")
    assert data["work_error"] is None


def test_the_docs_show_the_board_at_1440_and_390_px() -> None:
    """docs/serve.md's screenshots (`python -m tests.serve.screenshots docs/`) are there, PNGs of those widths."""
    docs = Path(__file__).resolve().parents[2] / "docs"
    for width in (1440, 390):
        data = (docs / f"serve-board-{width}.png").read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and int.from_bytes(data[16:20], "big") == width
        assert f"serve-board-{width}.png" in (docs / "serve.md").read_text(encoding="utf-8")
