"""doctor's fixes, run: for each check, break the thing, run the fix doctor prints (as printed), and the
check passes. A fix is a command line (`gridgit ...`, `rm ...`, `unset NAME`), never advice to decode."""

from __future__ import annotations

import json
import os
import shlex
import stat
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import gridgit
from gridgit.views.findings import Finding, Report
from tests.conftest import Repo, git


def doctor(repo: Repo, env: dict[str, str]) -> dict[str, Any]:
    proc = repo.gridgit("doctor", "--json", env=env, agent=env.get("GRID_AGENT_ID"), check=False)
    data: dict[str, Any] = json.loads(proc.stdout)["data"]
    assert proc.returncode == (0 if data["healthy"] else 1)
    report = Report(data["root"], data["grid"], [Finding(**f) for f in data["findings"]])
    human = report.render()  # what `gridgit doctor` prints for this report
    for f in data["findings"]:
        if f["level"] == "fail":
            assert f["fix"] and f"fix: {f['fix']}" in human, f  # never "see fix: above" without one
    return data


def run_fix(repo: Repo, fix: str, env: dict[str, str]) -> None:
    """Run FIX as a user would paste it: commands joined by `&&`; `unset NAME` drops NAME from ENV."""
    for command in fix.split(" && "):
        if command.startswith("unset "):
            env.pop(command.split()[1].rstrip(","), None)
            continue
        words = shlex.split(command)
        assert words[0] in ("gridgit", "rm"), f"not a command line: {fix}"
        argv = [sys.executable, "-m", "gridgit", *words[1:]] if words[0] == "gridgit" else words
        full = {**os.environ, **env}
        proc = subprocess.run(argv, cwd=repo.path, capture_output=True, text=True, env=full)
        assert proc.returncode == 0, (command, proc.stderr, proc.stdout)


def hook_path(repo: Repo, name: str = "pre-commit") -> Path:
    path = Path(repo.git("rev-parse", "--git-path", f"hooks/{name}").strip())
    return path if path.is_absolute() else repo.path / path


def not_executable(repo: Repo, env: dict[str, str]) -> None:
    path = hook_path(repo)
    path.chmod(path.stat().st_mode & ~(stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH))


def moved_interpreter(repo: Repo, env: dict[str, str]) -> None:
    path = hook_path(repo)
    text = path.read_text()
    line = next(ln for ln in text.splitlines() if ln.startswith("INSTALL_PYTHON="))
    path.write_text(text.replace(line, "INSTALL_PYTHON=/gone/python3"))


def drifted_index(repo: Repo, env: dict[str, str]) -> None:
    repo.gridgit("write", "-c", "discovery", "-t", "auth", "--content", "Found: x", agent="executor-001")
    pad = repo.grid / "phases" / "01-foundation" / "scratchpad.md"
    pad.write_text(pad.read_text().replace("auth:", "authx:", 1))


def old_temp_file(repo: Repo, env: dict[str, str]) -> None:
    leftover = repo.grid / "phases" / "01-foundation" / "scratchpad.md.12345.tmp"
    leftover.write_text("half")
    os.utime(leftover, (time.time() - 3600, time.time() - 3600))


def old_index_lock(repo: Repo, env: dict[str, str]) -> None:
    lock = repo.path / ".git" / "index.lock"
    lock.write_text("")
    os.utime(lock, (time.time() - 3600, time.time() - 3600))


def outdated_tool_hooks(repo: Repo, env: dict[str, str]) -> None:
    """Claude Code's hooks as an earlier gridgit wrote them: its interpreter's path, since moved."""
    from gridgit.agents import setup
    from gridgit.store.layout import Layout

    setup.install(Layout.find(repo.path), "claude")
    settings = repo.path / ".claude" / "settings.json"
    config = json.loads(settings.read_text())
    for groups in config["hooks"].values():
        for hook in (h for group in groups for h in group["hooks"]):
            event = hook["command"].split("agent-hook claude ")[1].split(";")[0]
            hook["command"] = f'py=/gone/python3; [ -x "$py" ] || py=python3; "$py" -m gridgit.agents claude {event}'
    settings.write_text(json.dumps(config))


def unignored(repo: Repo, env: dict[str, str]) -> None:
    (repo.path / ".gitignore").write_text("")


def foreign_gitignore(repo: Repo, env: dict[str, str]) -> None:
    """A line a peer or a person put into .grid/.gitignore (issue 39: it emptied every clone's history)."""
    with (repo.grid / ".gitignore").open("a", encoding="utf-8") as handle:
        handle.write("phases/\n")


def killed_git_lock(repo: Repo, env: dict[str, str]) -> None:
    """refs/heads/grid.lock as a git killed mid-update leaves it (issue 39: every snapshot stopped there)."""
    lock = repo.path / ".git" / "refs" / "heads" / "grid.lock"
    lock.parent.mkdir(parents=True, exist_ok=True)
    lock.write_text("")
    os.utime(lock, (time.time() - 600, time.time() - 600))


BREAKS: dict[str, tuple[Callable[[Repo, dict[str, str]], None], str]] = {
    "hooks not executable": (not_executable, "hooks"),
    "hooks missing": (lambda repo, env: repo.gridgit("hooks", "uninstall"), "hooks"),
    "hooks' interpreter moved": (moved_interpreter, "hooks"),
    "STATE.md deleted": (lambda repo, env: (repo.grid / "STATE.md").unlink(), "layout"),
    ".grid/.gitignore deleted": (lambda repo, env: (repo.grid / ".gitignore").unlink(), "gitignore"),
    ".grid/.gitignore foreign": (foreign_gitignore, "gitignore"),
    "a killed git's lock of the grid ref": (killed_git_lock, "stale-locks"),
    ".grid/ not ignored": (unignored, "grid-ref"),
    "index drifted": (drifted_index, "index"),
    "temp file left": (old_temp_file, "temp-files"),
    "git's index.lock left": (old_index_lock, "git-lock"),
    "agent tool's hooks outdated": (outdated_tool_hooks, "integrations"),
    "GRIDGIT_NOW not a time": (lambda repo, env: env.update(GRIDGIT_NOW="yesterday"), "environment"),
    "GRID_AGENT_ID without its id": (lambda repo, env: env.update(GRID_AGENT_ID="executor"), "identity"),
}


