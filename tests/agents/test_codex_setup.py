"""`gridgit setup codex` where Codex reads its hooks (issue 34, finding 2): the main worktree's
.codex/hooks.json from every worktree; and what it says when it cannot ask Codex for trust
(finding 1; trusting through the real Codex is in tests/e2e/test_codex_trust.py)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.conftest import Repo


@pytest.fixture
def linked(repo: Repo, tmp_path: Path) -> Path:
    path = tmp_path / "wt-1"
    repo.git("worktree", "add", "-q", str(path), "-b", "agent-1")
    return path


def _no_codex() -> dict[str, str]:
    """PATH without any `codex`: the directories of this one's, minus those holding one."""
    kept = [d for d in os.environ["PATH"].split(os.pathsep) if d and not (Path(d) / "codex").exists()]
    return {"PATH": os.pathsep.join(kept)}


def test_set_up_from_a_linked_worktree_writes_the_main_worktrees_file(repo: Repo, linked: Path) -> None:
    done = repo.gridgit("setup", "codex", "--json", cwd=linked, env=_no_codex())
    data = json.loads(done.stdout)["data"]
    assert data["path"] == str(repo.path / ".codex" / "hooks.json")
    assert (repo.path / ".codex" / "hooks.json").is_file()
    assert not (linked / ".codex").exists()


def test_doctor_counts_a_linked_worktree_covered_by_the_main_worktrees_codex_hooks(repo: Repo, linked: Path) -> None:
    repo.gridgit("setup", "codex", env=_no_codex())
    found = repo.gridgit_json("doctor")
    integrations = next(f for f in found["findings"] if f["check"] == "integrations")
    assert integrations["level"] == "ok", integrations


def test_without_codex_setup_names_the_step_left_and_check_cannot_tell(repo: Repo) -> None:
    done = repo.gridgit("setup", "codex", env=_no_codex())
    assert "one step left: Codex is not on this machine's PATH" in done.stdout
    assert "`gridgit setup codex` again" in done.stdout and "/hooks" in done.stdout
    data = json.loads(repo.gridgit("setup", "codex", "--json", env=_no_codex()).stdout)["data"]
    assert data["notes"] == [] and len(data["steps"]) == 1
    assert repo.gridgit("setup", "codex", "--check", env=_no_codex(), check=False).returncode == 0
