"""`gridgit setup codex` where Codex reads its hooks (issue 34, finding 2): from a linked worktree, the main
worktree's .codex/hooks.json; and what it says when it cannot ask Codex for trust (finding 1; trusting through
the real Codex: tests/e2e/test_findings.py)."""

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


def test_set_up_from_a_linked_worktree_writes_the_main_worktrees_file_too(repo: Repo, linked: Path) -> None:
    """Codex loads a linked worktree's project hooks only where it has a .codex/ of its own, and reads them from
    the main worktree's .codex/hooks.json: both are written."""
    done = repo.gridgit("setup", "codex", "--json", cwd=linked, env=_no_codex())
    data = json.loads(done.stdout)["data"]
    assert data["path"] == str(linked / ".codex" / "hooks.json")
    main = repo.path / ".codex" / "hooks.json"
    assert main.read_bytes() == (linked / ".codex" / "hooks.json").read_bytes()
    assert any(str(main) in note for note in data["notes"])
    main.unlink()  # the main worktree's file gone: the linked worktree's set-up is not current
    assert repo.gridgit("setup", "codex", "--check", cwd=linked, env=_no_codex(), check=False).returncode == 1


def test_without_codex_setup_names_the_step_left_and_check_cannot_tell(repo: Repo) -> None:
    done = repo.gridgit("setup", "codex", env=_no_codex())
    assert "one step left: Codex is not on this machine's PATH" in done.stdout
    assert "`gridgit setup codex` again" in done.stdout and "/hooks" in done.stdout
    data = json.loads(repo.gridgit("setup", "codex", "--json", env=_no_codex()).stdout)["data"]
    assert data["notes"] == [] and len(data["steps"]) == 1
    assert repo.gridgit("setup", "codex", "--check", env=_no_codex(), check=False).returncode == 0
