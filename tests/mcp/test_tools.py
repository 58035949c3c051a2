"""Each tool and resource of `gridgit mcp` through the SDK's stdio client, checked on disk with the library's parsers.

One server for all (`served`, as executor-001); tests use topics and paths of their own.
"""

from __future__ import annotations

import json
from typing import Any

from gridgit.model import state as state_mod
from gridgit.scratchpad.document import Scratchpad
from gridgit.store.layout import Layout
from tests.conftest import Repo
from tests.mcp.conftest import AGENT, Client

PHASE = "01-foundation"
TOOLS = {
    "start_session", "write_entry", "read_entries", "heartbeat", "touch_file",
    "claim_paths", "release_paths", "read_inbox", "send", "ack", "resolve", "confirm", "resume", "search",
    "ready", "take", "complete_block", "report_usage", "approve",
}  # fmt: skip


def scratchpad(repo: Repo, phase: str = PHASE) -> Scratchpad:
    path = repo.grid / "phases" / phase / "scratchpad.md"
    return Scratchpad.parse(path.read_text(encoding="utf-8"), str(path))


def entry(repo: Repo, number: int) -> Any:
    (found,) = [e for e in scratchpad(repo).entries if e.id == number]
    return found


def listing(client: Client) -> list[dict[str, Any]]:
    """tools/list's tools as they travel (JSON, by alias, nothing unset)."""
    return [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in client.tools()]


def test_lists_its_tools_and_resources_with_lean_schemas(served: tuple[Repo, Client]) -> None:
    _, client = served
    tools = {t["name"]: t for t in listing(client)}
    assert set(tools) == TOOLS
    schemas = json.dumps([t["inputSchema"] for t in tools.values()] + [t["outputSchema"] for t in tools.values()])
    # No pydantic titles, no `anyOf [X, null]`: the list is context every agent pays for.
    assert '"title": "' not in schemas and '{"type": "null"}' not in schemas
    # 14 KiB for every tool, those other issues add included (docs/mcp.md, "Adding a tool").
    assert len(json.dumps(list(tools.values()), separators=(",", ":"))) <= 14 * 1024
    assert tools["write_entry"]["inputSchema"]["required"] == ["category", "topic", "content"]
    assert tools["write_entry"]["inputSchema"]["properties"]["tags"]["items"] == {"type": "string"}
    assert {str(r.uri) for r in client.resources()} == {
        "grid://state", "grid://learnings", "grid://checkpoint", "grid://blocks",
    }  # fmt: skip


def test_the_tool_list_is_the_2025_11_25_specs_with_enums_bounds_and_output_schemas(
    served: tuple[Repo, Client],
) -> None:
    """issue 38.4: categories and relevance were listed in prose only, `progress` had no bounds, `content` no
    description, and there were no outputSchema, annotations or titles.

    Checked with the SDK's wire models of protocol 2025-11-25 (generated from the spec's schema.json; nothing they
    do not know may be dropped) and each schema against JSON Schema 2020-12, the spec's dialect for them.
    """
    from jsonschema import Draft202012Validator
    from mcp_types._v2025_11_25 import Tool

    from gridgit.scratchpad.entry import CATEGORIES, RELEVANCES

    _, client = served
    for tool in listing(client):
        assert Tool.model_validate(tool).model_dump(mode="json", by_alias=True, exclude_none=True) == tool
        for key in ("inputSchema", "outputSchema"):
            Draft202012Validator.check_schema(tool[key])
            assert tool[key]["type"] == "object"
        assert tool["title"] and tool["annotations"], tool["name"]
        undescribed = [name for name, p in tool["inputSchema"]["properties"].items() if not p.get("description")]
        assert undescribed == [], tool["name"]
    tools = {t["name"]: t for t in listing(client)}
    props = {name: t["inputSchema"]["properties"] for name, t in tools.items()}
    assert props["write_entry"]["category"]["enum"] == [c for c in CATEGORIES if c != "heartbeat"]
    assert props["read_entries"]["category"]["enum"] == list(CATEGORIES) == props["search"]["category"]["enum"]
    assert props["write_entry"]["relevance"]["enum"] == list(RELEVANCES) == props["read_entries"]["relevance"]["enum"]
    assert props["touch_file"]["operation"]["enum"] == ["created", "modified", "deleted", "moved"]
    assert (props["heartbeat"]["progress"]["minimum"], props["heartbeat"]["progress"]["maximum"]) == (0, 100)
    assert (
        props["report_usage"]["tokens_in"]["minimum"] == 0
        and props["claim_paths"]["ttl_minutes"]["exclusiveMinimum"] == 0
    )
    assert tools["search"]["annotations"] == {"readOnlyHint": True}
    assert tools["write_entry"]["annotations"] == {"destructiveHint": False}
    assert tools["ack"]["annotations"] == {"destructiveHint": False, "idempotentHint": True}


