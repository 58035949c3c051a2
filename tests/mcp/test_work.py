"""The work tools of `gridgit mcp` through the SDK's stdio client: ready, take, complete_block, report_usage."""

from __future__ import annotations

from gridgit.store.layout import Layout
from gridgit.work import blocks
from tests.conftest import Repo
from tests.mcp.conftest import Client

ME, OTHER = "executor-071", "executor-072"  # agents of their own: the server's executor-001 is other tests'


def test_the_queue_and_the_budget_through_mcp(served: tuple[Repo, Client]) -> None:
    repo, client = served
    repo.gridgit("block", "plan", "01-07", "--name", "MCP block", "--content", "## Goal\nOver MCP", "--label", "mcp",
                 "--priority", "P1", agent="mc")  # fmt: skip
    assert "01-07 wave 1 P1: MCP block" in client.text("ready").splitlines()
    assert client.text("ready", labels=["mcp"]) == "01-07 wave 1 P1: MCP block"
    assert client.text("ready", labels=["elsewhere"]) == "nothing ready"
    none = client.error("take", labels=["elsewhere"], agent=ME)
    assert none["code"] == "nothing_ready" and "without the labels asked for" in none["message"]
    taken = client.data("take", labels=["mcp"], agent=ME)
    assert (taken["block"], taken["status"], taken["plan"], taken["already"]) == ("01-07", "taken", "## Goal\nOver MCP",
                                                                                  False)  # fmt: skip
    assert client.data("take", agent=ME)["already"] is True
    held = client.error("take", block="01-07", agent=OTHER)
    assert (held["code"], held["exit_code"]) == ("nothing_ready", 8) and "held by executor-071" in held["message"]
    assert client.error("take", block="1-7", agent=OTHER)["code"] == "bad_input"
    assert client.error("take", block="01-99", agent=OTHER)["code"] == "not_found"
    done = client.data("complete_block", block="01-07", summary="Done over MCP.", agent=ME)
    assert done == {"block": "01-07", "status": "complete", "commits": []}
    block = blocks.get(Layout.find(repo.path), "01-07")
    assert (block.status, block.owner) == ("complete", ME)
    assert client.error("complete_block", block="01-07", summary="again", agent=ME)["code"] == "bad_input"
    listed = client.read("grid://blocks")
    assert "01-07  complete" in listed and "executor-071" in listed and "MCP block" in listed

    used = client.data("report_usage", tokens_in=2000, tokens_out=100, model="claude-haiku-4-5", agent=ME)
    assert used["cost_usd"] == 0.0025 and used["limit_reached"] is False
    negative = client.error("report_usage", tokens_in=-1, tokens_out=0, agent=ME)  # the schema's minimum: usage
    assert (negative["code"], negative["message"]) == (
        "usage",
        "report_usage: tokens_in: Input should be greater than or equal to 0",
    )
    assert repo.gridgit_json("budget")["by_agent"][ME]["tokens_in"] == 2000


def test_master_control_approves_through_mcp(served: tuple[Repo, Client]) -> None:
    repo, client = served
    repo.gridgit("state", "update", "--set", "mode=hands_on", agent="mc")
    try:
        repo.gridgit("block", "plan", "01-08", "--name", "Proposed over MCP", agent="planner-001")
        refused = client.error("approve", id="01-08", agent=ME)
        assert (refused["code"], refused["exit_code"]) == ("permission_denied", 4)
        assert client.data("approve", id="01-08", agent="mc-ana") == {
            "block": "01-08", "status": "planned", "approved_by": "mc-ana",
        }  # fmt: skip
        assert client.error("approve", id="01-08", agent="mc-ana")["code"] == "bad_input"  # not proposed any more
        assert client.error("approve", id="55-none", agent="mc-ana")["code"] == "not_found"
    finally:
        repo.gridgit("state", "update", "--set", "mode=autopilot", agent="mc")
