"""Finding the repository and its shared .grid/ from anywhere inside it."""

from __future__ import annotations

from pathlib import Path

import pytest

from gridgit.errors import BadInput, GridError, NotInitialised
from gridgit.store.layout import Layout, check_phase_id
from tests.conftest import Repo


def test_finds_root_from_a_subfolder(repo: Repo) -> None:
    sub = repo.path / "src" / "deep"
    sub.mkdir(parents=True)
    layout = Layout.find(sub)
    assert layout.root == repo.path.resolve()
    assert layout.grid == (repo.path / ".grid").resolve()


def test_linked_worktree_shares_the_main_worktrees_grid(repo: Repo, tmp_path: Path) -> None:
    wt = tmp_path / "wt-agent"
    repo.git("worktree", "add", "-q", "-b", "agent", str(wt))
    layout = Layout.find(wt)
    assert layout.root == wt.resolve()
    assert layout.main_root == repo.path.resolve()
    assert layout.grid == repo.grid.resolve()


def test_grid_dir_env_overrides(repo: Repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRID_DIR", str(tmp_path / "elsewhere"))
    assert Layout.find(repo.path).grid == (tmp_path / "elsewhere").resolve()


def test_git_config_grid_dir_overrides(repo: Repo, tmp_path: Path) -> None:
    repo.git("config", "grid.dir", "shared-grid")
    assert Layout.find(repo.path).grid == (repo.path / "shared-grid").resolve()


def test_outside_a_git_repository_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(GridError, match="not a git repository"):
        Layout.find(tmp_path)


def test_require_without_grid_is_not_initialised(bare_repo: Repo) -> None:
    with pytest.raises(NotInitialised):
        Layout.find(bare_repo.path).require()


@pytest.mark.parametrize("bad", ["../x", "01-Foo", "/abs/path", "1-x", "01-", "01_x", "01-x/../y", ""])
def test_phase_ids_that_are_not_nn_slug_are_refused(bad: str) -> None:
    with pytest.raises(BadInput, match="invalid phase id"):
        check_phase_id(bad)


def test_relative_paths_are_repo_relative_and_outside_paths_refused(repo: Repo, tmp_path: Path) -> None:
    layout = Layout.find(repo.path)
    assert layout.relative(repo.path / "src" / "a.py") == "src/a.py"
    with pytest.raises(BadInput, match="outside the repository"):
        layout.relative(tmp_path / "other.py")