@pytest.mark.parametrize("broken", sorted(BREAKS))
def test_the_fix_doctor_prints_fixes_it(repo: Repo, broken: str) -> None:
    env: dict[str, str] = {}
    brake, check = BREAKS[broken]
    brake(repo, env)
    found = next(f for f in doctor(repo, env)["findings"] if f["check"] == check)
    assert found["level"] in ("warn", "fail") and found["fix"], found
    run_fix(repo, found["fix"], env)
    after = next((f for f in doctor(repo, env)["findings"] if f["check"] == check), None)
    assert after is None or after["level"] in ("ok", "info"), (found, after)  # some checks speak only of trouble


def test_a_stale_daemon_pid_is_cleaned_by_the_fix(repo: Repo) -> None:
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    (repo.grid / ".daemon").mkdir(exist_ok=True)
    (repo.grid / ".daemon" / "daemon.pid").write_text(dead.stdout)
    found = next(f for f in doctor(repo, {})["findings"] if f["check"] == "daemon")
    assert found["level"] == "warn" and found["fix"] == "gridgit daemon start"
    try:
        run_fix(repo, found["fix"], {})
        assert next(f for f in doctor(repo, {})["findings"] if f["check"] == "daemon")["level"] == "ok"
    finally:
        repo.gridgit("daemon", "stop")


@pytest.fixture
def python_without_mcp(tmp_path: Path) -> str:
    """A real interpreter where gridgit is installed without the mcp extra: this one, without its site-packages
    (-S), given gridgit and its own dependencies only."""
    import click
    import watchdog
    import yaml

    site = tmp_path / "site"
    package = site / "gridgit"
    package.mkdir(parents=True)
    source = Path(gridgit.__file__).parent
    for child in source.iterdir():
        (package / child.name).symlink_to(child)
    (package / "templates").symlink_to(source.parent / "templates")
    for module in (click, yaml, watchdog):
        (site / module.__name__).symlink_to(Path(module.__file__ or "").parent)
    wrapper = tmp_path / "python-without-mcp"
    wrapper.write_text(f'#!/bin/sh\nPYTHONPATH={shlex.quote(str(site))} exec {shlex.quote(sys.executable)} -S "$@"\n')
    wrapper.chmod(0o755)
    probe = subprocess.run([str(wrapper), "-c", "import gridgit.cli.main, importlib.util as u; print(u.find_spec('mcp'))"],
                           capture_output=True, text=True)  # fmt: skip
    assert probe.stdout.strip() == "None", probe.stderr
    return str(wrapper)


def test_an_mcp_server_without_the_extra_is_refused_reported_and_fixed(repo: Repo, python_without_mcp: str) -> None:
    before = repo.snapshot()
    refused = subprocess.run(
        [python_without_mcp, "-m", "gridgit", "setup", "claude", "--mcp"], cwd=repo.path, capture_output=True, text=True
    )
    assert refused.returncode == 1 and "without the mcp extra (pip install 'gridgit[mcp]')" in refused.stderr
    assert not (repo.path / ".mcp.json").exists() and repo.snapshot() == before
    # Written by an earlier gridgit with an interpreter that had the extra once, now without it:
    from gridgit.agents import mcpconfig
    from gridgit.store.layout import Layout

    mcpconfig.setup_all(Layout.find(repo.path), "claude", "executor-001")
    config = json.loads((repo.path / ".mcp.json").read_text())
    config["mcpServers"]["gridgit"].update(command=python_without_mcp, args=["-m", "gridgit", "mcp"])
    (repo.path / ".mcp.json").write_text(json.dumps(config))
    check = subprocess.run(
        [python_without_mcp, "-m", "gridgit", "setup", "claude", "--mcp", "--check", "--agent", "executor-001"],
        cwd=repo.path, capture_output=True, text=True,
    )  # fmt: skip
    assert check.returncode == 1 and "are outdated" in check.stdout, check.stdout + check.stderr
    found = next(f for f in doctor(repo, {})["findings"] if f["check"] == "mcp")
    assert found["level"] == "fail" and "without the mcp extra" in found["details"][0]
    assert found["fix"] == "gridgit setup claude --mcp --agent executor-001"  # this interpreter has the extra
    run_fix(repo, found["fix"], {})
    assert next(f for f in doctor(repo, {})["findings"] if f["check"] == "mcp")["level"] == "ok"
    assert repo.gridgit("setup", "claude", "--mcp", "--check", "--agent", "executor-001").returncode == 0


def test_a_tracked_grid_is_moved_by_the_fix(repo: Repo) -> None:
    (repo.path / ".gitignore").write_text("")
    git(repo.path, "add", "-f", ".grid/STATE.md")
    git(repo.path, "commit", "-q", "-m", "track the Blackboard (an earlier gridgit)")
    found = next(f for f in doctor(repo, {})["findings"] if f["check"] == "grid-ref")
    assert found["level"] == "fail" and found["fix"] == "gridgit migrate"
    run_fix(repo, found["fix"], {})
    after = next(f for f in doctor(repo, {})["findings"] if f["check"] == "grid-ref")
    assert after["level"] in ("ok", "warn") and "tracks .grid/" not in after["message"]
