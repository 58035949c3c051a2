"""The hook bodies, driven by real `git commit`, `git merge`, `git pull` and `git rebase`."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from gridgit.git import hookrun
from tests.conftest import Repo, git

SCRATCHPAD = ".grid/phases/01-foundation/scratchpad.md"


def commit(repo: Repo, message: str, *args: str, agent: str | None = None) -> subprocess.CompletedProcess[str]:
    """`git commit` as a user runs it: hooks included; returns the process (no check)."""
    env = {"GRID_AGENT_ID": agent} if agent else {}
    return subprocess.run(
        ["git", "commit", "-q", "-m", message, *args],
        cwd=repo.path,
        capture_output=True,
        text=True,
        env={**_env(), **env},
    )


def _env() -> dict[str, str]:
    import os

    env = dict(os.environ)
    env.pop("GRID_AGENT_ID", None)
    return env


def head(repo: Repo, rev: str = "HEAD") -> str:
    return repo.git("rev-parse", "--short", rev).strip()


def committed(repo: Repo) -> Repo:
    """REPO with `gridgit init`'s .gitignore line committed (.grid/ itself is not a file of the branch)."""
    repo.git("add", "-A")
    assert commit(repo, "ignore the blackboard").returncode == 0
    return repo


def legacy(repo: Repo) -> Repo:
    """REPO as the first design left it: .grid/ tracked by the code branch (not migrated yet)."""
    (repo.path / ".gitignore").unlink()
    repo.git("add", "-A")
    repo.git("commit", "-q", "-m", "track the blackboard", env={"GRIDGIT_SKIP": "1"})
    return repo


def grid_ref(repo: Repo, path: str, rev: str = "grid") -> str:
    """PATH (inside .grid/) as the grid ref's last snapshot holds it."""
    return repo.git("show", f"{rev}:{path}")


def write_entry(repo: Repo, content: str, agent: str = "executor-001", topic: str = "auth") -> None:
    repo.gridgit("write", "-c", "discovery", "-t", topic, "--content", content, agent=agent)


def clean(repo: Repo) -> bool:
    return repo.git("status", "--porcelain") == ""


# ---- pre-commit: validation of the staged .grid files --------------------------------------------


@pytest.mark.parametrize(
    ("path", "old", "new", "needle"),
    [
        (".grid/STATE.md", "status: planning", "status: sleeping", "status"),
        (".grid/STATE.md", "mode: autopilot", "mode: [broken", ""),
        (SCRATCHPAD, "entry_count: 0", "entry_count: 7", "gridgit reindex --phase 01-foundation"),
        (SCRATCHPAD, "phase_id: 01-foundation", "phase_id: 02-core", "does not match its folder"),
        (".grid/config.json", "{", "{{", "invalid JSON"),
    ],
)
def test_pre_commit_refuses_a_broken_staged_file(repo: Repo, path: str, old: str, new: str, needle: str) -> None:
    legacy(repo)
    before = head(repo)
    file = repo.path / path
    file.write_text(file.read_text(encoding="utf-8").replace(old, new, 1), encoding="utf-8")
    repo.git("add", path)
    result = commit(repo, "break it")
    assert result.returncode == 1
    assert f"{path}:" in result.stderr and needle in result.stderr
    assert "commit refused" in result.stderr
    assert head(repo) == before


def test_pre_commit_refuses_a_broken_entry_header_with_its_line(repo: Repo) -> None:
    legacy(repo)
    write_entry(repo, "Found it.")
    file = repo.path / SCRATCHPAD
    text = file.read_text(encoding="utf-8").replace("| discovery |", "| rumour |")
    file.write_text(text, encoding="utf-8")
    line = text.split("\n").index(next(x for x in text.split("\n") if "| rumour |" in x)) + 1
    repo.git("add", "-A", ".grid")
    result = commit(repo, "bad category")
    assert result.returncode == 1
    assert f"{SCRATCHPAD}:{line}: unknown category 'rumour'" in result.stderr


def test_staged_version_is_validated_not_the_work_tree(repo: Repo) -> None:
    legacy(repo)
    state = repo.path / ".grid/STATE.md"
    good = state.read_text(encoding="utf-8").replace("status: planning", "status: in_progress")
    state.write_text(good, encoding="utf-8")
    repo.git("add", ".grid/STATE.md")
    state.write_text(good.replace("status: in_progress", "status: ???"), encoding="utf-8")
    result = commit(repo, "valid staged version")
    assert result.returncode == 0, result.stderr
    assert "status: in_progress" in repo.git("show", "HEAD:.grid/STATE.md")
    assert "status: ???" in state.read_text(encoding="utf-8")  # the user's work is untouched