def test_every_answer_is_structured_content_its_output_schema_accepts_and_text(served: tuple[Repo, Client]) -> None:
    from jsonschema import validate

    _, client = served
    schemas = {t["name"]: t["outputSchema"] for t in listing(client)}
    calls = {
        "start_session": {}, "write_entry": {"category": "gotcha", "topic": "mcp-out", "content": "Gotcha: out"},
        "read_entries": {"topic": "mcp-out"}, "heartbeat": {"progress": 1, "action": "out"},
        "touch_file": {"path": "src/out.py"}, "claim_paths": {"patterns": ["out/**"]}, "release_paths": {},
        "read_inbox": {"peek": True}, "send": {"to": "executor-009", "content": "out"}, "search": {"query": "out"},
        "ready": {}, "report_usage": {"tokens_in": 1, "tokens_out": 1},
    }  # fmt: skip
    takes_agent = {
        name for name, t in {t["name"]: t for t in listing(client)}.items() if "agent" in t["inputSchema"]["properties"]
    }
    for tool, arguments in calls.items():
        # An agent of its own: the server's executor-001 registers in another test.
        result = client.call(tool, **arguments, **({"agent": "executor-091"} if tool in takes_agent else {}))
        assert not result.is_error and result.structured_content is not None, (tool, result.content)
        validate(result.structured_content, schemas[tool])
        (content,) = result.content
        text = getattr(content, "text", "")
        expected = result.structured_content.get("text") or json.dumps(result.structured_content, separators=(",", ":"))
        assert text == expected or text == json.dumps(
            result.structured_content, ensure_ascii=False, separators=(",", ":")
        )


def test_start_session_registers_the_agent_and_returns_its_context_pack(served: tuple[Repo, Client]) -> None:
    repo, client = served
    text = client.text("start_session", task="Build the auth API", block="02-02")
    assert text.startswith(f"{AGENT}: registered\n\n")
    assert f"-- context pack for {AGENT}:" in text and "MCP Mission" in text
    active = state_mod.read(Layout.find(repo.path))["agents"]["active"]
    (me,) = [a for a in active if a["id"] == AGENT]
    assert (me["task"], me["block"]) == ("Build the auth API", "02-02")
    assert client.text("start_session", task="Build the auth API", block="02-02").startswith(f"{AGENT}: unchanged")
    # issue 38: a block that does not exist was taken: a phase with a queue knows its blocks, a phase must exist.
    assert client.error("start_session", block="09-01")["code"] == "not_found"


def test_write_entry_lands_in_the_scratchpad_as_given(served: tuple[Repo, Client]) -> None:
    repo, client = served
    content = (
        "Decision: JWT\nRationale: stateless\nAffects: api\n---\n### [9] fake | blocker | x\n```\ncode\n```\nünï ✓"
    )
    written = client.data("write_entry", category="decision", topic="mcp-write", content=content, tags=["jwt", "auth"])
    assert set(written) == {"entry", "id", "relevance"}
    found = entry(repo, written["entry"])
    assert (found.uid, found.agent_id, found.category, found.topic) == (written["id"], AGENT, "decision", "mcp-write")
    assert (found.content, found.tags, found.relevance) == (content, ["jwt", "auth"], written["relevance"])
    pad = scratchpad(repo)
    assert pad.meta["index"] == pad.rebuilt_index()
    assert repo.events("entry_written")[-1]["payload"]["entry_uid"] == written["id"]


def test_a_write_answers_the_warning_the_cli_prints(served: tuple[Repo, Client]) -> None:
    repo, client = served
    written = client.data("write_entry", category="decision", topic="mcp-warn", content="use JWT")
    assert written["warnings"] == [
        f"gridgit: warning: decision entry [{written['entry']}] lacks the spec's Decision, Rationale, Affects "
        "(see `gridgit write --template decision`)"
    ]
    assert entry(repo, written["entry"]).content == "use JWT"


