"""Blocks and usage across real clones of a bare origin: a take stands once the remote has it first, a
provisional one loses to a take the remote holds and both agents hear of it, usage from both clones adds up."""

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


def test_a_take_across_clones_is_a_compare_and_swap_on_the_remote(tmp_path: Path) -> None:
    a, b = origin_with_clones(tmp_path, ["a", "b"])
    a.gridgit("block", "plan", "01-01", "--name", "Checkout", agent="mc")
    a.gridgit("block", "plan", "01-02", "--name", "Cart", agent="mc")
    a.gridgit("sync")
    b.gridgit("sync")
    # b takes 01-01 and it is confirmed on the remote; a, not synced since, asks for the same block a
    # minute "earlier": its take fetches first, so it hears the block is b's and takes nothing.
    first = json.loads(b.gridgit("take", "01-01", "--json", agent="executor-011").stdout)["data"]
    assert (first["pushed"], first["provisional"]) == (True, False)
    origin = git(tmp_path, "--git-dir", str(tmp_path / "origin.git"), "show", "grid:phases/01-foundation/01-PLAN.md")
    assert "owner: executor-011" in origin
    earlier = {"GRIDGIT_NOW": clock.format_iso(clock.now() - timedelta(minutes=1))}
    refused = a.gridgit("take", "01-01", agent="executor-022", env=earlier, check=False)
    assert refused.returncode == 8 and "held by executor-011" in refused.stderr
    assert "owner: executor-011" in plan_file(a) and "executor-022" not in plan_file(a)

    # Offline, a's take of 01-02 is provisional (exit 9); b's, confirmed meanwhile, wins at the next
    # sync though a's clock says a took it first, and both agents hear of it once.
    url = a.git("remote", "get-url", "origin").strip()
    a.git("remote", "set-url", "origin", str(tmp_path / "gone.git"))
    offline = a.gridgit("take", "01-02", "--json", agent="executor-022", env=earlier, check=False)
    data = json.loads(offline.stdout)["data"]
    assert offline.returncode == 9 and (data["pushed"], data["provisional"]) == (False, True) and data["reason"]
    assert b.gridgit_json("take", "01-02", agent="executor-033")["pushed"] is True
    a.git("remote", "set-url", "origin", url)
    a.gridgit("sync")
    cart = (a.grid / "phases/01-foundation/02-PLAN.md").read_text(encoding="utf-8")
    assert "owner: executor-033" in cart and "agent: executor-022" in cart and "lost_to: executor-033" in cart
    assert said(a, "executor-022") == [
        "your take of block 01-02 lost to executor-033, who took it first "
        f"({json.loads(b.gridgit('block', 'show', '01-02', '--json').stdout)['data']['taken_at']}) in another "
        "clone: it is theirs; `gridgit take` another"
    ]
    lost = a.gridgit("block", "complete", "01-02", "--summary", "done", agent="executor-022", check=False)
    assert lost.returncode == 4 and "lost to executor-033" in lost.stderr  # completing a lost block is refused
    b.gridgit("sync")  # the winner's clone hears of it on its next sync
    assert (b.grid / "phases/01-foundation/02-PLAN.md").read_bytes() == (
        a.grid / "phases/01-foundation/02-PLAN.md"
    ).read_bytes()
    assert said(b, "executor-033") == ["executor-022 also took your block 01-02 in another clone; it stays yours"]
    assert len(a.events("block_take_lost")) == len(b.events("block_take_lost")) == 1
    a.gridgit("sync")  # nothing new: nobody is told twice
    assert len(a.events("block_take_lost")) == 1
    # blocks.push_on_take false: the take stays in this clone until the next sync: provisional.
    config = json.loads((a.grid / "config.json").read_text())
    (a.grid / "config.json").write_text(json.dumps({**config, "blocks": {"push_on_take": False}}))
    a.gridgit("block", "plan", "01-03", agent="mc")
    local = a.gridgit("take", "01-03", "--json", agent="executor-044", check=False)
    assert local.returncode == 9 and json.loads(local.stdout)["data"]["provisional"] is True
    assert "owner: executor-044" in (a.grid / "phases/01-foundation/03-PLAN.md").read_text()
    shown = git(tmp_path, "--git-dir", str(tmp_path / "origin.git"), "ls-tree", "-r", "--name-only", "grid")
    assert "phases/01-foundation/03-PLAN.md" not in shown


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
