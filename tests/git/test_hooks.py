"""`gridgit hooks install|uninstall|status`: where hooks go, chaining, fail-safe shims."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from gridgit.git import hooks
from tests.conftest import Repo, git

ROOT = Path(__file__).resolve().parents[2]
USER_HOOK = '#!/bin/sh\necho "user hook ran with $*" >> "$(git rev-parse --show-toplevel)/user-hook.log"\nexit 0\n'


def commit(repo: Repo, message: str = "c", env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    name = f"f{len(list(repo.path.glob('f*.txt')))}.txt"
    repo.write(name, "x\n")
    repo.git("add", name)
    return subprocess.run(["git", "commit", "-q", "-m", message], cwd=repo.path, capture_output=True, text=True,
                          env={**os.environ, **(env or {})})  # fmt: skip


def hooks_dir(repo: Repo) -> Path:
    return repo.path / ".git" / "hooks"


def status(repo: Repo) -> dict[str, object]:
    data: dict[str, object] = repo.gridgit_json("hooks", "status")
    return data


def test_reference_shims_match_the_generated_ones() -> None:
    for name in hooks.HOOK_NAMES:
        assert (ROOT / "hooks" / name).read_text(encoding="utf-8") == hooks.shim_text(name, "")
        assert os.access(ROOT / "hooks" / name, os.X_OK)


def test_init_installs_hooks_and_keeps_the_blackboard_out_of_the_branch(repo: Repo) -> None:
    data = status(repo)
    assert all(h["installed"] for h in data["hooks"].values())  # type: ignore[attr-defined]
    assert set(data["hooks"]) >= {"pre-commit", "post-commit", "pre-push", "post-merge", "post-rewrite"}  # type: ignore[arg-type]
    assert (
        data["merge_driver"] is False and data["attributes"] is False
    )  # no merge driver: nothing merges .grid/ in git
    assert not (repo.path / ".gitattributes").exists()
    assert "/.grid/" in (repo.path / ".gitignore").read_text(encoding="utf-8").splitlines()
    assert repo.git("status", "--porcelain") == "?? .gitignore\n"  # .grid/ itself is ignored


def test_init_no_hooks(bare_repo: Repo) -> None:
    bare_repo.gridgit("init", "--no-hooks")
    assert not (hooks_dir(bare_repo) / "pre-commit").exists()
    assert bare_repo.git("config", "--get", "merge.gridgit.driver", check=False) == ""


def test_install_twice_is_install_once(repo: Repo) -> None:
    before = {p.name: p.read_bytes() for p in hooks_dir(repo).iterdir()}
    ignore = (repo.path / ".gitignore").read_bytes()
    data = repo.gridgit_json("hooks", "install")
    assert data["changed"] == []
    assert {p.name: p.read_bytes() for p in hooks_dir(repo).iterdir()} == before
    assert repo.gridgit_json("init")["hooks"] == []
    assert (repo.path / ".gitignore").read_bytes() == ignore


def test_a_shim_from_another_gridgit_version_is_reported_and_rewritten(repo: Repo) -> None:
    shim = hooks_dir(repo) / "post-commit"
    shim.write_text(shim.read_text().replace("runs in the background", "ran in the background"))
    data = repo.gridgit_json("hooks", "status")
    assert data["hooks"]["post-commit"]["current"] is False
    assert data["hooks"]["pre-commit"]["current"] is True
    repo.gridgit("hooks", "install")
    assert repo.gridgit_json("hooks", "status")["hooks"]["post-commit"]["current"] is True


def test_a_shim_of_the_previous_layout_keeps_working_and_doctor_names_the_fix(repo: Repo) -> None:
    # Shims installed before the package had subpackages import gridgit.hookrun.
    shim = hooks_dir(repo) / "pre-commit"
    old = shim.read_text().replace("from gridgit.git.hookrun import main", "from gridgit.hookrun import main")
    assert old != shim.read_text()
    shim.write_text(old)
    repo.write("src/old.py", "x = 1\n")
    repo.git("add", "src/old.py")
    repo.git("commit", "-q", "-m", "old shim", env={"GRID_AGENT_ID": "executor-001"})
    assert any(e["payload"]["path"] == "src/old.py" for e in repo.events("file_modified"))
    doctor = repo.gridgit("doctor", "--json", check=False)
    hooks = next(f for f in json.loads(doctor.stdout)["data"]["findings"] if f["check"] == "hooks")
    assert "gridgit hooks install" in hooks["fix"]


def test_user_hook_is_chained_and_restored(bare_repo: Repo) -> None:
    user = hooks_dir(bare_repo) / "pre-commit"
    user.write_text(USER_HOOK, encoding="utf-8")
    user.chmod(0o755)
    bare_repo.gridgit("init")
    assert (hooks_dir(bare_repo) / "pre-commit.pre-gridgit").read_text(encoding="utf-8") == USER_HOOK
    assert status(bare_repo)["hooks"]["pre-commit"]["chained"] == "pre-commit.pre-gridgit"  # type: ignore[index]
    assert commit(bare_repo).returncode == 0
    assert "user hook ran" in (bare_repo.path / "user-hook.log").read_text(encoding="utf-8")
    assert bare_repo.events("file_modified")  # gridgit ran too
    bare_repo.gridgit("hooks", "uninstall")
    assert user.read_text(encoding="utf-8") == USER_HOOK
    assert sorted(p.name for p in hooks_dir(bare_repo).iterdir() if not p.name.endswith(".sample")) == ["pre-commit"]
    assert not (bare_repo.path / ".gitattributes").exists()
    assert bare_repo.git("config", "--get", "merge.gridgit.driver", check=False) == ""


def _user_hook(folder: Path, name: str, tag: str) -> None:
    path = folder / name
    path.write_text(
        f'#!/bin/sh\necho "{tag} $0" >> "$(git rev-parse --show-toplevel)/user-hook.log"\n', encoding="utf-8"
    )
    path.chmod(0o755)


def _ran(repo: Repo) -> list[str]:
    log = repo.path / "user-hook.log"
    text = log.read_text(encoding="utf-8") if log.exists() else ""
    log.unlink(missing_ok=True)
    return [line.split()[0] for line in text.splitlines()]


def test_reinstall_chains_the_hook_the_user_put_there_last(bare_repo: Repo) -> None:
    """User hook A, init, the user replaces the shim with B, `hooks install`: B runs, A is kept, not run."""
    folder = hooks_dir(bare_repo)
    for name in hooks.HOOK_NAMES:
        _user_hook(folder, name, "A")
    bare_repo.gridgit("init")
    for name in hooks.HOOK_NAMES:
        _user_hook(folder, name, "B")
    first = bare_repo.gridgit_json("hooks", "install")
    assert bare_repo.gridgit_json("hooks", "install")["changed"] == []  # installing twice is installing once
    for name in hooks.HOOK_NAMES:
        assert f"kept {name} as {name}.pre-gridgit" in first["changed"]
        assert hooks.is_shim(folder / name)
        assert "B" in (folder / f"{name}.pre-gridgit").read_text(encoding="utf-8")
        assert "A" in (folder / f"{name}.pre-gridgit.1").read_text(encoding="utf-8")
        # The shim runs the chained hook first; GRIDGIT_SKIP leaves gridgit's own part out.
        shim = subprocess.run([str(folder / name)], cwd=bare_repo.path, input="", capture_output=True, text=True,
                              env={**os.environ, "GRIDGIT_SKIP": "1"})  # fmt: skip
        assert shim.returncode == 0, shim.stderr
        assert _ran(bare_repo) == ["B"], name
    bare_repo.gridgit("hooks", "uninstall")
    for name in hooks.HOOK_NAMES:
        assert "B" in (folder / name).read_text(encoding="utf-8")  # the latest user hook is back
        assert "A" in (folder / f"{name}.pre-gridgit.1").read_text(encoding="utf-8")  # the earlier one kept
        assert not (folder / f"{name}.pre-gridgit").exists()


def test_failing_user_hook_refuses_with_its_exit_code(repo: Repo) -> None:
    repo.gridgit("hooks", "uninstall")
    user = hooks_dir(repo) / "pre-commit"
    user.write_text("#!/bin/sh\necho 'user says no' >&2\nexit 3\n", encoding="utf-8")
    user.chmod(0o755)
    repo.gridgit("hooks", "install")
    result = commit(repo)
    assert result.returncode == 1  # git reports any hook failure as 1; the hook's own code is 3
    assert "user says no" in result.stderr
    proc = subprocess.run([str(hooks_dir(repo) / "pre-commit")], cwd=repo.path, capture_output=True, text=True)
    assert proc.returncode == 3


def test_post_rewrite_stdin_reaches_both(repo: Repo) -> None:
    repo.gridgit("hooks", "uninstall")
    user = hooks_dir(repo) / "post-rewrite"
    user.write_text('#!/bin/sh\ncat > "$(git rev-parse --show-toplevel)/rewrite.log"\n', encoding="utf-8")
    user.chmod(0o755)
    repo.gridgit("hooks", "install")
    assert commit(repo).returncode == 0
    old = repo.git("rev-parse", "HEAD").strip()
    repo.git("commit", "-q", "--amend", "-m", "amended")
    new = repo.git("rev-parse", "HEAD").strip()
    assert (repo.path / "rewrite.log").read_text(encoding="utf-8") == f"{old} {new}\n"


def test_core_hooks_path(bare_repo: Repo) -> None:
    custom = bare_repo.path / "my-hooks"
    bare_repo.git("config", "core.hooksPath", "my-hooks")
    bare_repo.gridgit("init")
    assert (custom / "pre-commit").exists()
    assert status(bare_repo)["hooks_dir"] == str(custom)
    assert commit(bare_repo).returncode == 0
    assert bare_repo.events("commit_recorded")


def test_linked_worktree_shares_hooks_and_blackboard(repo: Repo, tmp_path: Path) -> None:
    repo.git("add", "-A")
    repo.git("commit", "-q", "-m", "grid")
    worktree = tmp_path / "wt"
    repo.git("worktree", "add", "-q", "-b", "agent-2", str(worktree))
    linked = Repo(worktree)
    assert status(linked)["hooks"]["pre-commit"]["installed"]  # type: ignore[index]
    result = commit(linked, env={"GRID_AGENT_ID": "executor-002"})
    assert result.returncode == 0, result.stderr
    recorded = repo.events("commit_recorded")[-1]["payload"]
    assert recorded["agent"] == "executor-002"
    assert recorded["commit"] == linked.git("rev-parse", "--short", "HEAD").strip()


def _precommit_config(repo: Repo) -> None:
    repo.write(".pre-commit-config.yaml", "repos:\n- repo: local\n  hooks:\n  - id: noop\n    name: noop\n"
               "    entry: 'true'\n    language: system\n    always_run: true\n")  # fmt: skip
    repo.git("add", ".pre-commit-config.yaml")


def _pre_commit(repo: Repo, *args: str) -> None:
    import sys

    subprocess.run([sys.executable, "-m", "pre_commit", *args], cwd=repo.path, check=True, capture_output=True)


@pytest.mark.parametrize("order", ["pre-commit first", "gridgit first"])
def test_pre_commit_framework_coexists(bare_repo: Repo, order: str) -> None:
    pytest.importorskip("pre_commit")
    _precommit_config(bare_repo)
    if order == "pre-commit first":
        _pre_commit(bare_repo, "install")
        bare_repo.gridgit("init")
    else:
        bare_repo.gridgit("init")
        _pre_commit(bare_repo, "install")
    assert status(bare_repo)["hooks"]["pre-commit"]["installed"]  # type: ignore[index]
    result = commit(bare_repo)
    assert result.returncode == 0, result.stderr
    assert "noop" in result.stdout + result.stderr
    assert bare_repo.events("commit_recorded")
    bare_repo.gridgit("hooks", "uninstall")
    assert not hooks.is_shim(hooks_dir(bare_repo) / "pre-commit")
    result = commit(bare_repo)
    assert result.returncode == 0 and "noop" in result.stdout + result.stderr


def test_gridgit_skip(repo: Repo) -> None:
    assert commit(repo, env={"GRIDGIT_SKIP": "1"}).returncode == 0
    assert repo.events("commit_recorded") == []


def test_missing_interpreter_warns_and_commits(repo: Repo) -> None:
    hooks.install(_layout(repo), python="/nonexistent/python3")
    result = commit(repo, env={"PATH": "/usr/bin:/bin", "PYTHONPATH": "", "PYTHONNOUSERSITE": "1"})
    assert result.returncode == 0
    assert "gridgit:" in result.stderr and "skipped" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 2  # one line per hook (pre-commit, post-commit)


def test_crash_warns_and_commits(repo: Repo) -> None:
    events_dir = repo.grid / "events"
    for child in events_dir.iterdir():
        child.unlink() if child.is_file() else None
    events_dir.rmdir()
    events_dir.write_text("not a folder\n", encoding="utf-8")  # every event write now fails
    result = commit(repo)
    assert result.returncode == 0
    assert "hook failed" in result.stderr and "git proceeds" in result.stderr


def test_time_budget_warns_and_commits(repo: Repo) -> None:
    config = repo.grid / "config.json"
    data = json.loads(config.read_text(encoding="utf-8"))
    data["hooks"]["timeout_seconds"] = 0.001
    config.write_text(json.dumps(data), encoding="utf-8")
    result = commit(repo)
    assert result.returncode == 0
    assert "hooks.timeout_seconds" in result.stderr


def test_fresh_clone_init_builds_the_blackboard_from_the_grid_ref(repo: Repo, tmp_path: Path) -> None:
    repo.gridgit("write", "-c", "decision", "-t", "db", "--content", "postgres", agent="executor-001")
    repo.git("add", "-A")
    repo.git("commit", "-q", "-m", "ignore the blackboard")  # post-commit snapshots it onto refs/heads/grid
    clone = Repo(tmp_path / "clone")
    git(tmp_path, "clone", "-q", str(repo.path), str(clone.path))
    assert not clone.grid.exists()
    result = clone.gridgit_json("init")
    assert result["changed"] is True and result["hooks"]
    shared = {k: v for k, v in repo.snapshot().items() if not k.startswith("events/")}
    assert {k: v for k, v in clone.snapshot().items() if not k.startswith("events/")} == shared
    assert clone.git("status", "--porcelain") == ""
    assert clone.git("rev-parse", "grid") == repo.git("rev-parse", "grid")
    assert clone.gridgit_json("init")["changed"] is False  # twice is once


def _layout(repo: Repo) -> object:
    from gridgit.store.layout import Layout

    return Layout.find(repo.path)


@pytest.mark.parametrize("args", [["hooks"], ["hooks", "install"], ["hooks", "uninstall"], ["hooks", "status"],
                                  ["hook"], ["validate"], ["merge-driver"]])  # fmt: skip
def test_help(repo: Repo, args: list[str]) -> None:
    proc = repo.gridgit(*args, "--help")
    assert proc.returncode == 0 and "Usage:" in proc.stdout


def test_post_commit_runs_in_the_background_without_a_trailer(repo: Repo, monkeypatch: pytest.MonkeyPatch) -> None:
    import time

    repo.git("add", "-A")
    repo.git("commit", "-q", "-m", "ignore the blackboard")
    monkeypatch.delenv("GRIDGIT_HOOK_SYNC")
    assert commit(repo, "background").returncode == 0
    head = repo.git("rev-parse", "--short", "HEAD").strip()
    deadline = time.monotonic() + 30
    while not any(e["payload"]["commit"] == head for e in repo.events("commit_recorded")):
        assert time.monotonic() < deadline, "commit_recorded never arrived"
        time.sleep(0.05)
    assert repo.git("status", "--porcelain") == ""


HUSKY_HOOK = '#!/usr/bin/env sh\necho "husky ran" >> "$(git rev-parse --show-toplevel)/husky.log"\n'


def test_husky_folder_gets_portable_calls_and_no_machine_path(bare_repo: Repo) -> None:
    """core.hooksPath in the tracked tree (husky v8's .husky/): nothing committed names this machine."""
    husky = bare_repo.path / ".husky"
    husky.mkdir()
    (husky / "pre-commit").write_text(HUSKY_HOOK, encoding="utf-8")
    (husky / "pre-commit").chmod(0o755)
    bare_repo.git("config", "core.hooksPath", ".husky")
    bare_repo.git("add", ".husky")
    bare_repo.git("commit", "-q", "-m", "husky")
    bare_repo.gridgit("init")
    report = status(bare_repo)
    assert report["local_shims"] == str(bare_repo.path / ".git" / "gridgit" / "hooks")
    assert all(h["installed"] for h in report["hooks"].values())  # type: ignore[attr-defined]
    assert sorted(p.name for p in husky.iterdir()) == sorted(hooks.HOOK_NAMES)  # no shim, no kept hook
    assert (husky / "pre-commit").read_text(encoding="utf-8").startswith(HUSKY_HOOK)
    bare_repo.git("add", "-A")
    assert commit(bare_repo, env={"GRID_AGENT_ID": "executor-001"}).returncode == 0
    committed = bare_repo.git(
        "grep", "-I", "-l", "-F", str(Path(sys.executable).parent), "HEAD", "--", ".husky", check=False
    )
    assert committed == ""
    assert "husky ran" in (bare_repo.path / "husky.log").read_text(encoding="utf-8")
    assert bare_repo.events("file_modified") and bare_repo.events("commit_recorded")
    # The call passes a refusal on: the commit stops.
    local_pre_commit = bare_repo.path / ".git" / "gridgit" / "hooks" / "pre-commit"
    kept = local_pre_commit.read_text(encoding="utf-8")
    local_pre_commit.write_text("#!/bin/sh\nexit 7\n", encoding="utf-8")
    assert commit(bare_repo).returncode != 0
    local_pre_commit.write_text(kept, encoding="utf-8")
    bare_repo.git("reset", "-q")
    # A teammate's clone without gridgit: the committed calls do nothing, the commit goes on.
    shutil.rmtree(bare_repo.path / ".git" / "gridgit")
    before = len(bare_repo.events())
    result = commit(bare_repo)
    assert result.returncode == 0 and result.stderr == ""
    assert len(bare_repo.events()) == before
    bare_repo.gridgit("hooks", "install")
    assert bare_repo.gridgit_json("hooks", "install")["changed"] == []
    bare_repo.gridgit("hooks", "uninstall")
    assert sorted(p.name for p in husky.iterdir()) == ["pre-commit"]
    assert (husky / "pre-commit").read_text(encoding="utf-8") == HUSKY_HOOK
    assert not (bare_repo.path / ".git" / "gridgit" / "hooks" / "pre-commit").exists()


def test_an_ignored_hooks_folder_in_the_tree_is_chained_as_usual(bare_repo: Repo) -> None:
    """husky v9 points core.hooksPath at .husky/_, which ignores itself: shims go there, as in .git/hooks."""
    generated = bare_repo.path / ".husky" / "_"
    generated.mkdir(parents=True)
    (generated / ".gitignore").write_text("*\n", encoding="utf-8")
    bare_repo.git("config", "core.hooksPath", ".husky/_")
    bare_repo.gridgit("init")
    assert status(bare_repo)["local_shims"] is None
    assert hooks.is_shim(generated / "pre-commit")
