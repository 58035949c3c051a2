"""The CLI of `conflicts predict` and `evidence check` (their behaviour: tests/git/test_predict.py, test_staleness.py)."""

from __future__ import annotations

import pytest

from tests.conftest import Repo


@pytest.mark.parametrize("command", [["conflicts", "predict"], ["evidence"], ["evidence", "check"]], ids=" ".join)
def test_help(bare_repo: Repo, command: list[str]) -> None:
    proc = bare_repo.gridgit(*command, "--help")
    assert proc.stdout.startswith(f"Usage: gridgit {' '.join(command)}") and proc.stderr == ""


def test_a_board_is_needed(bare_repo: Repo) -> None:
    for command in (["conflicts", "predict"], ["evidence", "check"]):
        proc = bare_repo.gridgit(*command, check=False)
        assert proc.returncode == 3 and proc.stderr.startswith("gridgit: error: no Blackboard at ")
