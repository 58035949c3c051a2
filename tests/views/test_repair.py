"""`gridgit doctor` offers a fix that works for each problem it names; `doctor --repair` brings back
every damaged or missing file (from the grid history, STATE.md rebuilt with every phase it knows)
and every required file or folder of the wrong kind (moved aside first)."""

from __future__ import annotations

import json
import shlex
import shutil

from tests.conftest import Repo


def _fails(repo: Repo) -> list[dict[str, str]]:
    data = json.loads(repo.gridgit("doctor", "--json", check=False).stdout)["data"]
    return [f for f in data["findings"] if f["level"] == "fail"]


def _apply_fixes(repo: Repo) -> None:
    """Run each fix doctor names (a gridgit command, once however many findings name it) as a user would, with Master
    Control's id."""
    for fix in dict.fromkeys(found["fix"] for found in _fails(repo)):
        assert fix.startswith("gridgit "), fix
        repo.gridgit(*shlex.split(fix)[1:], agent="mc")


def test_each_named_problem_has_a_working_fix(repo: Repo) -> None:
    repo.gridgit("write", "-c", "discovery", "-t", "auth", "--content", "Found: x", agent="executor-001")
    pad = repo.grid / "phases" / "01-foundation" / "scratchpad.md"
    pad.write_text(pad.read_text("utf-8").replace("entry_count: 1", "entry_count: 7"), "utf-8")  # index drift
    repo.gridgit("hooks", "uninstall")
    assert {f["check"] for f in _fails(repo)} >= {"index", "hooks"}
    _apply_fixes(repo)
    assert _fails(repo) == []


def test_a_deleted_state_is_rebuilt_from_the_phase_folders(repo: Repo) -> None:
    repo.gridgit("write", "-c", "gotcha", "-t", "auth", "--content", "Gotcha: x", agent="executor-001")
    repo.gridgit("phase", "complete", "01-foundation", agent="mc")
    (repo.grid / "STATE.md").unlink()
    refused = repo.gridgit("state", "show", check=False)
    assert refused.returncode == 3 and "doctor --repair" in refused.stderr
    assert [f["fix"] for f in _fails(repo)] == ["gridgit doctor --repair"]
    _apply_fixes(repo)
    state = repo.gridgit_json("state", "show")
    assert state["position"]["phase_id"] == "02-core" and state["position"]["phase_name"] == "Core Features"
    assert [d["status"] for d in state["phases"]["definitions"]] == ["complete", "in_progress"]
    assert repo.gridgit("validate").returncode == 0
    again = repo.gridgit("doctor", "--repair", check=False)
    assert again.returncode == 0 and "nothing to repair" in again.stdout  # issue 38: an answer, not an error


def test_a_deleted_state_is_restored_from_git_when_tracked(repo: Repo) -> None:
    repo.gridgit("state", "update", "--set", "cluster=Kept Mission", agent="mc")
    repo.git("add", "-f", ".grid/STATE.md")
    repo.git("commit", "-q", "-m", "track state", env={"GRIDGIT_SKIP": "1"})
    kept = (repo.grid / "STATE.md").read_text("utf-8")
    (repo.grid / "STATE.md").unlink()
    (repo.path / ".git" / "gridgit" / "journal").unlink()  # no write journal (an older gridgit's clone)
    out = repo.gridgit("doctor", "--repair").stdout
    assert "STATE.md: restored from HEAD:.grid/STATE.md" in out and (repo.grid / "STATE.md").read_text("utf-8") == kept


def test_every_missing_or_wrong_kind_file_is_named_and_comes_back(repo: Repo) -> None:
    """issue 31.6: `validate` passed and `doctor --repair` said "exists: nothing to repair" for a directory named
    STATE.md; LEARNINGS.md, config.json, the current phase folder and an archive could go unnoticed."""
    repo.gridgit("write", "-c", "gotcha", "-t", "auth", "--content", "Gotcha: x", agent="executor-001")
    repo.gridgit("phase", "complete", "01-foundation", agent="mc")
    repo.gridgit("write", "-c", "discovery", "-t", "db", "--content", "Found: y", agent="executor-001")
    repo.gridgit("snapshot")
    grid = repo.grid
    kept = {rel: (grid / rel).read_bytes() for rel in ("STATE.md", "LEARNINGS.md", "phases/01-foundation/scratchpad_archived.md", "phases/02-core/scratchpad.md")}  # fmt: skip
    for rel in ("STATE.md", "LEARNINGS.md"):
        (grid / rel).unlink()
        (grid / rel / "sub").mkdir(parents=True)
        (grid / rel / "sub" / "keep").write_text("x")
    (grid / "config.json").unlink()
    (grid / "phases" / "01-foundation" / "scratchpad_archived.md").unlink()
    shutil.rmtree(grid / "phases" / "02-core")
    named = {
        ".grid/STATE.md": "is a directory where a file should be",
        ".grid/LEARNINGS.md": "is a directory where a file should be",
        ".grid/config.json": "missing",
        ".grid/phases/01-foundation/scratchpad_archived.md": "missing",
    }  # and the current phase's folder, which only STATE.md knows: its scratchpad is named by the grid history
    validate = repo.gridgit("validate", check=False)
    assert validate.returncode == 1
    assert sorted(validate.stdout.splitlines()) == sorted(
        f"{p}: {m} (fix: gridgit doctor --repair)" for p, m in named.items()
    )
    fails = _fails(repo)
    assert {f["message"]: f["fix"] for f in fails if f["check"] == "layout"} == {
        f"{p}: {m}": "gridgit doctor --repair" for p, m in named.items()
    }
    damage = next(f for f in fails if f["check"] == "damage")
    assert damage["details"] == [
        ".grid/phases/02-core/scratchpad.md: missing; its last version is kept on the grid ref"
    ]
    _apply_fixes(repo)
    assert _fails(repo) == [] and repo.gridgit("validate").returncode == 0
    assert {rel: (grid / rel).read_bytes() for rel in kept} == kept  # each from the grid ref, as it was
    aside = list((repo.path / ".git" / "gridgit" / "aside").rglob("keep"))
    assert sorted(p.parent.parent.name for p in aside) == ["LEARNINGS.md", "STATE.md"]  # moved aside, not deleted


