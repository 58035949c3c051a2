"""The phase order cannot be skipped, by `phase complete` or by a mistyped commit trailer."""

from __future__ import annotations

from tests.conftest import Repo
from tests.git.test_hookrun import commit


def test_a_trailer_naming_a_later_phase_warns_and_advances_nothing(repo: Repo) -> None:
    before = repo.gridgit_json("state", "show")["position"]
    done = commit(repo, "done\n\nGrid-Phase-Complete: 02-core", "--allow-empty")
    assert done.returncode == 0  # the commit itself goes through
    assert "phase 01-foundation is current and not complete" in done.stderr
    assert repo.gridgit_json("state", "show")["position"] == before
    assert repo.events("phase_completed") == []