def test_a_write_merged_into_another_agents_entry_says_whose(served: tuple[Repo, Client]) -> None:
    repo, client = served
    first = client.data(
        "write_entry", category="gotcha", topic="mcp-merge", content="Gotcha: one", agent="executor-002"
    )
    merged = client.data("write_entry", category="gotcha", topic="mcp-merge", content="Gotcha: two")
    assert merged["entry"] == first["entry"] and merged["merged_into"] == "executor-002"
    found = entry(repo, first["entry"])
    assert "Gotcha: one" in found.content and "Gotcha: two" in found.content and AGENT in found.contributors


def test_secrets_are_redacted_as_by_the_cli(served: tuple[Repo, Client]) -> None:
    repo, client = served
    key = "AKIA" + "IOSFODNN7EXAMPLE"
    written = client.data("write_entry", category="gotcha", topic="mcp-secret", content=f"Gotcha: key {key} leaked")
    assert key not in entry(repo, written["entry"]).content
    assert key not in (repo.grid / "events" / "current.jsonl").read_text(encoding="utf-8")


def test_read_entries_filters_like_gridgit_read(served: tuple[Repo, Client]) -> None:
    repo, client = served
    client.data("write_entry", category="discovery", topic="mcp-read", content="Found: one", relevance="LOW")
    client.data("write_entry", category="discovery", topic="mcp-read", content="Found: two", relevance="HIGH")
    text = client.text("read_entries", topic="mcp-read")
    assert text.index("Found: two") < text.index("Found: one")  # newest first
    assert text == repo.gridgit("read", "--topic", "mcp-read").stdout.rstrip("\n")
    assert "Found: one" not in client.text("read_entries", topic="mcp-read", relevance="HIGH")
    assert client.text("read_entries", topic="mcp-read", limit=1).count("### [") == 1
    assert client.text("read_entries", topic="mcp-nothing") == "(no entries)"


def test_heartbeat_writes_a_heartbeat_entry(served: tuple[Repo, Client]) -> None:
    repo, client = served
    beat = client.data("heartbeat", progress=40, action="wiring the login route", files=["src/auth.py"])
    assert beat["agent"] == AGENT
    found = entry(repo, beat["entry"])
    assert (
        found.category == "heartbeat" and "wiring the login route" in found.content and "src/auth.py" in found.content
    )


def test_heartbeat_files_and_a_write_block_pass_the_path_gate(served: tuple[Repo, Client]) -> None:
    repo, client = served
    before = repo.snapshot()
    for files in (["../../../etc/passwd"], [".git/config"], ["a\u2028b"]):  # issue 39: all were accepted
        assert client.error("heartbeat", progress=1, action="x", files=files)["code"] == "bad_input"
    for block in ("--upload-pack=touch pwned", "01-02\u2028forged"):
        assert (
            client.error("write_entry", category="gotcha", topic="t", content="x", block=block)["code"] == "bad_input"
        )
    assert repo.snapshot() == before


def test_touch_file_answers_the_write_conflict(served: tuple[Repo, Client]) -> None:
    repo, client = served
    # `agent` acts for another agent where the CLI's --agent does.
    assert client.data("touch_file", path="src/mcp_touch.py", agent="executor-002") == {
        "path": "src/mcp_touch.py", "conflict": False,
    }  # fmt: skip
    touched = client.data("touch_file", path="src/mcp_touch.py")
    assert touched == {"path": "src/mcp_touch.py", "conflict": True, "with": ["executor-002"], "claims": []}
    events = [e["payload"] for e in repo.events("file_modified") if e["payload"]["path"] == "src/mcp_touch.py"]
    assert [e["agent"] for e in events] == ["executor-002", AGENT]
    assert "src/mcp_touch.py" in client.read("grid://checkpoint")


