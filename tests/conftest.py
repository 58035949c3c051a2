"""Shared fixtures: real git repositories in temporary folders, and the real CLI."""

from __future__ import annotations

import json
import os
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
        """Every file under .grid/ (locks and temp files aside) by relative path: to prove nothing changed."""
        return {
            p.relative_to(self.grid).as_posix(): p.read_bytes()
            for p in sorted(self.grid.rglob("*"))
            if p.is_file() and not p.name.endswith((".lock", ".tmp"))
        }


@pytest.fixture(autouse=True)
def _git_identity(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Every test sees a known git identity and no user or system git config."""
    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    (tmp_path / "home").mkdir(exist_ok=True)
    for var in ("GRID_DIR", "GRID_AGENT_ID", "GRIDGIT_SKIP", "GRIDGIT_NOW", "GIT_DIR", "GIT_INDEX_FILE"):
        monkeypatch.delenv(var, raising=False)


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
