"""`gridgit doctor`: healthy and broken repositories, each finding with the command that fixes it."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

from tests.conftest import Repo, fake_git, lock_holder, wait_for


def doctor(repo: Repo, cwd: Path | None = None) -> tuple[int, dict[str, Any], str]:
    """(exit code, JSON data, human text) of `gridgit doctor`."""
    as_json = repo.gridgit("doctor", "--json", check=False, cwd=cwd)
    text = repo.gridgit("doctor", check=False, cwd=cwd)
    assert as_json.returncode == text.returncode
    return as_json.returncode, json.loads(as_json.stdout)["data"], text.stdout


def finding(data: dict[str, Any], check: str) -> dict[str, Any]:
    return next(f for f in data["findings"] if f["check"] == check)


def test_healthy_repository(repo: Repo) -> None:
    code, data, text = doctor(repo)
    assert code == 0 and data["healthy"] is True, text
    for check in ("git", "grid", "hooks", "grid-ref", "files", "index", "gitignore", "agents", "locks"):
        assert finding(data, check)["level"] == "ok", check
    assert finding(data, "daemon")["level"] == "info"  # not running is not an error
    assert "all good" in text


def test_outdated_hooks_are_a_warning_with_the_fix(repo: Repo) -> None:
    shim = Path(repo.git("rev-parse", "--git-path", "hooks/pre-commit").strip())
    shim = shim if shim.is_absolute() else repo.path / shim
    shim.write_text(shim.read_text() + "# an older gridgit\n")
    code, data, _ = doctor(repo)
    hooks = finding(data, "hooks")
    assert code == 0 and hooks["level"] == "warn" and hooks["fix"] == "gridgit hooks install"
    assert "pre-commit" in hooks["message"]


def test_missing_hooks_named_with_the_fix(repo: Repo) -> None:
    repo.gridgit("hooks", "uninstall", "--json")
    code, data, text = doctor(repo)
    assert code == 1 and data["healthy"] is False
    assert finding(data, "hooks")["level"] == "fail" and finding(data, "hooks")["fix"] == "gridgit hooks install"
    assert "fix: gridgit hooks install" in text


def test_hook_with_a_dead_interpreter(repo: Repo) -> None:
    hook = Path(repo.git("rev-parse", "--git-path", "hooks/pre-commit").strip())
    hook = hook if hook.is_absolute() else repo.path / hook
    text = hook.read_text()
    line = next(ln for ln in text.splitlines() if ln.startswith("INSTALL_PYTHON="))
    hook.write_text(text.replace(line, "INSTALL_PYTHON=/nonexistent/python3"))
    code, data, _ = doctor(repo)
    hooks = finding(data, "hooks")
    assert code == 1 and hooks["level"] == "fail" and hooks["fix"] == "gridgit hooks install"
    assert any("/nonexistent/python3" in d for d in hooks["details"])


def test_broken_scratchpad(repo: Repo) -> None:
    repo.gridgit("write", "-c", "discovery", "-t", "auth", "--content", "Found: x", agent="executor-001")
    pad = repo.grid / "phases" / "01-foundation" / "scratchpad.md"
    pad.write_text(pad.read_text().replace("| discovery |", "| rumour |"))
    before = repo.snapshot()
    code, data, text = doctor(repo)
    files = finding(data, "files")
    assert code == 1 and files["level"] == "fail"
    assert any("scratchpad.md:" in d and "rumour" in d for d in files["details"])
    assert "FAIL  files" in text
    assert repo.snapshot() == before  # the doctor reports, it never repairs by itself


def test_drifted_index_names_reindex(repo: Repo) -> None:
    repo.gridgit("write", "-c", "discovery", "-t", "auth", "--content", "Found: x", agent="executor-001")
    pad = repo.grid / "phases" / "01-foundation" / "scratchpad.md"
    pad.write_text(pad.read_text().replace("entry_count: 1", "entry_count: 7"))
    code, data, _text = doctor(repo)
    index = finding(data, "index")
    assert code == 1 and index["level"] == "fail"
    assert index["fix"] == "gridgit reindex --phase 01-foundation"
    assert finding(data, "files")["level"] == "ok"  # drift is its own finding
    repo.gridgit("reindex", "--phase", "01-foundation")
    assert doctor(repo)[0] == 0


def test_stale_agent_is_a_warning(repo: Repo) -> None:
    active = [{"id": "executor-007", "task": "gone quiet"}]
    repo.gridgit("state", "update", "--json", json.dumps({"agents": {"active": active}}), agent="mc")
    code, data, _ = doctor(repo)
    agents = finding(data, "agents")
    assert code == 0 and agents["level"] == "warn" and "executor-007" in agents["details"][0]


def test_agents_are_the_registered_ones_not_mere_writers(repo: Repo) -> None:
    repo.gridgit("write", "-c", "discovery", "-t", "x", "--content", "Found: x", agent="executor-009")
    repo.gridgit(
        "agent", "register", "--task", "quiet", agent="executor-001", env={"GRIDGIT_NOW": "2026-01-24T14:00:00Z"}
    )
    agents = finding(doctor(repo)[1], "agents")
    assert agents["level"] == "warn" and agents["details"] == ["executor-001: last heartbeat never"]
    repo.gridgit("heartbeat", "-p", "5", "-a", "back", agent="executor-001")
    assert finding(doctor(repo)[1], "agents")["level"] == "ok"


def test_held_lock_reported_with_its_pid(repo: Repo) -> None:
    with lock_holder(repo.grid / "STATE.md") as holder:
        code, data, _ = doctor(repo)
        locks = finding(data, "locks")
        assert code == 0 and locks["level"] == "info"
        # A writer holds its file's lock and the Blackboard-wide lock (shared) around it.
        assert locks["details"] == [
            f".locks/board.lock: held by pid {holder.pid}",
            f".locks/state.lock: held by pid {holder.pid}",
        ]
    assert finding(doctor(repo)[1], "locks")["level"] == "ok"


def test_leftover_temp_file_and_git_index_lock(repo: Repo) -> None:
    old = time.time() - 3600
    tmp = repo.grid / ".STATE.md.abc123.tmp"
    tmp.write_text("half a file")
    os.utime(tmp, (old, old))
    index_lock = repo.path / ".git" / "index.lock"
    index_lock.write_text("")
    os.utime(index_lock, (old, old))
    code, data, _ = doctor(repo)
    assert code == 1
    temp = finding(data, "temp-files")
    assert temp["level"] == "warn" and temp["fix"] == "rm .grid/.STATE.md.abc123.tmp"
    git_lock = finding(data, "git-lock")
    assert git_lock["level"] == "fail" and git_lock["fix"].startswith(f"rm {index_lock}")


def test_fresh_temp_file_is_an_in_flight_write(repo: Repo) -> None:
    (repo.grid / ".STATE.md.xyz.tmp").write_text("being written")
    code, data, _ = doctor(repo)
    assert code == 0 and not any(f["check"] == "temp-files" for f in data["findings"])


def test_not_initialised(bare_repo: Repo) -> None:
    code, data, text = doctor(bare_repo)
    assert code == 1 and finding(data, "grid")["fix"] == "gridgit init"
    assert "fix: gridgit init" in text


def test_outside_a_git_repository(bare_repo: Repo, tmp_path: Path) -> None:
    elsewhere = tmp_path / "plain"
    elsewhere.mkdir()
    code, data, _ = doctor(bare_repo, cwd=elsewhere)
    assert code == 1 and finding(data, "repository")["fix"] == "git init"
    assert finding(data, "git")["level"] == "ok"


def test_daemon_running_is_ok(repo: Repo) -> None:
    repo.gridgit("daemon", "start")
    try:
        wait_for(lambda: repo.gridgit_json("daemon", "status")["state"] == "running", timeout=30)
        assert finding(doctor(repo)[1], "daemon")["level"] == "ok"
    finally:
        repo.gridgit("daemon", "stop")


def test_help(repo: Repo) -> None:
    out = repo.gridgit("doctor", "--help").stdout
    assert "--json" in out and "hooks" in out


def test_git_versions_named_with_what_needs_them(repo: Repo, tmp_path: Path) -> None:
    def git_finding(version: str) -> dict[str, Any]:
        env = fake_git(tmp_path / version, version)
        proc = repo.gridgit("doctor", "--json", env=env, check=False)
        return next(f for f in json.loads(proc.stdout)["data"]["findings"] if f["check"] == "git")

    (tmp_path / "2.30.2").mkdir()
    (tmp_path / "2.37.1").mkdir()
    old, no_predict = git_finding("2.30.2"), git_finding("2.37.1")
    assert old["level"] == "fail" and "gridgit needs git 2.31+" in old["message"]
    assert no_predict["level"] == "warn" and "`conflicts predict` needs git 2.38+" in no_predict["message"]
