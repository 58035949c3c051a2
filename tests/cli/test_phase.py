"""`gridgit phase start|complete|list`, `archive`, `promote`, `learnings` through the real CLI."""

from __future__ import annotations

import json

import pytest

from gridgit.scratchpad import store
from gridgit.store.layout import Layout
from tests.conftest import Repo

P1, P2 = "01-foundation", "02-core"


def _seed(repo: Repo) -> None:
    layout = Layout.find(repo.path)
    store.write_entry(layout, P1, "executor-001", "gotcha", "auth", "Gotcha: middleware order", ["auth"], "HIGH")
    store.write_entry(layout, P1, "executor-001", "blocker", "stripe", "Blocker: no key", [], None)
    store.write_entry(layout, P1, "executor-001", "handoff", "auth-next", "Handoff: tokens done", [], None)
    for agent in ("executor-002", "executor-003", "executor-004"):  # the HIGH gotcha is promoted once confirmed
        repo.gridgit("confirm", "1", agent=agent)


def _fails(repo: Repo, *args: str, agent: str | None = None, code: int = 1, match: str = "") -> str:
    """Run a command that must fail: its exit code, one line on stderr, nothing changed."""
    before = repo.snapshot()
    proc = repo.gridgit(*args, agent=agent, check=False)
    assert proc.returncode == code, proc.stderr + proc.stdout
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("gridgit: error: "), proc.stderr
    assert match in lines[0]
    assert repo.snapshot() == before
    return lines[0]


@pytest.mark.parametrize(
    "command",
    [
        ("phase",),
        ("phase", "start"),
        ("phase", "complete"),
        ("phase", "list"),
        ("archive",),
        ("promote",),
        ("learnings",),
    ],
)
def test_help(repo: Repo, command: tuple[str, ...]) -> None:
    proc = repo.gridgit(*command, "--help")
    assert proc.stdout.startswith("Usage: gridgit " + " ".join(command))
    assert proc.stderr == ""


def test_start_list_complete_and_learnings(repo: Repo) -> None:
    _seed(repo)
    rows = repo.gridgit_json("phase", "list")
    assert [(r["id"], r["status"], r["current"]) for r in rows] == [(P1, "in_progress", True), (P2, "pending", False)]

    dry = repo.gridgit_json("promote", "--phase", P1, "--dry-run", agent="memory-001")
    assert dry["dry_run"] is True and len(dry["promoted"]) == 1

    result = repo.gridgit_json("phase", "complete", P1, agent="mc")
    assert result["next_phase_id"] == P2 and result["archived"] == 3 and result["carried"] == 2
    assert result["already_complete"] is False and len(result["promoted"]) == 1
    again = repo.gridgit("phase", "complete", P1, agent="mc")
    assert again.stdout.strip() == "01-foundation: already complete, nothing changed"

    # 02-core is in progress: forced, it is completed into 03-polish (one phase at a time).
    assert repo.gridgit_json("phase", "start", "03-polish", "--name", "Polish", "--force", agent="mc") == {
        "phase_id": "03-polish",
        "started": True,
    }
    assert "already started, nothing changed" in repo.gridgit("phase", "start", "03-polish", agent="mc").stdout
    rows = repo.gridgit_json("phase", "list")
    assert [(r["id"], r["status"], r["current"]) for r in rows] == [
        (P1, "complete", False),
        (P2, "complete", False),
        ("03-polish", "in_progress", True),
    ]
    table = repo.gridgit("phase", "list").stdout
    assert "* 03-polish" in table and "Polish" in table

    learned = repo.gridgit_json("learnings", "--category", "gotchas")
    assert [item["phase_id"] for item in learned] == [P1] and len(learned[0]["origin"]) == 26  # the entry's uid
    assert learned[0]["evidence"] == [] and learned[0]["promoted_by"] == "system"
    text = repo.gridgit("learnings").stdout
    assert text.startswith("## gotchas\n- Auth: middleware order  (01-foundation [1] executor-001)")
    assert repo.gridgit("learnings", "--category", "patterns").stdout.strip() == "no learnings"


