"""A repository set up the way docs/agent-tools.md tells a user, and real sessions of an agent program in it.

`World.make` is a new repository with one commit, `gridgit init` and `gridgit setup TOOL`
(nothing committed: a linked worktree gets the hooks from git's post-checkout hook, as the
docs say). `World.session` runs the real program once, non-interactively, in a work tree of
it, against a scripted model of its own, with a home of its own (the machine's configuration
never reaches it) and gridgit on PATH, and returns what reached the model.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.conftest import GIT_ENV
from tests.e2e import programs
from tests.e2e.drivers import DRIVERS, Driver
from tests.e2e.modelserver import ModelServer, Request, Script, Step

GRIDGIT_BIN = str(Path(sys.executable).parent)  # where gridgit is installed, as for the tests of tests/agents/
SESSION_SECONDS = 300.0  # one scripted session; a loaded machine is slow, a hung program is not waited on forever
PROMPT = "Carry out the task in this repository."


@dataclass
class Run:
    """One session of an agent program: how it ended and every request that reached the model."""

    tool: str
    returncode: int
    stdout: str
    stderr: str
    seconds: float
    requests: list[Request]

    @property
    def turns(self) -> list[Request]:
        return [r for r in self.requests if r.turn]

    def turn(self, label: str) -> Request:
        """The first turn after the step labelled LABEL was answered: the request that carries its result."""
        for i, request in enumerate(self.turns):
            if request.label == label:
                assert i + 1 < len(self.turns), f"{self.tool}: no request after step {label!r}\n{self.describe()}"
                return self.turns[i + 1]
        raise AssertionError(f"{self.tool}: step {label!r} was never answered\n{self.describe()}")

    def describe(self) -> str:
        """What happened, for an assertion's message."""
        steps = ", ".join(f"{r.n}:{r.label or r.step}" for r in self.turns)
        return (f"{self.tool} exited {self.returncode} after {self.seconds:.1f}s; turns {steps}\n"
                f"stdout: {self.stdout[-1500:]}\nstderr: {self.stderr[-2500:]}")  # fmt: skip


def node_path() -> str:
    node = shutil.which("node")
    return os.path.dirname(node) if node else "/usr/bin"


def base_env(home: Path, agent_id: str | None = None) -> dict[str, str]:
    """A clean environment: HOME of the run, gridgit and node on PATH, a known git identity, nothing of the machine."""
    env = {**GIT_ENV, "HOME": str(home), "PATH": os.pathsep.join([GRIDGIT_BIN, node_path(), "/usr/local/bin", "/usr/bin", "/bin"]),
           "LANG": "C.UTF-8", "TERM": "dumb", "NO_COLOR": "1", "TMPDIR": os.environ.get("TMPDIR", "/tmp"),
           "GRIDGIT_HOOK_SYNC": "1"}  # fmt: skip
    if agent_id is not None:
        env["GRID_AGENT_ID"] = agent_id
    return env


@dataclass
class World:
    """A repository for one agent program (TOOL), set up as the docs say, in ROOT (a temporary folder)."""

    tool: str
    root: Path
    runs: list[Run] = field(default_factory=list)

    @property
    def repo(self) -> Path:
        return self.root / "repo"

    @property
    def grid(self) -> Path:
        return self.repo / ".grid"

    @classmethod
    def make(cls, tool: str, root: Path, setup: bool = True) -> World:
        """The repository; SETUP: `gridgit setup TOOL` in its main work tree."""
        world = cls(tool, root)
        world.repo.mkdir(parents=True)
        world.git("init", "-q", "-b", "main")
        (world.repo / "README.md").write_text("# demo\n", encoding="utf-8")
        (world.repo / "src").mkdir()
        (world.repo / "src" / "__init__.py").write_text("", encoding="utf-8")
        world.git("add", "-A")
        world.git("commit", "-q", "-m", "initial")
        world.gridgit("init", "--mission", "Scripted mission", "--phase", "01-foundation:Foundation")
        if setup:
            world.gridgit("setup", tool)
        return world

    def env(self, agent_id: str | None = None) -> dict[str, str]:
        return base_env(self.root / "home", agent_id)

    def git(self, *args: str, cwd: Path | None = None) -> str:
        done = subprocess.run(["git", *args], cwd=cwd or self.repo, env=self.env(), capture_output=True, text=True)
        assert done.returncode == 0, f"git {' '.join(args)}: {done.stderr}"
        return done.stdout

    def gridgit(self, *args: str, agent: str | None = None, cwd: Path | None = None, check: bool = True,
                env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:  # fmt: skip
        done = subprocess.run([sys.executable, "-m", "gridgit", *args], cwd=cwd or self.repo,
                              env={**self.env(agent), **(env or {})}, capture_output=True, text=True)  # fmt: skip
        assert not check or done.returncode == 0, f"gridgit {' '.join(args)} exited {done.returncode}: {done.stderr}"
        return done

    def worktree(self, name: str) -> Path:
        """A linked worktree on a branch of its own (git's post-checkout hook sets gridgit up in it)."""
        path = self.root / f"wt-{name}"
        self.git("worktree", "add", "-q", str(path), "-b", f"agent/{name}")
        return path

    def events(self, kind: str | None = None) -> list[dict[str, Any]]:
        log = self.grid / "events" / "current.jsonl"
        rows = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines() if line.strip()]
        return [row for row in rows if kind is None or row["type"] == kind]

    def session(self, steps: list[Step], cwd: Path | None = None, agent_id: str | None = None, label: str = "a",
                trust_hooks: bool = True, env: dict[str, str] | None = None, prompt: str = PROMPT,
                idle: str = "Done.") -> Run:  # fmt: skip
        """Run the program once in CWD (the main work tree by default) with the scripted model STEPS.

        AGENT_ID becomes GRID_AGENT_ID (None: the agent is made from the session's payload);
        LABEL names the run's home and request log under ROOT.
        """
        driver: Driver = DRIVERS[self.tool]()
        exe = programs.executable(self.tool)
        home = self.root / f"home-{label}"
        home.mkdir(parents=True, exist_ok=True)
        where = cwd or self.repo
        with ModelServer(Script(steps, idle=idle), log_file=self.root / f"requests-{label}.jsonl") as server:
            full = base_env(home, agent_id)
            full.update(driver.prepare(exe, home, where, server.url, full, trust_hooks))
            full.update(env or {})
            started = time.monotonic()
            try:
                done = subprocess.run(driver.argv(exe, prompt), cwd=where, env=full, capture_output=True, text=True,
                                      timeout=SESSION_SECONDS, stdin=subprocess.DEVNULL)  # fmt: skip
                code, out, err = done.returncode, done.stdout, done.stderr
            except subprocess.TimeoutExpired as exc:
                said = exc.stderr if isinstance(exc.stderr, str) else ""
                code, out, err = -9, exc.stdout if isinstance(exc.stdout, str) else "", f"timed out: {said}"
            run = Run(self.tool, code, out, err, time.monotonic() - started, list(server.requests))
        self.runs.append(run)
        return run