def test_an_archive_git_has_no_copy_of_is_reported_not_invented(repo: Repo) -> None:
    repo.gridgit("write", "-c", "gotcha", "-t", "auth", "--content", "Gotcha: x", agent="executor-001")
    repo.gridgit("archive", "--phase", "01-foundation", agent="mc")
    (repo.grid / "phases" / "01-foundation" / "scratchpad_archived.md").unlink()
    (repo.path / ".git" / "gridgit" / "journal").unlink()  # no write journal (an older gridgit's clone)
    refused = repo.gridgit("doctor", "--repair", check=False)
    assert refused.returncode == 1
    assert (
        refused.stdout == ".grid/phases/01-foundation/scratchpad_archived.md: not restored "
        "(the grid history holds no valid copy of it to restore from)\n"
    )
    assert not (repo.grid / "phases" / "01-foundation" / "scratchpad_archived.md").exists()


def test_a_deleted_current_phase_folder_is_named_and_made_afresh(repo: Repo) -> None:
    shutil.rmtree(repo.grid / "phases" / "01-foundation")
    (repo.path / ".git" / "gridgit" / "journal").unlink()  # no write journal (an older gridgit's clone)
    validate = repo.gridgit("validate", check=False)
    assert (validate.returncode, validate.stdout) == (
        1,
        ".grid/phases/01-foundation/: missing (fix: gridgit doctor --repair)\n",
    )
    assert repo.gridgit("doctor", "--repair").stdout.splitlines() == [
        ".grid/phases/01-foundation: created",
        ".grid/phases/01-foundation/scratchpad.md: made afresh, empty (no copy in the grid history)",
    ]
    assert repo.gridgit("validate").returncode == 0
    assert "phase_name: Foundation" in (repo.grid / "phases" / "01-foundation" / "scratchpad.md").read_text("utf-8")


def test_a_position_edited_to_an_unknown_phase_is_named_and_repaired_from_history(repo: Repo) -> None:
    repo.gridgit("write", "-c", "discovery", "-t", "auth", "--content", "Found: x", agent="executor-001")
    repo.gridgit("snapshot")
    state = repo.grid / "STATE.md"
    state.write_text(state.read_text("utf-8").replace("phase_id: 01-foundation", "phase_id: 09-nowhere"), "utf-8")
    before = repo.snapshot()
    refused = repo.gridgit("write", "-c", "discovery", "-t", "db", "--content", "Found: y", agent="executor-001",
                           check=False)  # fmt: skip
    assert (
        refused.returncode == 7 and "names phase 09-nowhere, which phases.definitions does not define" in refused.stderr
    )
    assert "`gridgit doctor --repair`" in refused.stderr and repo.snapshot() == before
    assert not (repo.grid / "phases" / "09-nowhere").exists()
    invalid = repo.gridgit("validate", check=False)
    assert invalid.returncode == 1 and "position.phase_id names phase 09-nowhere" in invalid.stdout + invalid.stderr
    named = _fails(repo)
    assert {(f["check"], f["fix"]) for f in named} == {("files", "gridgit doctor --repair"),
                                                       ("damage", "gridgit restore --all")}  # fmt: skip
    assert "position.phase_id names phase 09-nowhere" in json.dumps(named)
    _apply_fixes(repo)
    assert repo.gridgit_json("state", "show", "--field", "position.phase_id") == "01-foundation"
    assert _fails(repo) == [] and repo.gridgit("validate").returncode == 0
    repo.gridgit("write", "-c", "discovery", "-t", "db", "--content", "Found: y", agent="executor-001")
