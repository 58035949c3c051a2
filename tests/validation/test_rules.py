"""The validator: each kind of broken .grid file, work tree and index, and `gridgit validate`."""

from __future__ import annotations

import json
import os
import re

import pytest

from gridgit.validation import rules
from tests.conftest import Repo

SCRATCHPAD = "phases/01-foundation/scratchpad.md"


def text(repo: Repo, rel: str) -> str:
    return (repo.grid / rel).read_text(encoding="utf-8")


def test_fresh_blackboard_is_valid(repo: Repo) -> None:
    proc = repo.gridgit("validate")
    assert proc.returncode == 0
    assert repo.gridgit_json("validate") == {"valid": True, "problems": []}


@pytest.mark.parametrize(
    ("rel", "old", "new", "line", "needle"),
    [
        ("STATE.md", "status: planning", "status: napping", 11, "field 'status'"),
        ("STATE.md", "mode: autopilot", "mode: [oops", 0, ""),
        (SCRATCHPAD, "entry_count: 0", "entry_count: 2", 9, "gridgit reindex --phase 01-foundation"),
        (SCRATCHPAD, "phase_id: 01-foundation", "phase_id: 02-core", 5, "does not match its folder"),
        ("LEARNINGS.md", "## patterns", "## recipes", 0, "unknown section 'recipes'"),
        ("config.json", '"on_commit": "warn"', '"on_commit": "maybe"', 3, "conflicts.on_commit"),
        ("config.json", "{", "[", 2, "invalid JSON"),
    ],
)
def test_each_broken_file(repo: Repo, rel: str, old: str, new: str, line: int, needle: str) -> None:
    original = text(repo, rel)
    assert old in original
    problems = rules.validate_text(rel, original.replace(old, new, 1))
    assert problems, rel
    assert problems[0].path == f".grid/{rel}"
    if line:
        assert problems[0].line == line
    assert needle in str(problems[0])


def test_problem_kind_tells_index_drift_from_a_broken_file(repo: Repo) -> None:
    good = text(repo, SCRATCHPAD)
    drift = rules.validate_text(SCRATCHPAD, good.replace("entry_count: 0", "entry_count: 2", 1))
    assert [p.kind for p in drift] == [rules.INDEX_DRIFT] == ["index_drift"]
    assert drift[0].to_dict() == {
        "path": f".grid/{SCRATCHPAD}",
        "line": 9,
        "message": "index does not match the entries (stale cache)",
        "fix": "gridgit reindex --phase 01-foundation",
        "kind": "index_drift",
    }
    # the kind is data, not part of the one-line message users read
    assert str(drift[0]) == (
        f".grid/{SCRATCHPAD}:9: index does not match the entries (stale cache) "
        "(fix: gridgit reindex --phase 01-foundation)"
    )
    broken = rules.validate_text(SCRATCHPAD, good.replace("phase_id: 01-foundation", "phase_id: 02-core", 1))
    assert broken and {p.kind for p in broken} == {"invalid"}
    (repo.grid / SCRATCHPAD).write_text(good.replace("entry_count: 0", "entry_count: 2", 1), encoding="utf-8")
    data = json.loads(repo.gridgit("validate", "--json", check=False).stdout)["data"]
    assert [p["kind"] for p in data["problems"]] == ["index_drift"]


def test_scratchpad_entry_problems(board: object, repo: Repo) -> None:
    repo.gridgit("write", "-c", "discovery", "-t", "auth", "--content", "x", agent="executor-001")
    good = text(repo, SCRATCHPAD)
    header = next(n for n, x in enumerate(good.split("\n"), start=1) if x.startswith("### [1]"))
    bad = rules.validate_text(SCRATCHPAD, good.replace("| discovery |", "| gossip |"))
    assert (bad[0].line, "unknown category 'gossip'" in bad[0].message) == (header, True)
    bad = rules.validate_text(
        SCRATCHPAD,
        good.replace("**Relevance:** HIGH", "**Relevance:** HUGE")
        .replace("**Relevance:** MEDIUM", "**Relevance:** HUGE")
        .replace("**Relevance:** LOW", "**Relevance:** HUGE"),
    )
    assert "relevance" in bad[0].message


