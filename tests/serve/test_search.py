"""The web view's search: `/api/search` over HTTP (a real `gridgit serve`), what `gridgit search --json` says."""

from __future__ import annotations

import json

from tests.conftest import Repo
from tests.serve.conftest import HOSTILE, Server


def test_search_is_what_the_cli_finds(served: tuple[Repo, Server]) -> None:
    repo, server = served
    web = server.api("/api/search?q=signed+cookies")
    assert web["hits"] == repo.gridgit_json("search", "signed", "cookies")["hits"]
    kinds = {hit["kind"]: hit for hit in web["hits"]}
    assert kinds["entry"]["where"] == "01-foundation#2" and kinds["entry"]["files"] == ["src/auth.py"]
    assert "learning" in kinds
    by_file = server.api("/api/search?file=src/auth.py&kind=entry")["hits"]
    assert [h["where"] for h in by_file] == ["01-foundation#2"]
    assert server.api("/api/search?q=stripe&category=blocker&limit=1")["hits"][0]["category"] == "blocker"


def test_search_refusals_are_one_line_errors(served: tuple[Repo, Server]) -> None:
    _, server = served
    for path, (status, code, message) in {
        "/api/search": (400, "bad_input", "nothing to search for"),
        "/api/search?q=x&phase=09-nope": (404, "not_found", "no phase 09-nope"),
        "/api/search?q=x&kind=nope": (400, "bad_input", "unknown kind 'nope'"),
        "/api/search?q=x&limit=5000": (400, "bad_input", "'limit'"),
        "/api/search?q=" + "x" * 5000: (400, "bad_input", "the limit is 4096"),
        "/api/search?q=%22unterminated%00%1b": (200, "", ""),
    }.items():
        got, _, body = server.request(path)
        answer = json.loads(body)
        assert got == status, (path, answer)
        if status != 200:
            assert answer["error"]["code"] == code and message in answer["error"]["message"], answer


def test_hostile_text_found_is_still_only_text(served: tuple[Repo, Server]) -> None:
    _, server = served
    status, _, body = server.request("/api/search?q=pwned")
    assert status == 200 and b"<" not in body and b">" not in body
    assert any(HOSTILE.split("'")[0].split('"')[0] in hit["snippet"] or "pwned" in hit["snippet"]
               for hit in json.loads(body)["data"]["hits"])  # fmt: skip
