"""The `search` tool of `gridgit mcp` through the SDK's stdio client: what `gridgit search` finds, the same errors."""

from __future__ import annotations

from tests.conftest import Repo
from tests.mcp.conftest import Client


def test_search_finds_what_an_agent_wrote_with_its_files(served: tuple[Repo, Client]) -> None:
    repo, client = served
    client.data(
        "write_entry",
        category="gotcha",
        topic="mcpsearch",
        content="Gotcha: the quokka cache\n\nEvidence:\n- File: src/quokka.py",
    )
    text = client.text("search", query="quokka")
    assert "01-foundation#" in text and "gotcha | mcpsearch" in text and "[quokka]" in text
    assert "files: src/quokka.py" in text and text.endswith("1 hit")
    assert client.text("search", file="src/quokka.py").splitlines()[0] == text.splitlines()[0].split("  (score")[0]
    assert client.text("search", query="quokka", by="executor-999").endswith("0 hits")
    assert repo.gridgit("search", "quokka").stdout.splitlines()[:2] == text.splitlines()[:2]


def test_search_errors_answer_like_the_cli(served: tuple[Repo, Client]) -> None:
    _, client = served
    assert client.error("search", query="x", phase="09-nope") == {
        "code": "not_found", "exit_code": 7, "message": "no phase 09-nope: not in STATE.md and no .grid/phases/09-nope/",
    }  # fmt: skip
    assert client.error("search")["code"] == "bad_input"
    assert client.error("search", query="x" * (10 * 1024 * 1024))["message"].endswith("the limit is 4096 (4 KiB)")
    assert client.error("search", query="x", limit=0)["code"] == "usage"
    assert client.text("search", query='"unterminated\x00 quokka*').splitlines()[-1].endswith(("hit", "hits"))
