"""`gridgit demo` in its small form, its summary checked against the repository it produced."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from gridgit.demo import project, verify
from tests.conftest import Repo, git, pid_alive

HEADER_RE = re.compile(r"^### \[\d+\] \[[^\]]+\] (\S+) \| (\S+) \| ", re.MULTILINE)


def run_demo(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    full_env = {**os.environ, **(env or {})}
    full_env.pop("GRID_AGENT_ID", None)
    return subprocess.run(
        [sys.executable, "-m", "gridgit", "demo", *args], capture_output=True, text=True, env=full_env, timeout=600
    )


def test_small_demo_summary_matches_the_repository(tmp_path: Path) -> None:
    """One `gridgit demo --agents 2 --dir TMP --keep --json` run (the slow part), every claim checked.

    One test rather than several sharing a fixture: under pytest-xdist a module fixture runs
    once per worker, and the demo is the slowest thing in the suite.
    """
    folder = tmp_path / "demo run"  # a space: the "Look around" hint must still paste into a shell
    proc = run_demo("--agents", "2", "--dir", str(folder), "--keep", "--json", env={"HOME": str(tmp_path)})
    assert proc.returncode == 0, proc.stderr + proc.stdout
    envelope = json.loads(proc.stdout)
    assert envelope["ok"] is True
    run = (folder, envelope["data"], proc.stderr)
    for check in (check_entries, check_commits, check_conflict, check_phase_and_learnings, check_memory,
                  check_worktrees, check_no_daemon_left, check_progress_and_human_summary, check_work):  # fmt: skip
        check(run)


def entries_in_files(grid: Path) -> list[tuple[str, str]]:
    """(agent, category) of every entry header in every scratchpad and archive file."""
    found = []
    for path in sorted((grid / "phases").glob("*/scratchpad*.md")):
        found += HEADER_RE.findall(path.read_text(encoding="utf-8"))
    return found


def events_of(grid: Path) -> list[dict[str, Any]]:
    lines = (grid / "events" / "current.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def check_entries(run: tuple[Path, dict[str, Any], str]) -> None:
    folder, summary, _ = run
    found = entries_in_files(folder / "repo" / ".grid")
    assert summary["entries"]["total"] == len(found)
    by_category: dict[str, int] = {}
    for _agent, category in found:
        by_category[category] = by_category.get(category, 0) + 1
    assert summary["entries"]["by_category"] == by_category
    assert {"heartbeat", "decision", "discovery", "gotcha", "handoff", "warning"} <= set(by_category)
    agents = {agent for agent, _ in found}
    assert {"executor-001", "recognizer-001"} <= agents


def check_commits(run: tuple[Path, dict[str, Any], str]) -> None:
    folder, summary, _ = run
    repo = folder / "repo"
    log = git(repo, "log", "--format=%h %s", "main").splitlines()
    assert summary["commits"]["total"] == len(log)
    agent_commits = [sha for agent in summary["agents"] for sha in agent["commits"]]
    assert len(agent_commits) == summary["commits"]["by_agents"] == 2
    for sha in agent_commits:
        git(repo, "merge-base", "--is-ancestor", sha, "main")
    phase_commit = git(repo, "log", "--format=%B", "--grep", "Grid-Phase-Complete: 01-foundation", "main")
    assert "Grid-Phase-Complete: 01-foundation" in phase_commit
    archive = (repo / ".grid" / "phases" / "01-foundation" / "scratchpad_archived.md").read_text()
    for sha in summary["commits"]["evidence"]:  # the post-commit hook linked entries to real commits
        assert f"- Commit: {sha}" in archive
        git(repo, "cat-file", "-e", f"{sha}^{{commit}}")
    # The new model: main tracks no .grid/ file; its history is on refs/heads/grid, snapshotted by the hooks.
    assert git(repo, "ls-files", ".grid") == "" and summary["history"]["learnings_snapshotted"] is True
    assert summary["history"]["snapshots"] == len(git(repo, "log", "--format=%h", "grid").splitlines())
    assert git(repo, "show", "grid:phases/01-foundation/scratchpad_archived.md") == archive


def check_conflict(run: tuple[Path, dict[str, Any], str]) -> None:
    folder, summary, _ = run
    conflicts = [e for e in events_of(folder / "repo" / ".grid") if e["type"] == "write_conflict"]
    shared = [c for c in conflicts if c["payload"]["path"] == "src/shop/config.py"]
    assert {shared[0]["payload"]["agent"], *shared[0]["payload"]["conflicting_agents"]} == {
        "executor-001",
        "recognizer-001",
    }
    assert len(summary["conflicts"]) == len(conflicts)
    assert summary["events"]["total"] == len(events_of(folder / "repo" / ".grid"))


def check_phase_and_learnings(run: tuple[Path, dict[str, Any], str]) -> None:
    folder, summary, _ = run
    grid = folder / "repo" / ".grid"
    learnings = (grid / "LEARNINGS.md").read_text(encoding="utf-8")
    promoted = re.findall(r"^- \*\*From:\*\* 01-foundation ", learnings, re.MULTILINE)
    assert summary["learnings"]["promoted"] == len(promoted) >= 2
    state = (grid / "STATE.md").read_text(encoding="utf-8")
    assert re.search(r"completed: \[01-foundation\]", state)
    assert "phase_id: 02-api" in state
    carried = HEADER_RE.findall((grid / "phases" / "02-api" / "scratchpad.md").read_text(encoding="utf-8"))
    assert summary["phases"]["carried"] == len([a for a, _ in carried if a == "system"]) >= 1
    assert any(category == "handoff" for _, category in carried)


def check_memory(run: tuple[Path, dict[str, Any], str]) -> None:
    folder, summary, _ = run
    repo = folder / "repo"
    compressed = (repo / ".grid" / "memory" / "compressed" / "phase-01.md").read_text(encoding="utf-8")
    (phase,) = summary["memory"]["compressed"]
    assert phase["phase_id"] == "01-foundation" and phase["path"] == ".grid/memory/compressed/phase-01.md"
    assert (
        compressed.startswith("---\nkind: compressed\nphase_id: 01-foundation\n")
        and "written_by: gridgit" in compressed
    )
    index = (repo / ".grid" / "memory" / "INDEX.md").read_text(encoding="utf-8")
    assert "## Phase 01-foundation\n\n- 01-foundation | compressed |" in index
    assert summary["memory"]["index_lines"] == index.count("\n- ")
    # Synced like the rest: the grid ref holds them.
    assert git(repo, "show", "grid:memory/compressed/phase-01.md") == compressed
    assert "memory     .grid/memory/compressed/phase-01.md" in verify.render(summary)


def check_worktrees(run: tuple[Path, dict[str, Any], str]) -> None:
    folder, summary, _ = run
    worktrees = git(folder / "repo", "worktree", "list", "--porcelain")
    for agent in summary["agents"]:
        assert f"worktree {agent['worktree']}" in worktrees
        assert f"branch refs/heads/{agent['branch']}" in worktrees
    assert summary["kept"] is True and summary["repo"] == str(folder / "repo")


def check_no_daemon_left(run: tuple[Path, dict[str, Any], str]) -> None:
    folder, _, progress = run
    repo = folder / "repo"
    status = subprocess.run(
        [sys.executable, "-m", "gridgit", "daemon", "status", "--json"], cwd=repo, capture_output=True, text=True
    )
    assert json.loads(status.stdout)["data"]["state"] == "stopped"
    started = re.search(r"watcher running \(pid (\d+)\)", progress)
    assert started and not pid_alive(int(started.group(1)))


def check_progress_and_human_summary(run: tuple[Path, dict[str, Any], str]) -> None:
    _, summary, progress = run
    for step in ("repository", "gridgit init", "daemon", "worktrees", "executor-001", "recognizer-001"):
        assert step in progress
    text = verify.render(summary)
    assert "conflicts  " in text and "learnings  " in text and summary["repo"] in text
    # issue 38: README's sample of the summary had lines the demo no longer prints, and lacked some it does.
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    sample = readme[
        readme.index("gridgit demo: done in ") : readme.index("```", readme.index("gridgit demo: done in "))
    ]
    labels = [line.split()[0] for line in text.splitlines() if line.startswith("  ")]
    assert [line.split()[0] for line in sample.splitlines() if line.startswith("  ")] == labels
    look = next(line for line in text.splitlines() if line.startswith("Look around: "))
    assert shlex.split(look.removeprefix("Look around: "))[:2] == ["cd", summary["repo"]]


def test_a_scout_reports_its_refused_write_in_full(repo: Repo) -> None:
    """The scout's part of the demo, as its own process: every progress line is a whole message."""
    repo.gridgit("write", "-c", "decision", "-t", "auth", "--content", "Decision: JWT", agent="executor-001")
    spec = {"id": "scout-001", "type": "scout", "worktree": str(repo.path), "phase_id": "01-foundation",
            "shared_file": "src/app.py", "query": "auth"}  # fmt: skip
    env = {k: v for k, v in os.environ.items() if k != "GRID_AGENT_ID"}
    proc = subprocess.run([sys.executable, "-m", "gridgit.demo.actor"], input=json.dumps(spec), cwd=repo.path,
                          capture_output=True, text=True, env=env, timeout=300)  # fmt: skip
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    assert lines[-1]["event"] == "done", proc.stdout + proc.stderr
    refused = next(line["msg"] for line in lines if "refused" in line.get("msg", ""))
    assert refused == "a scout write is refused (exit 4): scout agents may not write to a scratchpad (agent scout-001)"


