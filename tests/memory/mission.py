"""A mission three phases long, two of them completed (built once per module: completions are the slow part).

Phase 01 holds a gotcha found by a rare word (`zeppelin`) and citing `src/legacy.py`; by
phase 03 it has been archived two phases earlier. Tests that change files work on a copy.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import GIT_ENV, Repo, git

P1, P2, P3 = "01-foundation", "02-core", "03-polish"
ZEPPELIN = "Gotcha: the zeppelin importer rewrites timestamps\n\nEvidence:\n- File: src/legacy.py\n- Line: 10-12"


def build(path: Path) -> Repo:
    from gridgit import Blackboard

    path.mkdir(parents=True)
    git(path, "init", "-q", "-b", "main")
    git(path, "commit", "-q", "--allow-empty", "-m", "initial")
    board = Blackboard(path)
    board.init("Memory Mission", [f"{P1}:Foundation", f"{P2}:Core", f"{P3}:Polish"], hooks=False)
    board.update_state({"persistent": {"tech_stack": {"database": "postgres"}}}, agent="mc")
    zeppelin = board.write("gotcha", "legacy", ZEPPELIN, relevance="HIGH", agent="executor-001", phase=P1)
    board.write("decision", "auth", "Decision: signed cookies\n\nEvidence:\n- File: src/auth.py",
                tags=["architectural"], agent="executor-002", phase=P1)  # fmt: skip
    board.write("discovery", "db", "Found: the pool is per thread", tags=["postgres"], agent="executor-001", phase=P1)
    board.heartbeat(50, "wiring the importer", agent="executor-001", phase=P1)
    board.write("blocker", "stripe", "Blocker: no Stripe key", agent="recognizer-001", phase=P1)
    confirm(board, zeppelin.uid, P1)
    board.complete_phase(P1, agent="mc")
    pure = board.write("pattern", "api", "Pattern: handlers are pure", relevance="HIGH", agent="executor-001", phase=P2)
    confirm(board, pure.uid, P2)
    board.complete_phase(P2, agent="mc")
    board.write("discovery", "ui", "Found: the user wants tabs", agent="executor-002", phase=P3)
    return Repo(path)


def confirm(board: Any, uid: str, phase: str) -> None:
    """Three agents confirm entry UID: a HIGH gotcha or pattern is promoted at phase end."""
    for agent in ("executor-007", "executor-008", "executor-009"):
        board.confirm(uid, phase, agent=agent)


@pytest.fixture(scope="module")
def mission(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Repo]:
    """The mission (read it; copy it with `copy` to change it)."""
    with pytest.MonkeyPatch.context() as patch:
        home = tmp_path_factory.mktemp("home")
        for key, value in {**GIT_ENV, "HOME": str(home)}.items():
            patch.setenv(key, value)
        for var in ("GRID_DIR", "GRID_AGENT_ID", "GRIDGIT_NOW", "GIT_DIR", "GIT_INDEX_FILE"):
            patch.delenv(var, raising=False)
        yield build(tmp_path_factory.mktemp("mission") / "repo")


def copy(mission: Repo, tmp_path: Path) -> Repo:
    """A copy of the mission of one's own (the repository and its .grid/, the search index left behind)."""
    target = tmp_path / "copy"
    shutil.copytree(mission.path, target, symlinks=True, ignore=shutil.ignore_patterns(".cache"))
    return Repo(target)
