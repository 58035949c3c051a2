"""issue 38.1: recovery never depends on what broke. One bad hand edit of config.json locked the user out of
everything: `doctor` crashed (KeyError: 'history'), and `restore`, `doctor --repair` and `init --force` refused
with the parse error; only `git show grid:config.json > .grid/config.json` brought it back."""

from __future__ import annotations

import json

from tests.conftest import Repo

BROKEN = '{"conflicts": {"window_minutes": 5,\n'


def _doctor(repo: Repo) -> tuple[int, dict[str, dict[str, str]]]:
    proc = repo.gridgit("doctor", "--json", check=False)
    findings = json.loads(proc.stdout)["data"]["findings"]
    return proc.returncode, {f["check"]: f for f in findings}


def test_doctor_names_a_config_that_does_not_parse_and_runs_every_other_check(repo: Repo) -> None:
    (repo.grid / "config.json").write_text(BROKEN, "utf-8")
    code, found = _doctor(repo)
    assert code == 1
    assert found["config"]["level"] == "fail" and found["config"]["fix"] == "gridgit doctor --repair"
    assert "config.json line 2" in found["config"]["message"]
    assert not any("the check itself failed" in f["message"] for f in found.values())
    assert found["post-commit"]["level"] == "ok" and found["limits"]["level"] == "ok"  # ran, on the defaults


def test_every_other_command_refuses_and_names_the_fix(repo: Repo) -> None:
    (repo.grid / "config.json").write_text(BROKEN, "utf-8")
    refused = repo.gridgit("status", check=False)
    assert refused.returncode == 1
    assert refused.stderr.startswith("gridgit: error: ") and "config.json line 2" in refused.stderr
    assert "gridgit doctor --repair" in refused.stderr


def test_a_newcomer_who_breaks_config_recovers_with_doctor_repair(repo: Repo) -> None:
    repo.gridgit("snapshot")
    good = (repo.grid / "config.json").read_bytes()
    (repo.grid / "config.json").write_text(BROKEN, "utf-8")
    fixed = repo.gridgit("doctor", "--repair")
    assert fixed.stdout.startswith(".grid/config.json: restored from grid commit ")
    assert (repo.grid / "config.json").read_bytes() == good
    kept = list((repo.path / ".git" / "gridgit" / "restored").rglob("config.json"))
    assert [p.read_text("utf-8") for p in kept] == [BROKEN]  # the broken copy is kept
    assert _doctor(repo)[1]["config"]["level"] == "ok"


def test_restore_and_init_force_work_with_a_broken_config(repo: Repo) -> None:
    repo.gridgit("snapshot")
    good = (repo.grid / "config.json").read_bytes()
    for command in (["restore", "config.json"], ["restore", "--all"]):
        (repo.grid / "config.json").write_text(BROKEN, "utf-8")
        assert "config.json: restored" in repo.gridgit(*command).stdout
        assert (repo.grid / "config.json").read_bytes() == good
    (repo.grid / "config.json").write_text(BROKEN, "utf-8")
    (repo.grid / "LEARNINGS.md").unlink()
    assert "LEARNINGS.md" in repo.gridgit("init", "--force").stdout
    assert (repo.grid / "config.json").read_text("utf-8") == BROKEN  # init --force never overwrites


def test_without_history_the_config_is_rewritten_from_the_defaults_and_the_broken_one_kept(bare_repo: Repo) -> None:
    bare_repo.gridgit("init")  # no snapshot yet: the grid ref does not exist
    (bare_repo.grid / "config.json").write_text(BROKEN, "utf-8")
    lines = bare_repo.gridgit("doctor", "--repair").stdout.splitlines()
    assert lines[0].startswith(".grid/config.json: moved aside to ") and lines[0].endswith("/config.json")
    assert lines[1] == ".grid/config.json: made afresh from its template (no copy in the grid history)"
    aside = list((bare_repo.path / ".git" / "gridgit" / "aside").rglob("config.json"))
    assert [p.read_text("utf-8") for p in aside] == [BROKEN]
    assert bare_repo.gridgit("status").returncode == 0


def test_doctor_repair_on_a_healthy_board_is_not_an_error(repo: Repo) -> None:
    repo.gridgit("snapshot")
    done = repo.gridgit("doctor", "--repair", check=False)
    assert (done.returncode, done.stdout) == (0, "nothing to repair: every .grid/ file is as its history has it\n")
    assert json.loads(repo.gridgit("doctor", "--repair", "--json").stdout)["data"] == {"repaired": []}


def test_restoring_a_path_nothing_knows_is_not_found(repo: Repo) -> None:
    repo.gridgit("snapshot")
    before = repo.snapshot()
    refused = repo.gridgit("restore", "phases/09-nope", check=False)
    assert refused.returncode == 7 and "phases/09-nope: not in the grid history nor on disk" in refused.stderr
    assert repo.snapshot() == before