def test_ids_are_checked_and_never_shared(repo: Repo) -> None:
    for content in ("x", "y"):
        repo.gridgit("write", "-c", "discovery", "-t", "auth", "--content", content, agent="executor-001")
    good = text(repo, SCRATCHPAD)
    assert rules.validate_text(SCRATCHPAD, good) == []
    first, second = re.findall(r"^\*\*Id:\*\* (\S+)$", good, re.MULTILINE)
    [copied] = rules.validate_text(SCRATCHPAD, good.replace(second, first))
    assert copied.line == next(n for n, x in enumerate(good.split("\n"), start=1) if x.startswith("### [2]"))
    assert "has the Id of an earlier entry" in copied.message
    assert "invalid Id 'nope'" in rules.validate_text(SCRATCHPAD, good.replace(first, "nope"))[0].message

    learnings = text(repo, "LEARNINGS.md")
    one = "### One\n\nx\n\n- **Id:** 01HQ3W6Y8Z5D0RM2VN7K4XJ1AB\n\n"
    twice = learnings.replace("## gotchas\n", "## gotchas\n\n" + one + one.replace("One", "Two"))
    [problem] = rules.validate_text("LEARNINGS.md", twice)
    assert "'Two' has the Id of an earlier learning" in problem.message
    assert problem.line == twice.split("\n").index("### Two") + 5
    assert (
        rules.validate_text("LEARNINGS.md", twice.replace("### Two\n\nx\n\n- **Id:** 01HQ3W6Y8Z5D0RM2VN7K4XJ1AB\n", ""))
        == []
    )


def test_events_and_folders(repo: Repo) -> None:
    ok = json.dumps({"id": "1", "type": "t", "timestamp": "x", "payload": {}})
    problems = rules.validate_text("events/current.jsonl", ok + "\n{nope\n" + json.dumps({"id": "2"}) + "\n")
    assert [(p.line, p.message.split(":")[0]) for p in problems] == [
        (2, "invalid JSON"),
        (3, "event lacks type, timestamp, payload"),
    ]
    assert "not NN-slug" in rules.validate_text("phases/Phase1/scratchpad.md", "")[0].message


def test_symlink_where_a_grid_file_should_be(repo: Repo) -> None:
    target = repo.path / "elsewhere.md"
    target.write_text("x", encoding="utf-8")
    os.symlink(target, repo.grid / "CHECKPOINT.md")
    proc = repo.gridgit("validate", check=False)
    assert proc.returncode == 1
    assert ".grid/CHECKPOINT.md: is a symlink" in proc.stdout


def test_cli_reports_file_line_and_fix(repo: Repo) -> None:
    before = repo.snapshot()
    state = repo.grid / "STATE.md"
    state.write_text(text(repo, "STATE.md").replace("status: planning", "status: napping"), encoding="utf-8")
    proc = repo.gridgit("validate", check=False)
    assert proc.returncode == 1
    assert proc.stdout.startswith(".grid/STATE.md:11: field 'status'")
    data = json.loads(repo.gridgit("validate", "--json", check=False).stdout)["data"]
    assert data["valid"] is False and data["problems"][0]["line"] == 11
    assert {k: v for k, v in repo.snapshot().items() if k != "STATE.md"} == {
        k: v for k, v in before.items() if k != "STATE.md"
    }


def test_staged_reads_the_index(repo: Repo) -> None:
    repo.git("add", "-A", "--force", ".grid")  # a repository that still tracks .grid/ (not migrated yet)
    assert repo.gridgit("validate", "--staged").returncode == 0
    state = repo.grid / "STATE.md"
    good = state.read_text(encoding="utf-8")
    state.write_text(good.replace("status: planning", "status: napping"), encoding="utf-8")
    assert repo.gridgit("validate", "--staged").returncode == 0  # the index still has the good one
    assert repo.gridgit("validate", check=False).returncode == 1
    repo.git("add", "--force", ".grid/STATE.md")
    proc = repo.gridgit("validate", "--staged", ".grid/STATE.md", check=False)
    assert proc.returncode == 1 and ".grid/STATE.md:11:" in proc.stdout


def test_path_outside_grid_is_bad_input(repo: Repo) -> None:
    proc = repo.gridgit("validate", "README.md", check=False)
    assert proc.returncode == 1
    assert len(proc.stderr.strip().splitlines()) == 1 and "not a file under" in proc.stderr


def test_not_initialised(bare_repo: Repo) -> None:
    assert bare_repo.gridgit("validate", check=False).returncode == 3
