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
    repo.gridgit("write", "-c", "question", "-t", "api", "--content", "Question: REST?", agent="executor-001")
    repo.gridgit("phase", "start", "02-core", "--force", agent="mc")
    # Forced, the phase in progress is completed into the one started: never two in progress.
    completed = repo.events("phase_completed")[-1]["payload"]
    assert (completed["phase_id"], completed["next_phase_id"], completed["forced"]) == (
        "01-foundation",
        "02-core",
        True,
    )
    assert completed["overrode"].startswith("phase 01-foundation is in progress")
    rows = {r["id"]: r["status"] for r in repo.gridgit_json("phase", "list")}
    assert rows == {"01-foundation": "complete", "02-core": "in_progress"}
    assert [e["category"] for e in repo.gridgit_json("read", "--phase", "02-core")] == ["question"]  # carried
    assert repo.gridgit_json("state", "show", "--field", "position.phase_id") == "02-core"


def test_no_pending_phase_is_skipped(repo: Repo) -> None:
    _refused(repo, "phase", "complete", "01-foundation", "--next", "03-api", match="phase 02-core is pending between")
    _refused(repo, "phase", "start", "03-api", match="phase 01-foundation is in progress")
    repo.gridgit("phase", "complete", "01-foundation", agent="mc")  # in order: no --force needed
    assert "forced" not in repo.events("phase_completed")[-1]["payload"]
    assert "forced" not in repo.events("phase_started")[-1]["payload"]


def test_no_side_door_moves_the_phase_order(repo: Repo) -> None:
    for args, match in (
        (("--set", "position.phase_id=09-nowhere"), "`gridgit phase start|complete` moves the phase"),
        (("--set", "position.block=3"), "`gridgit take` and `gridgit block start|complete` the block"),
        (("--set-json", '{"position": {"phase": 2}}'), "STATE's position moves only with the mission"),
        (("--set", "phases.current=2"), "phases.current moves only with `gridgit phase start|complete`"),
        (("--add", "phases.completed=01-foundation"), "phases.completed moves only with"),
        (("--update", "phases.definitions={id: 01-foundation, status: complete}"), "01-foundation's status moves"),
        (("--update", "phases.definitions={id: 02-core, status: in_progress}"), "02-core's status moves"),
        (("--add", "phases.definitions={id: 03-api, status: in_progress}"), "03-api's status moves"),
        (("--remove", "phases.definitions=01-foundation"), "01-foundation has started"),
    ):
        before = repo.snapshot()
        proc = repo.gridgit("state", "update", *args, agent="mc", check=False)
        assert proc.returncode == 1 and match in proc.stderr and proc.stderr.count("\n") == 1, proc.stderr
        assert repo.snapshot() == before
    # A planner adds a phase as pending, and may rename one: that moves nothing.
    repo.gridgit("state", "update", "--add", "phases.definitions={id: 03-api, name: API}", agent="planner-001")
    repo.gridgit("state", "update", "--update", "phases.definitions={id: 02-core, name: Core}", agent="planner-001")
    assert [d["status"] for d in repo.gridgit_json("state", "show", "--field", "phases.definitions")] == [
        "in_progress",
        "pending",
        "pending",
    ]


def test_forcing_completes_and_skips_and_says_so(repo: Repo) -> None:
    repo.gridgit("phase", "complete", "01-foundation", "--next", "03-api", "--force", agent="mc")
    completed = repo.events("phase_completed")[-1]["payload"]
    assert completed["next_phase_id"] == "03-api" and completed["forced"] is True
    assert "02-core is pending" in completed["overrode"] and completed["skipped"] == ["02-core"]
    definitions = {d["id"]: d for d in repo.gridgit_json("state", "show", "--field", "phases.definitions")}
    assert {k: d["status"] for k, d in definitions.items()} == {
        "01-foundation": "complete",
        "02-core": "complete",
        "03-api": "in_progress",
    }
    assert definitions["02-core"]["skipped"] is True and "skipped" not in definitions["01-foundation"]
    assert repo.gridgit_json("state", "show", "--field", "phases.completed") == ["02-core", "01-foundation"]


def test_completing_past_the_current_phase_by_force_completes_it_first(repo: Repo) -> None:
    repo.gridgit("state", "update", "--add", "phases.definitions={id: 03-api}", agent="mc")
    done = repo.gridgit_json("phase", "complete", "02-core", "--force", agent="mc")
    assert (done["phase_id"], done["next_phase_id"]) == ("02-core", "03-api")
    rows = {r["id"]: r["status"] for r in repo.gridgit_json("phase", "list")}
    assert rows == {"01-foundation": "complete", "02-core": "complete", "03-api": "in_progress"}
    assert [e["payload"]["phase_id"] for e in repo.events("phase_completed")] == ["01-foundation", "02-core"]


def test_an_out_of_order_trailer_suggests_a_command_that_completes_it(repo: Repo) -> None:
    done = commit(repo, "done\n\nGrid-Phase-Complete: 02-core", "--allow-empty")
    suggested = done.stderr.split("`")[-2]  # the one command the warning names
    assert suggested == "gridgit phase complete 02-core --force --agent mc"
    repo.gridgit(*suggested.split()[1:])  # it succeeds as written
    assert [e["payload"]["phase_id"] for e in repo.events("phase_completed")] == ["01-foundation", "02-core"]
