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


def _refused(repo: Repo, *args: str, match: str) -> None:
    """ARGS fail with one line naming the rule and --force, exit 1, nothing changed."""
    before = repo.snapshot()
    proc = repo.gridgit(*args, agent="mc", check=False)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert proc.stderr.startswith("gridgit: error: ") and proc.stderr.count("\n") == 1
    assert match in proc.stderr and "--force" in proc.stderr
    assert repo.snapshot() == before


def test_one_phase_in_progress_at_a_time(repo: Repo) -> None:
    _refused(repo, "phase", "start", "02-core", match="phase 01-foundation is in progress: one phase at a time")
    repo.gridgit("phase", "start", "02-core", "--force", agent="mc")
    started = repo.events("phase_started")[-1]["payload"]
    assert started["phase_id"] == "02-core" and started["forced"] is True
    assert started["overrode"].startswith("phase 01-foundation is in progress")
    rows = {r["id"]: r["status"] for r in repo.gridgit_json("phase", "list")}
    assert rows == {"01-foundation": "in_progress", "02-core": "in_progress"}


def test_no_pending_phase_is_skipped(repo: Repo) -> None:
    _refused(repo, "phase", "complete", "01-foundation", "--next", "03-api", match="phase 02-core is pending between")
    repo.gridgit("state", "update", "--update", "phases.definitions={id: 01-foundation, status: complete}", agent="mc")
    _refused(repo, "phase", "start", "03-api", match="phase 02-core is pending before 03-api")
    repo.gridgit("phase", "start", "02-core", agent="mc")  # in order: no --force needed
    assert "forced" not in repo.events("phase_started")[-1]["payload"]


def test_forcing_a_skip_is_recorded(repo: Repo) -> None:
    repo.gridgit("phase", "complete", "01-foundation", "--next", "03-api", "--force", agent="mc")
    completed = repo.events("phase_completed")[-1]["payload"]
    assert completed["next_phase_id"] == "03-api" and completed["forced"] is True
    assert "02-core is pending" in completed["overrode"]
    rows = {r["id"]: r["status"] for r in repo.gridgit_json("phase", "list")}
    assert rows == {"01-foundation": "complete", "02-core": "pending", "03-api": "in_progress"}