def test_gridgit_skip_bypasses_validation(repo: Repo) -> None:
    legacy(repo)
    recorded = len(repo.events("commit_recorded"))
    (repo.path / ".grid/config.json").write_text("{", encoding="utf-8")
    repo.git("add", "-A", ".grid")
    result = subprocess.run(
        ["git", "commit", "-q", "-m", "skip"], cwd=repo.path, capture_output=True, text=True,
        env={**_env(), "GRIDGIT_SKIP": "1"},
    )  # fmt: skip
    assert result.returncode == 0
    assert len(repo.events("commit_recorded")) == recorded


# ---- pre-commit: file_modified and conflicts -----------------------------------------------------


def test_file_modified_for_every_staged_path_with_the_agent(repo: Repo) -> None:
    committed(repo)
    repo.write("src/a.py", "a\n")
    repo.write("src/b.py", "b\n")
    repo.git("add", "src")
    assert commit(repo, "two files", agent="executor-007").returncode == 0
    events = [e for e in repo.events("file_modified") if e["payload"]["path"].startswith("src/")]
    assert sorted(e["payload"]["path"] for e in events) == ["src/a.py", "src/b.py"]
    assert {e["payload"]["agent"] for e in events} == {"executor-007"}


def test_agent_from_git_config_else_unknown(repo: Repo) -> None:
    committed(repo)
    repo.write("x.txt", "1\n")
    repo.git("add", "x.txt")
    assert commit(repo, "anonymous").returncode == 0
    assert repo.events("commit_recorded")[-1]["payload"]["agent"] == "unknown"
    repo.git("config", "grid.agent", "executor-042")
    repo.write("x.txt", "2\n")
    repo.git("add", "x.txt")
    assert commit(repo, "configured").returncode == 0
    assert repo.events("commit_recorded")[-1]["payload"]["agent"] == "executor-042"


# ---- post-commit: evidence, resume.last_commit, commit_recorded ------------------------------------


def test_commit_recorded_event(repo: Repo) -> None:
    committed(repo)
    repo.write("src/app.py", "print()\n")
    repo.git("add", "src/app.py")
    assert commit(repo, "app", agent="executor-001").returncode == 0
    event = repo.events("commit_recorded")[-1]["payload"]
    assert event["commit"] == head(repo)
    assert "src/app.py" in event["files"]
    assert event["agent"] == "executor-001"


def test_evidence_is_recorded_at_once_and_snapshotted_and_the_tree_stays_clean(repo: Repo) -> None:
    committed(repo)
    write_entry(repo, "Found: order matters.\n\nEvidence:\n- File: src/mw.py\n- Line: 3-4")
    repo.write("src/mw.py", "mw\n")
    repo.git("add", "-A")
    assert commit(repo, "middleware", agent="executor-001").returncode == 0
    first = head(repo)
    assert clean(repo), repo.git("status", "--porcelain")  # nothing left for git to refuse over
    pad = (repo.path / SCRATCHPAD).read_text(encoding="utf-8")
    assert pad.count(f"- Commit: {first}") == 1 and "- Line: 3-4\n- Commit: " in pad
    assert grid_ref(repo, "phases/01-foundation/scratchpad.md") == pad  # the snapshot after the commit
    assert f"- Last Commit: {first}\n" in grid_ref(repo, "STATE.md")  # resume.last_commit, rendered
    assert repo.git("show", "--name-only", "--format=", "HEAD").split() == ["src/mw.py"]
    assert repo.git("log", "-1", "--format=%P", "grid").strip()  # on top of the snapshot before it
    before = repo.gridgit_json("state", "show", "--field", "progress")
    repo.write("src/mw.py", "mw2\n")
    repo.write("src/b.py", "b\n")
    repo.git("add", "-A")
    assert commit(repo, "touch again").returncode == 0
    assert (repo.path / SCRATCHPAD).read_text(encoding="utf-8").count("- Commit: ") == 1  # never a second one
    after = repo.gridgit_json("state", "show", "--field", "progress")
    assert (after["commits"] - before["commits"], after["files_changed"] - before["files_changed"]) == (1, 2)
    summary = f"- Commits: {after['commits']}\n- Files Changed: {after['files_changed']}\n"
    assert summary in (repo.grid / "STATE.md").read_text(encoding="utf-8")  # the spec's Session Summary
    assert repo.gridgit("validate").returncode == 0


