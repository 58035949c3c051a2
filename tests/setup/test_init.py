"""`gridgit init`: a fresh .grid/ from the packaged templates, never overwriting data."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path

from gridgit import Blackboard
from tests.conftest import Repo


def test_init_creates_the_blackboard(bare_repo: Repo) -> None:
    data = bare_repo.gridgit_json("init", "--mission", "Auth Rewrite", "--phase", "01-foundation:Foundation",
                                  "--phase", "02-core")  # fmt: skip
    assert data["changed"] is True
    grid = bare_repo.grid
    for rel in ("STATE.md", "LEARNINGS.md", "config.json", ".gitignore", "events/current.jsonl",
                "phases/01-foundation/scratchpad.md"):  # fmt: skip
        assert (grid / rel).is_file(), rel
    state = Blackboard(bare_repo.path).state()
    assert state["cluster"] == "Auth Rewrite"
    assert state["mission_id"].startswith("mission-") and state["mission_id"].endswith("-auth-rewrite")
    assert state["session_id"].startswith("sess-")
    assert [d["id"] for d in state["phases"]["definitions"]] == ["01-foundation", "02-core"]
    assert state["phases"]["definitions"][1]["name"] == "Core"
    assert state["position"]["phase_id"] == "01-foundation"
    assert json.loads((grid / "config.json").read_text())["conflicts"]["window_minutes"] == 5
    assert bare_repo.events("grid_initialised")


def test_the_code_branch_ignores_the_blackboard_and_snapshots_leave_machine_local_files_out(repo: Repo) -> None:
    repo.write("src/a.py", "x = 1\n")
    (repo.grid / ".locks" / "state.lock").write_text("")
    (repo.grid / ".daemon").mkdir()
    (repo.grid / ".daemon" / "daemon.pid").write_text("1")
    repo.git("add", "-A")
    assert sorted(repo.git("diff", "--cached", "--name-only").split()) == [".gitignore", "src/a.py"]
    repo.git("commit", "-q", "-m", "a")
    snapshot = repo.git("ls-tree", "-r", "--name-only", "grid").split()
    assert "STATE.md" in snapshot and "phases/01-foundation/scratchpad.md" in snapshot
    assert not [p for p in snapshot if p.endswith(".lock") or ".daemon" in p or p.startswith("events/")]


def test_init_from_a_subfolder_uses_the_repository_root(bare_repo: Repo) -> None:
    sub = bare_repo.path / "src" / "pkg"
    sub.mkdir(parents=True)
    bare_repo.gridgit("init", cwd=sub)
    assert (bare_repo.path / ".grid" / "STATE.md").is_file()
    assert not (sub / ".grid").exists()


def test_reinit_changes_nothing_and_says_so(repo: Repo) -> None:
    before = repo.snapshot()
    proc = repo.gridgit("init", "--mission", "Other")
    assert "already initialised, nothing changed" in proc.stdout
    assert repo.snapshot() == before


def test_force_recreates_only_missing_pieces(repo: Repo) -> None:
    Blackboard(repo.path).update_state({"status": "in_progress"}, agent="mc")
    (repo.grid / "LEARNINGS.md").unlink()
    state_before = (repo.grid / "STATE.md").read_bytes()
    data = repo.gridgit_json("init", "--force")
    assert data["created"] == ["LEARNINGS.md"]
    assert (repo.grid / "STATE.md").read_bytes() == state_before


def test_linked_worktree_init_uses_the_shared_grid(repo: Repo, tmp_path: Path) -> None:
    wt = tmp_path / "wt"
    repo.git("worktree", "add", "-q", "-b", "agent-1", str(wt))
    proc = repo.gridgit("init", cwd=wt)
    assert "already initialised" in proc.stdout
    assert not (wt / ".grid" / "STATE.md").exists()
    assert Blackboard(wt).state()["cluster"] == "Test Mission"


def test_outside_a_git_repository_is_a_clear_error(tmp_path: Path, repo: Repo) -> None:
    nowhere = tmp_path / "plain"
    nowhere.mkdir()
    proc = repo.gridgit("init", cwd=nowhere, check=False)
    assert proc.returncode == 1
    assert proc.stderr.strip().startswith("gridgit: error: not a git repository")
    assert not (nowhere / ".grid").exists()


def test_bad_phase_option_changes_nothing(bare_repo: Repo) -> None:
    for bad in ("../x", "01-Foo", "/tmp/abs"):
        proc = bare_repo.gridgit("init", "--phase", bad, check=False)
        assert proc.returncode == 1
        assert "invalid phase id" in proc.stderr
    assert not bare_repo.grid.exists()


def test_wheel_ships_the_templates(tmp_path: Path) -> None:
    root = Path(__file__).resolve().parents[2]
    out = tmp_path / "wheel"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(root)],
                   check=True, capture_output=True)  # fmt: skip
    (wheel,) = out.glob("gridgit-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    for name in ("STATE.md", "LEARNINGS.md", "config.json", "gitignore"):
        assert f"gridgit/templates/{name}" in names


def test_events_commit_puts_the_event_log_into_the_snapshots(repo: Repo) -> None:
    config = repo.grid / "config.json"
    data = json.loads(config.read_text())
    data["events"]["commit"] = True
    config.write_text(json.dumps(data))
    (repo.grid / ".gitignore").write_text((repo.grid / ".gitignore").read_text() + "my-notes/\n")
    repo.gridgit("hooks", "install")
    repo.gridgit("events", "poll", "--agent", "executor-001")  # a cursor file: machine-local still
    repo.gridgit("snapshot")
    snapshot = repo.git("ls-tree", "-r", "--name-only", "grid").split()
    assert "events/current.jsonl" in snapshot
    assert not [p for p in snapshot if "latest.json" in p or "cursors" in p]
    # The user's own lines are kept, machine-local: .grid/.gitignore is gridgit's own (issue 39).
    assert "my-notes/" not in (repo.grid / ".gitignore").read_text()
    assert (repo.path / ".git/gridgit/grid-exclude").read_text() == "my-notes/\n"
    assert not (repo.path / ".gitattributes").exists()  # no merge driver: sync merges the log by event id
    assert repo.git("config", "--get", "merge.autoStash", check=False) == ""  # nothing for git to stash
    data["events"]["commit"] = False
    config.write_text(json.dumps(data))
    repo.gridgit("hooks", "install")
    assert "\nevents/\n" in (repo.grid / ".gitignore").read_text()
    repo.gridgit("snapshot")
    assert not [p for p in repo.git("ls-tree", "-r", "--name-only", "grid").split() if p.startswith("events/")]