def test_complete_human_output_and_next(repo: Repo) -> None:
    _seed(repo)
    proc = repo.gridgit("phase", "complete", P1, "--next", "05-ship:Ship It", "--force", agent="mc-001")
    assert proc.stdout.strip() == (
        "01-foundation: complete; 3 entries archived, 1 promoted, 2 carried forward to 05-ship (now the current phase)"
    )
    state = json.loads(repo.gridgit("state", "show", "--json").stdout)["data"]
    assert state["position"]["phase_id"] == "05-ship" and state["position"]["phase_name"] == "Ship It"


def test_archive_and_promote(repo: Repo) -> None:
    _seed(repo)
    promoted = repo.gridgit_json("promote", "--phase", P1, agent="memory-001")
    assert promoted["candidates"] == 1 and len(promoted["promoted"]) == 1
    assert "1 candidates, promoted 0, 1 already" in repo.gridgit("promote", "--phase", P1, agent="memory-001").stdout
    # --phase defaults to STATE's current phase
    # What is settled: the open blocker and the handoff nobody took stay live.
    assert repo.gridgit_json("archive", agent="memory-001") == {"phase_id": P1, "archived": 1}
    assert repo.gridgit("archive", "--phase", P1, agent="mc").stdout.strip() == "01-foundation: 0 entries archived"


@pytest.mark.parametrize("bad", ["../x", "01-Foo", "/abs/path"])
def test_bad_phase_ids(repo: Repo, bad: str) -> None:
    _fails(repo, "phase", "start", bad, match="invalid phase id", agent="mc")
    _fails(repo, "phase", "complete", bad, match="invalid phase id", agent="mc")
    _fails(repo, "phase", "complete", P1, "--next", bad, match="invalid phase id", agent="mc")
    _fails(repo, "archive", "--phase", bad, match="invalid phase id", agent="mc")
    _fails(repo, "promote", "--phase", bad, agent="memory-001", match="invalid phase id")


def test_unknown_phase_and_category(repo: Repo) -> None:
    _fails(repo, "phase", "complete", "09-nope", code=7, match="no phase 09-nope", agent="mc")
    _fails(repo, "learnings", "--category", "tips", match="unknown learnings category 'tips'")
    _fails(repo, "archive", "--phase", "09-nope", code=7, match="no phase 09-nope", agent="mc")


def test_permissions(repo: Repo) -> None:
    _seed(repo)
    _fails(repo, "phase", "complete", P1, agent="executor-001", code=4, match="only Master Control")
    _fails(repo, "phase", "start", "03-x", agent="planner-001", code=4, match="only Master Control")
    _fails(repo, "promote", "--phase", P1, agent="executor-001", code=4, match="only memory agents")
    _fails(repo, "promote", "--phase", P1, agent="mc", code=4, match="only memory agents")
    _fails(repo, "archive", "--phase", P1, agent="executor-001", code=4)
    _fails(repo, "promote", "--phase", P1, match="no agent id")


def test_json_errors(repo: Repo) -> None:
    before = repo.snapshot()
    proc = repo.gridgit("phase", "complete", P1, "--json", agent="executor-001", check=False)
    assert proc.returncode == 4
    envelope = json.loads(proc.stdout)
    assert envelope["ok"] is False and envelope["error"]["code"] == "permission_denied"
    assert repo.snapshot() == before


def test_invalid_scratchpad_during_complete(repo: Repo) -> None:
    _seed(repo)
    path = repo.grid / "phases" / P1 / "scratchpad.md"
    path.write_text(
        path.read_text(encoding="utf-8") + "### [4] [2026-01-24T15:00:00Z] executor-001 | rumour | x\n\nhi\n",
        encoding="utf-8",
    )
    line = _fails(repo, "phase", "complete", P1, match="scratchpad.md line ", agent="mc")
    assert "unknown category 'rumour'" in line