def check_work(run: tuple[Path, dict[str, Any], str]) -> None:
    """Each agent took its block from the queue, completed it and reported usage; status shows blocks and cost."""
    folder, summary, progress = run
    grid = folder / "repo" / ".grid"
    taken = [e["payload"] for e in events_of(grid) if e["type"] == "block_taken"]
    assert sorted(p["agent"] for p in taken) == ["executor-001", "recognizer-001"]  # 2 agents: both work blocks
    for payload in taken:
        block = payload["block_id"]
        summary_file = grid / "phases" / "01-foundation" / f"{block[3:]}-SUMMARY.md"
        assert f"agent: {payload['agent']}" in summary_file.read_text(encoding="utf-8")
    work = summary["work"]
    assert (work["completed"], work["planned"]) == (2, 2)
    assert work["by_agent"] == {"executor-001": 0.1725, "recognizer-001": 0.105}  # the demo's usage, priced
    assert "took block 01-01 from the queue" in progress
    shown = subprocess.run([sys.executable, "-m", "gridgit", "status"], cwd=folder / "repo", capture_output=True,
                           text=True, check=True).stdout  # fmt: skip
    assert "Blocks of 02-api (0 of 2 complete; ready: 02-01, 02-02)" in shown and "Cost: $0.2775" in shown


