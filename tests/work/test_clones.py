"""Blocks and usage across real clones of a bare origin: a take is pushed at once, a block two clones took
goes to the first take and both agents hear of it, usage from both clones adds up."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

from gridgit.store import clock
from tests.conftest import Repo, git
from tests.history.test_sync import origin_with_clones


def plan_file(repo: Repo) -> str:
    return (repo.grid / "phases" / "01-foundation" / "01-PLAN.md").read_text(encoding="utf-8")


def said(repo: Repo, agent: str) -> list[str]:
    return [i["summary"] for i in repo.gridgit_json("inbox", agent=agent) if i["type"] == "block"]


def test_two_clones_take_one_block_and_both_hear_of_it(tmp_path: Path) -> None:
    a, b = origin_with_clones(tmp_path, ["a", "b"])
    a.gridgit("block", "plan", "01-01", "--name", "Checkout", agent="mc")
    a.gridgit("sync")
    b.gridgit("sync")
    # b takes first (a minute earlier) and pushes at once; a, not synced since, takes the same block.
    earlier = {"GRIDGIT_NOW": clock.format_iso(clock.now() - timedelta(minutes=1))}
    first = json.loads(b.gridgit("take", "--json", agent="executor-011", env=earlier).stdout)["data"]
    assert first["pushed"] is True and first["lost_to"] is None
    origin = git(tmp_path, "--git-dir", str(tmp_path / "origin.git"), "show", "grid:phases/01-foundation/01-PLAN.md")
    assert "owner: executor-011" in origin
    second = a.gridgit_json("take", agent="executor-022")
    assert (second["pushed"], second["lost_to"]) == (True, "executor-011")  # its push's sync settled it at once
    assert "owner: executor-011" in plan_file(a) and "agent: executor-022" in plan_file(a)
    assert said(a, "executor-022") == [
        "your take of block 01-01 lost to executor-011, who took it first "
        f"({earlier['GRIDGIT_NOW']}) in another clone: it is theirs; `gridgit take` another"
    ]
    b.gridgit("sync")  # the winner's clone hears of it on its next sync
    assert plan_file(b) == plan_file(a)
    assert said(b, "executor-011") == ["executor-022 also took your block 01-01 in another clone; it stays yours"]
    assert len(a.events("block_take_lost")) == len(b.events("block_take_lost")) == 1
    a.gridgit("sync")  # nothing new: nobody is told twice
    assert len(a.events("block_take_lost")) == 1
    # blocks.push_on_take false: the take stays in this clone until the next sync.
    config = json.loads((a.grid / "config.json").read_text())
    (a.grid / "config.json").write_text(json.dumps({**config, "blocks": {"push_on_take": False}}))
    a.gridgit("block", "plan", "01-02", agent="mc")
    local = a.gridgit_json("take", "01-02", agent="executor-033")
    assert (
        local["pushed"] is False and "owner: executor-033" in (a.grid / "phases/01-foundation/02-PLAN.md").read_text()
    )
    shown = git(tmp_path, "--git-dir", str(tmp_path / "origin.git"), "ls-tree", "-r", "--name-only", "grid")
    assert "phases/01-foundation/02-PLAN.md" not in shown


def test_usage_from_two_clones_adds_up(tmp_path: Path) -> None:
    a, b = origin_with_clones(tmp_path, ["a", "b"])
    a.gridgit("budget", "add", "--tokens-in", "100", "--tokens-out", "10", "--cost", "1.5", agent="executor-001")
    b.gridgit("budget", "add", "--tokens-in", "200", "--tokens-out", "20", "--cost", "2.5", agent="executor-002")
    b.gridgit("budget", "add", "--tokens-in", "1", "--tokens-out", "1", "--cost", "0.5", agent="executor-001")
    a.gridgit("sync")
    b.gridgit("sync")
    a.gridgit("sync")
    for repo in (a, b):
        data = repo.gridgit_json("budget")
        assert data["total"]["cost_usd"] == 4.5 and data["total"]["tokens_in"] == 301
        assert data["by_agent"]["executor-001"]["messages"] == 2
        assert repo.gridgit_json("state", "show")["budget"]["total_cost_usd"] == 4.5  # STATE's summary follows
    assert (a.grid / "budget.json").read_bytes() == (b.grid / "budget.json").read_bytes()
