"""The merge driver as git runs it: a process writing %A, conflict markers, real clones."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from gridgit.scratchpad.document import Scratchpad
from tests.conftest import Repo, git
from tests.history.test_merge import E1, E2, E3, SCRATCHPAD, pad


def _driver(
    tmp_path: Path, base: str, ours: str, theirs: str, name: str, module: str = "gridgit.git.merge_driver"
) -> tuple[int, str]:
    files = []
    for label, text in (("base", base), ("ours", ours), ("theirs", theirs)):
        path = tmp_path / label
        path.write_text(text, encoding="utf-8")
        files.append(str(path))
    proc = subprocess.run([sys.executable, "-m", module, *files, name], capture_output=True, text=True)
    return proc.returncode, (tmp_path / "ours").read_text(encoding="utf-8")


# `gridgit.merge_driver` is the command earlier versions registered in .git/config: it keeps working.
@pytest.mark.parametrize("module", ["gridgit.git.merge_driver", "gridgit.merge_driver"])
def test_driver_process_writes_ours(tmp_path: Path, module: str) -> None:
    code, text = _driver(tmp_path, pad(E1), pad(E1, E2), pad(E1, E3), SCRATCHPAD, module)
    assert code == 0
    assert len(Scratchpad.parse(text, "s").entries) == 3


def test_unmergeable_leaves_conflict_markers(tmp_path: Path) -> None:
    code, text = _driver(tmp_path, "---\nx: 1\n---\n", "---\nx: [2\n---\n", "---\nx: 3\n---\n", ".grid/STATE.md")
    assert code == 1
    assert "<<<<<<<" in text and ">>>>>>>" in text


# ---- real clones -----------------------------------------------------------------------------------


def _commit(repo: Repo, message: str) -> None:
    repo.git("add", "-A")
    proc = subprocess.run(["git", "commit", "-q", "-m", message], cwd=repo.path, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def test_two_clones_ten_rounds_through_the_grid_ref(repo: Repo, tmp_path: Path) -> None:
    """Two non-bare clones pulling code from each other and syncing their Blackboards by pushing into each
    other's grid ref: every entry once on both sides, no conflict marker, the work trees clean."""
    from gridgit import Blackboard

    _commit(repo, "ignore the blackboard")
    other = Repo(tmp_path / "other")
    git(tmp_path, "clone", "-q", str(repo.path), str(other.path))
    other.gridgit("init")
    other.git("remote", "add", "peer", str(repo.path))
    repo.git("remote", "add", "peer", str(other.path))
    boards = {repo.path: Blackboard(repo.path), other.path: Blackboard(other.path)}
    written = []
    for round_no in range(10):
        for side, agent in ((repo, "executor-001"), (other, "executor-002")):
            content = f"round {round_no} by {agent}\n\nEvidence:\n- File: work/{agent}.txt"
            boards[side.path].write("discovery", f"r{round_no}-{agent}", content, agent=agent, relevance="HIGH")
            written.append(content)
            side.write(f"work/{agent}.txt", f"{round_no}\n")
            _commit(side, f"{agent} round {round_no}")
            boards[side.path].sync("peer")
            peer = other if side is repo else repo
            peer.git("pull", "-q", "--no-rebase", "--no-edit", "peer", "main")
            assert peer.git("status", "--porcelain") == ""
    for side in (repo, other, repo):
        boards[side.path].sync("peer")
    for side in (repo, other):
        text = (side.path / SCRATCHPAD).read_text(encoding="utf-8")
        assert "<<<<<<<" not in text and "<<<<<<<" not in (side.grid / "STATE.md").read_text(encoding="utf-8")
        contents = [e.content for e in Scratchpad.parse(text, "s").entries]
        for content in written:
            assert sum(1 for c in contents if c.startswith(content)) == 1
        assert side.gridgit("validate").returncode == 0