def test_claim_and_release_paths(served: tuple[Repo, Client]) -> None:
    repo, client = served
    theirs = client.data("claim_paths", patterns=["src/mcp_claim/**"], exclusive=True, agent="executor-003")
    assert theirs["granted"] == ["src/mcp_claim/**"] and theirs["overlaps"] == []
    mine = client.data("claim_paths", patterns=["src/mcp_claim/a.py"], reason="fix a")
    assert mine["granted"] == ["src/mcp_claim/a.py"]
    assert [o.split(" (")[0] for o in mine["overlaps"]] == ["src/mcp_claim/**"]
    assert "executor-003, exclusive" in mine["overlaps"][0]
    touched = client.data("touch_file", path="src/mcp_claim/a.py")
    assert touched["conflict"] is True and touched["claims"][0].startswith("src/mcp_claim/** (executor-003")
    live = repo.gridgit_json("claims")
    assert {(c["pattern"], c["agent"]) for c in live} >= {
        ("src/mcp_claim/**", "executor-003"),
        ("src/mcp_claim/a.py", AGENT),
    }
    assert client.data("release_paths", patterns=["src/mcp_claim/**"], agent="executor-003") == {
        "released": ["src/mcp_claim/**"]
    }
    assert client.data("release_paths") == {"released": ["src/mcp_claim/a.py"]}
    assert not [c for c in repo.gridgit_json("claims") if c["pattern"].startswith("src/mcp_claim")]


def test_resolve_and_the_authors_inbox(served: tuple[Repo, Client]) -> None:
    repo, client = served
    client.text("read_inbox")  # what came before is not this test's
    blocker = client.data("write_entry", category="blocker", topic="mcp-resolve", content="Blocker: no key")
    resolved = client.data("resolve", entry_id=str(blocker["entry"]), note="key added", agent="executor-002")
    assert resolved == {"resolved": f"{PHASE}#{blocker['entry']}", "category": "blocker", "already": False}
    found = entry(repo, blocker["entry"])
    assert found.resolution is not None and (found.resolution.by, found.resolution.note) == (
        "executor-002",
        "key added",
    )
    assert client.data("resolve", entry_id=blocker["id"])["already"] is True
    inbox = client.text("read_inbox", peek=True)
    assert "mcp-resolve" in inbox and "executor-002" in inbox
    assert client.text("read_inbox") == inbox
    assert client.text("read_inbox") == f"nothing new for {AGENT}"  # each thing once


def test_send_ack_and_the_inbox_until_acked(served: tuple[Repo, Client]) -> None:
    repo, client = served
    sent = client.data("send", to="executor-002", content="Please review src/mcp_msg.py")
    assert (sent["to"], sent["thread"]) == ("executor-002", sent["sent"])
    assert (repo.grid / "messages" / "executor-002" / f"{sent['sent']}.md").is_file()
    refused = client.error("ack", message_id=sent["sent"])  # its sender is no addressee
    assert (refused["code"], refused["exit_code"]) == ("permission_denied", 4)
    assert client.data("ack", message_id=sent["sent"], agent="executor-002") == {
        "acked": sent["sent"],
        "already": False,
    }
    reply = client.data("send", to=AGENT, content="Reviewed: fine", thread=sent["sent"], agent="executor-002")
    assert reply["thread"] == sent["sent"]
    for _ in range(2):  # in the inbox until acknowledged
        assert reply["sent"] in client.text("read_inbox") and "Reviewed: fine" in client.text("read_inbox", peek=True)
    assert client.data("ack", message_id=reply["sent"]) == {"acked": reply["sent"], "already": False}
    assert reply["sent"] not in client.text("read_inbox", peek=True)
    missing = client.error("ack", message_id="01ARZ3NDEKTSV4RRFFQ69G5FAV")
    assert (missing["code"], missing["exit_code"]) == ("not_found", 7)


def test_resources_are_the_files(served: tuple[Repo, Client]) -> None:
    repo, client = served
    assert client.read("grid://state") == (repo.grid / "STATE.md").read_text(encoding="utf-8")
    assert client.read("grid://learnings") == (repo.grid / "LEARNINGS.md").read_text(encoding="utf-8")
    checkpoint = repo.grid / "CHECKPOINT.md"
    expected = (
        checkpoint.read_text(encoding="utf-8") if checkpoint.exists() else "(no CHECKPOINT.md: no open write conflicts)"
    )
    assert client.read("grid://checkpoint") == expected


def test_confirm_another_agents_entry_and_resume(served: tuple[Repo, Client]) -> None:
    _, client = served
    written = client.data("write_entry", category="gotcha", topic="mcp-confirm", content="Gotcha: the pool",
                          relevance="HIGH", agent="executor-009")  # fmt: skip
    confirmed = client.data("confirm", entry_id=written["id"], note="seen it")
    assert confirmed == {"confirmed": f"{PHASE}#{written['entry']}", "validations": 1, "already": False}
    assert client.data("confirm", entry_id=written["id"])["already"] is True
    text = client.text("resume")
    assert text.startswith("Mission: ") and "Next:" in text
