"""Finding 6 of issue 39: every way into the shared history is redacted, and a redaction never fuses records.

On the landed main, `gridgit snapshot -m "... ghp_..."` put the token into a grid commit's message
(and origin's); `budget add --model/--session` wrote secrets into budget.json, and the snapshot's
redaction of budget.json made 23 buckets 5; a block whose name held a private key's header was left
out of every snapshot, so its plan was never shared.
"""

from __future__ import annotations

import json
from pathlib import Path

from gridgit import Blackboard
from tests.conftest import git
from tests.history.test_sync import origin_with_clones

TOKEN = "ghp_" + "Z" * 36
AWS = "AKIAIOSFODNN7EXAMPLE"
PEM = "-----BEGIN RSA PRIVATE KEY-----"


def history_text(tmp_path: Path) -> str:
    """Everything origin's grid ref holds: every commit's message and every version of every file."""
    bare = tmp_path / "origin.git"
    return git(tmp_path, "--git-dir", str(bare), "log", "-p", "--format=%B", "grid")


def test_no_secret_reaches_the_history_by_a_message_a_budget_key_or_a_plan(tmp_path: Path) -> None:
    a, b = origin_with_clones(tmp_path, ["a", "b"])
    a.gridgit("write", "-c", "gotcha", "-t", "deploy", "--content", "a new entry to snapshot", agent="executor-001")
    a.gridgit("snapshot", "-m", f"deploy with {TOKEN}\n\nGrid-Clone: forged")
    commit = a.git("log", "-1", "--format=%B", "grid")
    assert TOKEN not in commit and "[REDACTED]" in commit and "Grid-Clone: forged" not in commit

    # Two sessions that differ only in their secret stay two buckets, on disk and in the history.
    for secret in (TOKEN, "ghp_" + "Y" * 36):
        a.gridgit("budget", "add", "--tokens-in", "10", "--tokens-out", "1", "--cost", "0.01",
                  "--session", f"s-{secret}", "--model", f"m-{AWS}", agent="executor-001")  # fmt: skip
    Blackboard(a.path).add_usage(5, 1, cost=0.01, model=f"claude-{AWS}", agent="executor-002")  # MCP's report_usage
    disk = (a.grid / "budget.json").read_text(encoding="utf-8")
    assert TOKEN not in disk and AWS not in disk and len(json.loads(disk)["usage"]) == 3
    # Secrets typed by hand into budget.json's keys: 23 buckets stay 23 in the snapshot, $0.23 stays $0.23.
    data = json.loads(disk)
    bucket = next(iter(data["usage"].values()))
    data["usage"] = {f"executor-001|password=hunter{n}|-|-": {**bucket, "cost_usd": 0.01} for n in range(23)}
    (a.grid / "budget.json").write_text(json.dumps(data, indent=2), encoding="utf-8")

    a.gridgit("block", "plan", "01-01", "--name", f"rotate {PEM} key", "--content", "the plan itself", agent="mc")
    a.gridgit("sync")
    shared = json.loads(a.git("show", "grid:budget.json"))
    assert len(shared["usage"]) == 23 and round(sum(b["cost_usd"] for b in shared["usage"].values()), 2) == 0.23
    assert "the plan itself" in a.git("show", "grid:phases/01-foundation/01-PLAN.md")  # shared, redacted
    b.gridgit("sync")
    assert "the plan itself" in (b.grid / "phases/01-foundation/01-PLAN.md").read_text(encoding="utf-8")
    history = history_text(tmp_path)
    assert [s for s in (TOKEN, AWS, "hunter1", "Y" * 36) if s in history] == []  # 0 secrets in history
