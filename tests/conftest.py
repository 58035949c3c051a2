"""Shared fixtures: real git repositories in temporary folders, and the real CLI."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import stat
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

GIT_ENV = {
    "GIT_AUTHOR_NAME": "Grid Test",
    "GIT_AUTHOR_EMAIL": "grid@example.com",
    "GIT_COMMITTER_NAME": "Grid Test",
    "GIT_COMMITTER_EMAIL": "grid@example.com",
    "GIT_CONFIG_NOSYSTEM": "1",
}


def git(cwd: Path, *args: str, check: bool = True, env: dict[str, str] | None = None) -> str:
    """Run real git in CWD; returns stdout."""
    proc = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, env={**os.environ, **(env or {})})
    if check and proc.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed ({proc.returncode}): {proc.stderr}")
    return proc.stdout


@dataclass
class Repo:
    """A real git repository in a temp folder, with helpers to drive gridgit against it."""

    path: Path

    @property
    def grid(self) -> Path:
        return self.path / ".grid"

    def git(self, *args: str, check: bool = True, env: dict[str, str] | None = None) -> str:
        return git(self.path, *args, check=check, env=env)

    def gridgit(
        self,
        *args: str,
        agent: str | None = None,
        check: bool = True,
        input: str | None = None,
        cwd: Path | None = None,
        env: dict[str, str] | None = None,
    ) -> subprocess.CompletedProcess[str]:
        """Run the real `gridgit` CLI in a subprocess."""
        full_env = {**os.environ, **(env or {})}
        full_env.pop("GRID_AGENT_ID", None)
        if agent is not None:
            full_env["GRID_AGENT_ID"] = agent
        proc = subprocess.run(
            [sys.executable, "-m", "gridgit", *args],
            cwd=cwd or self.path,
            capture_output=True,
            text=True,
            input=input,
            env=full_env,
        )
        if check and proc.returncode != 0:
            raise AssertionError(f"gridgit {' '.join(args)} exited {proc.returncode}: {proc.stderr}{proc.stdout}")
        return proc

    def gridgit_at_once(
        self, commands: list[list[str]], agent: str | None = None, timeout: float = 120
    ) -> list[subprocess.CompletedProcess[str]]:
        """Start one real `gridgit` process per command, all at once, and wait for every one.

        They wait up to a minute for a lock: these tests count what is lost, not how long a
        lock takes on a loaded machine.
        """
        procs = [self.gridgit_popen(*args, agent=agent) for args in commands]
        done = []
        for proc, args in zip(procs, commands, strict=True):
            out, err = proc.communicate(timeout=timeout)
            done.append(subprocess.CompletedProcess(args, proc.returncode, out, err))
        return done

    def gridgit_popen(
        self, *args: str, agent: str | None = None, env: dict[str, str] | None = None
    ) -> subprocess.Popen[str]:
        """Start the real `gridgit` CLI in a process of its own (stdout and stderr piped), not waiting for it."""
        full_env = {k: v for k, v in os.environ.items() if k != "GRID_AGENT_ID"}
        full_env.setdefault("GRIDGIT_LOCK_TIMEOUT", "60")
        full_env.update(env or {})
        if agent is not None:
            full_env["GRID_AGENT_ID"] = agent
        return subprocess.Popen(
            [sys.executable, "-m", "gridgit", *args],
            cwd=self.path,
            env=full_env,
            text=True,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )

    def gridgit_json(self, *args: str, agent: str | None = None) -> Any:
        """Run a command with --json and return its data."""
        proc = self.gridgit(*args, "--json", agent=agent)
        envelope = json.loads(proc.stdout)
        assert envelope["ok"] is True and envelope["schema_version"] == 1
        return envelope["data"]

    def events(self, event_type: str | None = None) -> list[dict[str, Any]]:
        """Every event in the log (optionally of one type), in order."""
        log = self.grid / "events" / "current.jsonl"
        if not log.exists():
            return []
        found = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines() if line.strip()]
        return [e for e in found if event_type is None or e["type"] == event_type]

    def write(self, rel: str, text: str) -> Path:
        path = self.path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        return path

    def snapshot(self) -> dict[str, bytes]:
        """Every file under .grid/ (locks, temp files, the search's cache and the agents' latest signs of work
        aside: an agent tool's hook is one even when it refuses an edit) by relative path: to prove nothing changed."""
        return {
            p.relative_to(self.grid).as_posix(): p.read_bytes()
            for p in sorted(self.grid.rglob("*"))
            if p.is_file()
            and not p.name.endswith((".lock", ".tmp"))
            and not {".cache", "activity"} & set(p.relative_to(self.grid).parts[:-1])
        }


def isolate(patch: pytest.MonkeyPatch, home: Path) -> None:
    """A known git identity, HOME (no user or system git config) and none of gridgit's variables."""
    for key, value in {**GIT_ENV, "HOME": str(home)}.items():
        patch.setenv(key, value)
    for var in ("GRID_DIR", "GRID_AGENT_ID", "GRIDGIT_SKIP", "GRIDGIT_NOW", "GIT_DIR", "GIT_INDEX_FILE"):
        patch.delenv(var, raising=False)


@pytest.fixture(autouse=True)
def _git_identity(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Every test sees a known git identity and no user or system git config."""
    (tmp_path / "home").mkdir(exist_ok=True)
    isolate(monkeypatch, tmp_path / "home")
    # git's post-commit hook records the commit in the background; tests need it done when git returns.
    monkeypatch.setenv("GRIDGIT_HOOK_SYNC", "1")
    # gridgit on PATH, as it is for whoever installed it: the agent tools' configs find it there.
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")


def main_in_process(args: list[str]) -> int:
    """The CLI's real entry point and error boundary run in this process: its exit code.

    For walks over many commands and property tests, where a process each would take minutes.
    """
    from gridgit.cli import common
    from gridgit.cli.main import main

    common.json_mode = False  # the one piece of state a run leaves behind
    try:
        main(args)
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else 1
    return 0


@pytest.fixture
def bare_repo(tmp_path: Path) -> Repo:
    """A git repository with one commit and no .grid/."""
    path = tmp_path / "repo"
    path.mkdir()
    git(path, "init", "-q", "-b", "main")
    (path / "README.md").write_text("# test repo\n", encoding="utf-8")
    git(path, "add", "README.md")
    git(path, "commit", "-q", "-m", "initial")
    return Repo(path)


@pytest.fixture
def repo(bare_repo: Repo) -> Repo:
    """A git repository with one commit and an initialised .grid/ (phases 01-foundation, 02-core)."""
    bare_repo.gridgit(
        "init",
        "--mission",
        "Test Mission",
        "--phase",
        "01-foundation:Foundation",
        "--phase",
        "02-core:Core Features",
    )
    return bare_repo


@pytest.fixture
def board(repo: Repo) -> Iterator[Any]:
    """A Blackboard (the Python API) on `repo`, for in-process tests."""
    from gridgit import Blackboard

    yield Blackboard(repo.path)


# ---- locks held by another process ---------------------------------------------------------

_HOLDER = """
import sys
from pathlib import Path
from gridgit.store.locks import locked
with locked(Path(sys.argv[1]), shared=sys.argv[2] == "shared", timeout=60):
    print("held", flush=True)
    sys.stdin.readline()
"""


@contextlib.contextmanager
def lock_holder(path: Path, shared: bool = False) -> Iterator[subprocess.Popen[str]]:
    """A real process that holds PATH's gridgit lock until the block ends (or it is killed).

    The process is returned once it holds the lock; it releases it when its stdin closes.
    """
    proc = subprocess.Popen(
        [sys.executable, "-c", _HOLDER, str(path), "shared" if shared else "exclusive"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
        yield proc
    finally:
        if proc.stdin is not None:
            proc.stdin.close()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


# ---- the watcher daemon (issue 6) ---------------------------------------------------------


def wait_for(predicate: Any, timeout: float = 30.0, interval: float = 0.02) -> Any:
    """Poll PREDICATE until it returns something truthy; fail after TIMEOUT seconds.

    The timeout is generous (a met condition returns at once; only a failure waits it out)
    because CI machines are loaded; the pause between polls grows to 0.25 s, since many
    predicates start a `gridgit` process, which would load the machine that the daemon under
    test needs.
    """
    import time

    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"condition not met within {timeout}s: {getattr(predicate, '__name__', predicate)}")
        time.sleep(interval)
        interval = min(interval * 1.5, 0.25)


def pid_alive(pid: int) -> bool:
    """True while PID runs (a zombie counts as gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rfind(")") + 2] not in "ZX"


@dataclass
class Daemons:
    """Starts background watchers for a test and remembers every pid, so none outlives the test."""

    repo: Repo
    pids: list[int]

    def start(self, *args: str, agent: str | None = None, cwd: Path | None = None) -> dict[str, Any]:
        proc = self.repo.gridgit("daemon", "start", "--json", *args, agent=agent, cwd=cwd)
        data: dict[str, Any] = json.loads(proc.stdout)["data"]
        if data.get("pid"):
            self.pids.append(int(data["pid"]))
        return data

    def pid(self) -> int:
        return int((self.repo.grid / ".daemon" / "daemon.pid").read_text().split()[0])


@pytest.fixture
def daemons(repo: Repo) -> Iterator[Daemons]:
    """`repo` plus a way to start watchers; every one is stopped (and proven gone) at the end."""
    import signal

    runner = Daemons(repo, [])
    try:
        yield runner
    finally:
        repo.gridgit("daemon", "stop", check=False)
        leaked = [pid for pid in set(runner.pids) if pid_alive(pid)]
        for pid in leaked:
            os.kill(pid, signal.SIGKILL)
        assert not leaked, f"watcher processes outlived the test: {leaked}"


# ---- agents on branches of their own (issue 18: conflict prediction) -------------------------

CALC = """def add(a, b):
    total = a + b
    check(total)
    return total


def sub(a, b):
    diff = a - b
    return diff


def mul(a, b):
    product = a * b
    return product
"""


def commit_all(path: Path, message: str) -> None:
    """Commit everything in work tree PATH, gridgit's hooks skipped (set-up, not the subject)."""
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", message, env={"GRIDGIT_SKIP": "1"})


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def wt(repo: Repo, name: str) -> Path:
    """The worktree of agent branch `agent/NAME` (see `team`)."""
    return repo.path.parent / f"wt-{name}"


@pytest.fixture
def team(repo: Repo) -> Repo:
    """`repo` with calc.py on main and two registered agents, each in a worktree of its own branch.

    executor-001 works in wt-a on agent/a (registered by absolute path), executor-002 in wt-b on
    agent/b (registered relative to the main worktree).
    """
    from gridgit import Blackboard

    repo.write("calc.py", CALC)
    commit_all(repo.path, "calc")
    active = []
    for n, name in ((1, "a"), (2, "b")):
        repo.git("worktree", "add", "-q", str(wt(repo, name)), "-b", f"agent/{name}")
        active.append({"id": f"executor-00{n}", "worktree": str(wt(repo, name)) if n == 1 else f"../wt-{name}"})
    Blackboard(repo.path).update_state({"agents": {"active": active}}, "mc")
    return repo


def fake_git(tmp_path: Path, version: str, merge_tree_error: str | None = None) -> dict[str, str]:
    """A `git` first on PATH that reports VERSION (and fails merge-tree like old git) and runs the real one otherwise."""
    real = shutil.which("git")
    folder = tmp_path / "fake-bin"
    folder.mkdir()
    script = folder / "git"
    fail = f'if [ "$1" = merge-tree ]; then echo "{merge_tree_error}" >&2; exit 128; fi\n' if merge_tree_error else ""
    script.write_text(
        f'#!/bin/sh\nif [ "$1" = version ] || [ "$1" = --version ]; then echo "git version {version}"; exit 0; fi\n{fail}exec {real} "$@"\n'
    )
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return {"PATH": f"{folder}{os.pathsep}{os.environ['PATH']}"}