def test_temporary_folder_removed_without_keep(tmp_path: Path) -> None:
    temp = tmp_path / "temp"
    temp.mkdir()
    proc = run_demo("--agents", "2", "--json", env={"TMPDIR": str(temp), "HOME": str(tmp_path)})
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)["data"]
    assert summary["kept"] is False and not Path(summary["repo"]).exists()
    assert list(temp.iterdir()) == []


@pytest.mark.parametrize(("args", "code"), [(("--agents", "1"), 2), (("--agents", "13"), 2), (("--phases", "1"), 2)])
def test_bad_options_are_usage_errors(args: tuple[str, ...], code: int) -> None:
    assert run_demo(*args).returncode == code


def test_non_empty_dir_refused(tmp_path: Path) -> None:
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "precious.txt").write_text("keep me")
    proc = run_demo("--dir", str(folder))
    assert proc.returncode == 1
    assert proc.stderr.count("\n") == 1 and "not empty" in proc.stderr
    assert [p.name for p in folder.iterdir()] == ["precious.txt"]


def test_agent_ids() -> None:
    assert project.agent_ids(4) == ["executor-001", "recognizer-001", "memory-001", "scout-001"]
    assert project.agent_ids(6)[4:] == ["executor-002", "executor-003"]


def test_help() -> None:
    out = subprocess.run([sys.executable, "-m", "gridgit", "demo", "--help"], capture_output=True, text=True).stdout
    for option in ("--agents", "--phases", "--dir", "--keep", "--json"):
        assert option in out