def test_evidence_from_a_linked_worktree_and_into_archived_entries(repo: Repo, tmp_path: Path) -> None:
    committed(repo)
    write_entry(repo, "Evidence:\n- File: lib/w.py")
    write_entry(repo, "Evidence:\n- File: lib/old.py", topic="old")
    repo.gridgit("archive", "--phase", "01-foundation", "--all", agent="mc", check=False)
    archived = repo.grid / "phases/01-foundation/scratchpad_archived.md"
    linked = tmp_path / "linked"
    repo.git("worktree", "add", "-q", str(linked), "-b", "side")
    (linked / "lib").mkdir()
    (linked / "lib/w.py").write_text("w\n", encoding="utf-8")
    (linked / "lib/old.py").write_text("o\n", encoding="utf-8")
    git(linked, "add", "lib")
    proc = subprocess.run(["git", "commit", "-q", "-m", "in a worktree"], cwd=linked, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    sha = git(linked, "rev-parse", "--short", "HEAD").strip()
    everything = (repo.path / SCRATCHPAD).read_text(encoding="utf-8") + (
        archived.read_text(encoding="utf-8") if archived.exists() else ""
    )
    assert everything.count(f"- Commit: {sha}") == 2
    assert not (linked / ".grid").exists()  # one Blackboard, the main worktree's


def test_partial_commit_adds_nothing_else(repo: Repo) -> None:
    committed(repo)
    write_entry(repo, "note")
    repo.write("a.txt", "a\n")
    repo.git("add", "a.txt")
    assert commit(repo, "only a", "--", "a.txt").returncode == 0
    assert repo.git("show", "--name-only", "--format=", "HEAD").split() == ["a.txt"]
    assert repo.git("diff", "--cached", "--name-only") == ""


# ---- never in git's way --------------------------------------------------------------------------


def test_switch_merge_rebase_stash_never_touch_the_blackboard(repo: Repo) -> None:
    committed(repo)
    repo.git("switch", "-q", "-c", "feature")
    write_entry(repo, "feature work\n\nEvidence:\n- File: f.txt", agent="executor-002", topic="feature")
    repo.write("f.txt", "f\n")
    repo.git("add", "-A")
    assert commit(repo, "feature").returncode == 0
    repo.git("switch", "-q", "main")
    write_entry(repo, "main work", agent="executor-001", topic="main")  # the board stays dirty: git does not care
    repo.write("m.txt", "m\n")
    repo.git("add", "-A")
    assert commit(repo, "main").returncode == 0
    repo.write("m.txt", "wip\n")
    repo.git("stash", "-q")
    repo.git("switch", "-q", "feature")
    repo.git("switch", "-q", "main")
    repo.git("stash", "pop", "-q")
    repo.git("commit", "-qam", "wip")
    repo.git("merge", "-q", "--no-edit", "feature")
    assert clean(repo)
    pad = (repo.path / SCRATCHPAD).read_text(encoding="utf-8")
    assert "feature work" in pad and "main work" in pad and "<<<<<<<" not in pad
    repo.git("switch", "-q", "-c", "topic", "HEAD~1")
    repo.write("t.txt", "t\n")
    repo.git("add", "t.txt")
    assert commit(repo, "topic").returncode == 0
    repo.git("rebase", "-q", "main")
    assert clean(repo)
    assert repo.gridgit("validate").returncode == 0
    assert ".grid/" not in repo.git("log", "--all", "--name-only", "--format=", "--", ".grid", "main")


# ---- phase commits -------------------------------------------------------------------------------


def test_phase_trailer_completes_the_phase_once(repo: Repo) -> None:
    committed(repo)
    write_entry(repo, "last finding")
    assert commit(repo, "finish foundation\n\nGrid-Phase-Complete: 01-foundation", "--allow-empty").returncode == 0
    assert len(repo.events("phase_completed")) == 1
    assert repo.gridgit_json("state", "show", "--field", "position.phase_id") == "02-core"
    repo.gridgit("hook", "post-commit")
    assert len(repo.events("phase_completed")) == 1
    assert clean(repo)
    assert "status: complete" in grid_ref(repo, "STATE.md")  # snapshotted after the completion


@pytest.mark.parametrize("sync", ["1", ""])
def test_a_commit_marking_the_phase_complete_in_state_completes_it_once(
    repo: Repo, monkeypatch: pytest.MonkeyPatch, sync: str
) -> None:
    monkeypatch.setenv("GRIDGIT_HOOK_SYNC", sync)  # "" = the shim's own choice of foreground/background
    legacy(repo)  # a repository that still tracks .grid/: STATE.md is in the commit
    write_entry(repo, "last finding")
    state = repo.grid / "STATE.md"  # by hand, in an editor: `state update` is no side door to the phase order
    state.write_text(state.read_text(encoding="utf-8").replace("  completed: []", "  completed: [01-foundation]"))
    repo.git("add", "-A", ".grid")
    assert commit(repo, "mark foundation done by hand").returncode == 0
    archived = repo.grid / "phases" / "01-foundation" / "scratchpad_archived.md"
    assert "last finding" in archived.read_text(encoding="utf-8")
    assert len(repo.events("phase_completed")) == 1
    assert repo.gridgit_json("state", "show", "--field", "position.phase_id") == "02-core"
    repo.gridgit("hook", "post-commit")  # a second run of the same commit changes nothing
    assert len(repo.events("phase_completed")) == 1


def _clone(repo: Repo, tmp_path: Path, name: str) -> Repo:
    path = tmp_path / name
    git(tmp_path, "clone", "-q", str(repo.path), str(path))
    clone = Repo(path)
    clone.gridgit("init")  # a fresh clone: hooks, and .grid/ from the grid ref it fetched
    return clone


def test_phase_trailer_arriving_by_pull_completes_once(repo: Repo, tmp_path: Path) -> None:
    committed(repo)
    other = _clone(repo, tmp_path, "other")
    assert clean(other)
    assert commit(repo, "done\n\nGrid-Phase-Complete: 01-foundation", "--allow-empty").returncode == 0
    other.git("pull", "-q", "--no-rebase", "--no-edit", "origin", "main")
    assert len(other.events("phase_completed")) == 1
    other.git("pull", "-q", "--no-rebase", "--no-edit", "origin", "main")
    assert len(other.events("phase_completed")) == 1


def test_phase_trailer_arriving_by_rebase_completes_once(repo: Repo, tmp_path: Path) -> None:
    committed(repo)
    other = _clone(repo, tmp_path, "other")
    other.write("mine.txt", "m\n")
    other.git("add", "mine.txt")
    assert commit(other, "mine").returncode == 0
    assert commit(repo, "done\n\nGrid-Phase-Complete: 01-foundation", "--allow-empty").returncode == 0
    other.git("pull", "-q", "--rebase", "origin", "main")
    assert len(other.events("phase_completed")) == 1


# ---- bad input -----------------------------------------------------------------------------------


def test_hook_outside_a_repository(tmp_path: Path) -> None:
    outside = tmp_path / "nowhere"
    outside.mkdir()
    proc = subprocess.run([sys.executable, "-m", "gridgit", "hook", "pre-commit"], cwd=outside,
                          capture_output=True, text=True)  # fmt: skip
    assert proc.returncode == 0
    assert "not inside a git repository" in proc.stderr


def test_unknown_hook_name(repo: Repo, capsys: pytest.CaptureFixture[str]) -> None:
    proc = repo.gridgit("hook", "pre-rebase", check=False)  # the command line: a usage error
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1
    assert "'pre-rebase' is not one of 'pre-commit'" in proc.stderr
    assert hookrun.main(["pre-rebase"]) == 1  # what a shim calls
    assert "unknown hook" in capsys.readouterr().err


def test_repo_without_grid_is_a_silent_no_op(bare_repo: Repo) -> None:
    proc = bare_repo.gridgit("hook", "pre-commit")
    assert proc.returncode == 0 and proc.stderr == "" and proc.stdout == ""


def test_detached_head_commit(repo: Repo) -> None:
    committed(repo)
    repo.git("checkout", "-q", "--detach")
    repo.write("d.txt", "d\n")
    repo.git("add", "d.txt")
    assert commit(repo, "detached").returncode == 0
    assert repo.events("commit_recorded")[-1]["payload"]["commit"] == head(repo)


def test_empty_repository(tmp_path: Path) -> None:
    path = tmp_path / "empty"
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    repo = Repo(path)
    repo.gridgit("init")
    repo.git("add", "-A")
    result = commit(repo, "first commit ever")
    assert result.returncode == 0, result.stderr
    assert repo.events("commit_recorded")[-1]["payload"]["commit"] == head(repo)
    (repo.path / ".grid/STATE.md").write_text("---\nstatus: [\n---\n", encoding="utf-8")


def test_hundreds_of_files(repo: Repo) -> None:
    committed(repo)
    for i in range(200):
        repo.write(f"many/f{i:03}.txt", f"{i}\n")
    repo.git("add", "many")
    assert commit(repo, "many files", agent="executor-001").returncode == 0
    paths = {e["payload"]["path"] for e in repo.events("file_modified")}
    assert {f"many/f{i:03}.txt" for i in range(200)} <= paths
    files = repo.events("commit_recorded")[-1]["payload"]["files"]
    assert len([f for f in files if f.startswith("many/")]) == 200


@pytest.mark.parametrize("mode", ["warn", "block"])
def test_write_conflict_on_commit(repo: Repo, mode: str) -> None:
    config = repo.path / ".grid/config.json"
    data = json.loads(config.read_text(encoding="utf-8"))
    data["conflicts"]["on_commit"] = mode
    config.write_text(json.dumps(data), encoding="utf-8")
    committed(repo)
    repo.gridgit("touch", "src/shared.py", agent="executor-001")
    repo.write("src/shared.py", "mine\n")
    repo.git("add", "src/shared.py")
    before = head(repo)
    result = commit(repo, "shared", agent="executor-002")
    assert "write conflict on src/shared.py: executor-001" in result.stderr
    if mode == "warn":
        assert result.returncode == 0 and head(repo) != before
        assert clean(repo)  # the conflict warning gridgit wrote rides with the commit
    else:
        assert result.returncode == 1 and head(repo) == before


def test_the_commit_guard_says_claimed_when_the_conflict_is_a_claim(repo: Repo) -> None:
    committed(repo)
    repo.gridgit("claim", "src/held.py", "--exclusive", agent="executor-001")
    repo.write("src/held.py", "mine\n")
    repo.git("add", "src/held.py")
    said = commit(repo, "held", agent="executor-002").stderr
    assert "write conflict on src/held.py: executor-001 claimed it exclusively (src/held.py, until " in said
    assert "changed it too" not in said  # executor-001 only claimed it (was: "changed it too")


def test_amend_and_rebase_rename_the_commit_in_evidence(repo: Repo) -> None:
    committed(repo)
    write_entry(repo, "Evidence:\n- File: src/x.py")
    repo.write("src/x.py", "1\n")
    repo.git("add", "-A")
    assert commit(repo, "x").returncode == 0
    replaced = head(repo)
    assert f"- Commit: {replaced}" in (repo.path / SCRATCHPAD).read_text(encoding="utf-8")
    repo.write("src/x.py", "2\n")
    repo.git("add", "src/x.py")
    assert commit(repo, "x, amended", "--amend").returncode == 0
    pad = (repo.path / SCRATCHPAD).read_text(encoding="utf-8")
    assert f"- Commit: {head(repo)}" in pad and replaced not in pad
    repo.git("switch", "-q", "-c", "other", "HEAD~1")
    repo.write("y.txt", "y\n")
    repo.git("add", "y.txt")
    assert commit(repo, "y").returncode == 0
    repo.git("switch", "-q", "main")
    repo.git("rebase", "-q", "other")
    assert f"- Commit: {head(repo)}" in (repo.path / SCRATCHPAD).read_text(encoding="utf-8")
    assert clean(repo)


def test_phase_trailer_arriving_by_fast_forward_rebase_pull(repo: Repo, tmp_path: Path) -> None:
    committed(repo)
    other = _clone(repo, tmp_path, "other")
    assert commit(repo, "done\n\nGrid-Phase-Complete: 01-foundation", "--allow-empty").returncode == 0
    other.git("pull", "-q", "--rebase", "origin", "main")
    assert len(other.events("phase_completed")) == 1


def test_cherry_picked_phase_commit_completes_the_phase_once(repo: Repo) -> None:
    committed(repo)
    repo.git("switch", "-q", "-c", "side")
    assert commit(repo, "done\n\nGrid-Phase-Complete: 01-foundation", "--allow-empty").returncode == 0
    assert len(repo.events("phase_completed")) == 1
    repo.git("switch", "-q", "main")
    repo.git("cherry-pick", "--allow-empty", "side")
    # One Blackboard for every branch: the phase a branch completed is complete on main too.
    assert len(repo.events("phase_completed")) == 1
    assert repo.gridgit_json("state", "show", "--field", "position.phase_id") == "02-core"


def test_untracked_blackboard_is_not_added_behind_your_back(repo: Repo) -> None:
    repo.write("a.txt", "a\n")
    repo.git("add", "a.txt")
    assert commit(repo, "a").returncode == 0
    assert repo.git("show", "--name-only", "--format=", "HEAD").split() == ["a.txt"]


def test_checkout_reindexes_and_warns_about_what_changed(repo: Repo) -> None:
    legacy(repo)
    repo.git("switch", "-q", "-c", "hand-edited")
    pad = repo.path / SCRATCHPAD
    pad.write_text(pad.read_text(encoding="utf-8").replace("entry_count: 0", "entry_count: 4"), encoding="utf-8")
    state = repo.path / ".grid/STATE.md"
    state.write_text(state.read_text(encoding="utf-8").replace("status: planning", "status: lost"), encoding="utf-8")
    repo.git("add", "-A")
    skip = subprocess.run(["git", "commit", "-q", "-m", "hand edit"], cwd=repo.path, capture_output=True,
                          text=True, env={**_env(), "GRIDGIT_SKIP": "1"})  # fmt: skip
    assert skip.returncode == 0
    repo.git("switch", "-q", "main")
    switched = subprocess.run(["git", "switch", "hand-edited"], cwd=repo.path, capture_output=True, text=True)
    assert switched.returncode == 0
    assert ".grid/STATE.md" in switched.stderr and "status" in switched.stderr  # reported, not "repaired"
    assert "entry_count: 0" in pad.read_text(encoding="utf-8")  # the stale index was rebuilt
    assert "status: lost" in state.read_text(encoding="utf-8")


_LOADED = """
import sys
from gridgit.git.hookrun import main
code = main(["pre-commit"])
print(" ".join(sorted(m for m in sys.modules if m.startswith(("gridgit.", "yaml", "click", "watchdog")))))
sys.exit(code)
"""


def test_a_code_commit_loads_only_the_pre_commit_body(repo: Repo) -> None:
    """Each hook imports only its own body; a commit of code files needs no click, watchdog or YAML."""
    repo.write("src/x.py", "x = 1\n")
    repo.git("add", "src/x.py")
    proc = subprocess.run(
        [sys.executable, "-c", _LOADED],
        cwd=repo.path,
        capture_output=True,
        text=True,
        env={**_env(), "GRID_AGENT_ID": "executor-001"},
    )
    assert proc.returncode == 0, proc.stderr
    loaded = set(proc.stdout.split())
    assert "gridgit.git.commit_hooks" in loaded and "gridgit.coordination.conflicts" in loaded
    assert not loaded & {"gridgit.git.update_hooks", "click", "watchdog"}


def test_a_file_checkout_starts_no_python(repo: Repo, tmp_path: Path) -> None:
    """post-checkout decides from git's arguments alone; only a branch switch runs gridgit."""
    started = tmp_path / "python-started"
    wrapper = tmp_path / "python"
    wrapper.write_text(f'#!/bin/sh\necho "$@" >> {started}\nexec {sys.executable} "$@"\n')
    wrapper.chmod(0o755)
    shim = repo.path / ".git" / "hooks" / "post-checkout"
    text = shim.read_text()
    shim.write_text("\n".join(f"INSTALL_PYTHON={wrapper}" if line.startswith("INSTALL_PYTHON=") else line
                              for line in text.splitlines()) + "\n")  # fmt: skip
    repo.write("README.md", "changed\n")
    repo.git("checkout", "--", "README.md")  # a file checkout: flag 0
    repo.git("checkout", "-q", "-b", "other")  # a new branch at the same commit: HEAD did not move
    assert not started.exists()
    repo.write("other.txt", "x\n")
    repo.git("add", "other.txt")
    repo.git("commit", "-q", "-m", "other", env={"GRIDGIT_SKIP": "1"})
    repo.git("checkout", "-q", "main")
    assert "post-checkout" in started.read_text()


def test_the_shim_runs_a_phase_trailer_commit_in_the_foreground(repo: Repo, monkeypatch: pytest.MonkeyPatch) -> None:
    """The shim's one git question finds the trailer: git returns after the phase completed."""
    monkeypatch.delenv("GRIDGIT_HOOK_SYNC")
    committed(repo)
    assert commit(repo, "done\n\nGrid-Phase-Complete: 01-foundation", "--allow-empty").returncode == 0
    assert len(repo.events("phase_completed")) == 1  # no waiting: it ran before git returned
