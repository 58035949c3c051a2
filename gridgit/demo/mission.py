"""`gridgit demo`: a real mission in a fresh repository, start to finish, in well under a minute.

A new git repository gets `gridgit init` (with hooks) and the watcher daemon; N agent
processes (gridgit.demo.actor), each in its own linked worktree and all sharing one
Blackboard, write to the phase scratchpad, edit and commit files, and run into a write
conflict; Master Control merges their branches and a commit with the trailer
`Grid-Phase-Complete:` completes the phase through the post-commit hook. Every step goes
through the CLI and git exactly as a user's agents would, and every result the summary
reports is read back from the repository (files, `git log`, the event log, LEARNINGS.md):
a step whose result is missing fails the demo, naming the step.
"""

from __future__ import annotations

import contextlib
import json
import queue
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from gridgit.demo import actor, project
from gridgit.demo.actor import StepFailed, git, gridgit
from gridgit.errors import BadInput, GridError

AGENT_TIMEOUT = 180  # seconds for one phase's agents; a hung agent fails the demo


class Demo:
    def __init__(
        self,
        agents: int = 4,
        phases: int = 2,
        folder: Path | None = None,
        keep: bool = False,
        progress: Callable[[str], None] = lambda line: None,
    ) -> None:
        if not 2 <= phases <= len(project.PHASES):
            raise BadInput(f"--phases must be from 2 to {len(project.PHASES)} (the demo completes all but the last)")
        self.ids = project.agent_ids(agents)
        self.phases = project.PHASES[:phases]
        self.folder_given = folder is not None
        if folder is not None:
            folder = folder.resolve()
            if folder.exists() and any(folder.iterdir()):
                raise BadInput(f"{folder}: not empty; the demo needs a new or empty folder")
        self.folder = folder
        self.keep = keep or self.folder_given
        self.progress = progress
        self.started = time.monotonic()
        self.writes = 0
        self.agent_commits: dict[str, list[str]] = {i: [] for i in self.ids}
        self.blocks: dict[str, str] = {}  # agent id -> the block planned for it in the running phase
        self.writers = [i for i in self.ids if not i.startswith("scout-")]  # scouts only read

    # ---- plumbing ---------------------------------------------------------------------

    @property
    def repo(self) -> Path:
        assert self.folder is not None
        return self.folder / "repo"

    def worktree(self, agent_id: str) -> Path:
        assert self.folder is not None
        return self.folder / "worktrees" / agent_id

    def say(self, who: str, message: str) -> None:
        self.progress(f"[{time.monotonic() - self.started:5.1f}s] {who:<15} {message}")

    @contextlib.contextmanager
    def step(self, name: str) -> Iterator[None]:
        """Any failure inside becomes one GridError naming the step (exit 1)."""
        try:
            yield
        except GridError as exc:
            raise GridError(f"demo step '{name}' failed: {exc}") from None
        except (OSError, subprocess.SubprocessError, ValueError, KeyError) as exc:
            raise GridError(f"demo step '{name}' failed: {type(exc).__name__}: {exc}") from None

    def mc(self, *args: str, ok: tuple[int, ...] = (0,)) -> Any:
        """A gridgit command as Master Control, in the main worktree."""
        return gridgit(self.repo, *args, agent="mc", ok=ok)

    def update_state(self, updates: dict[str, Any]) -> None:
        cmd = [sys.executable, "-m", "gridgit", "state", "update", "--json", json.dumps(updates)]
        actor.run(cmd, self.repo, "mc")

    # ---- the mission ------------------------------------------------------------------

    def run(self) -> dict[str, Any]:
        made_temp = self.folder is None
        if self.folder is None:
            self.folder = Path(tempfile.mkdtemp(prefix="gridgit-demo-"))
        daemon_started = finished = False
        try:
            self.create_repository()
            self.init_grid()
            with self.step("start the watcher daemon"):
                # The daemon is no agent: started without GRID_AGENT_ID, it attributes edits by worktree.
                gridgit(self.repo, "daemon", "start")
                daemon_started = True
                info = self.mc("daemon", "status")
                if not isinstance(info, dict) or info.get("state") not in ("running", "starting"):
                    raise StepFailed(f"`gridgit daemon status` says {info!r:.120}")
                self.say("daemon", f"watcher running (pid {info.get('pid')})")
            self.create_worktrees()
            for number, (phase_id, _name) in enumerate(self.phases[:-1]):
                self.run_phase(number, phase_id)
            self.finish()
            summary = self.verify()
            finished = True
        finally:
            if daemon_started:
                self.stop_daemon(raise_errors=finished)
            if made_temp and not self.keep:
                shutil.rmtree(self.folder, ignore_errors=True)
        summary["kept"] = self.keep
        summary["seconds"] = round(time.monotonic() - self.started, 1)
        return summary

    def stop_daemon(self, raise_errors: bool) -> None:
        """Always runs (finally); a daemon left behind would outlive the demo's repository."""
        try:
            with self.step("stop the watcher daemon"):
                self.mc("daemon", "stop")
            self.say("daemon", "stopped")
        except GridError as exc:
            self.say("daemon", str(exc))
            if raise_errors:  # never hide the error that is already on its way out
                raise

    def create_repository(self) -> None:
        with self.step("create the repository"):
            self.repo.mkdir(parents=True)
            git(self.repo, "init", "-q")
            git(self.repo, "symbolic-ref", "HEAD", "refs/heads/main")
            for key, value in (("user.name", "gridgit demo"), ("user.email", "demo@gridgit.invalid"),
                               ("commit.gpgsign", "false")):  # fmt: skip
                git(self.repo, "config", key, value)
            files = project.files(self.phases)
            for rel, text in files.items():
                (self.repo / rel).parent.mkdir(parents=True, exist_ok=True)
                (self.repo / rel).write_text(text, encoding="utf-8")
            git(self.repo, "add", "-A")
            git(self.repo, "commit", "-q", "-m", "A small shop to work on")
            self.say("repository", f"{self.repo} ({len(files)} files)")

    def init_grid(self) -> None:
        with self.step("gridgit init"):
            phase_args = [a for pid, name in self.phases for a in ("--phase", f"{pid}:{name}")]
            self.mc("init", "--mission", "demo shop", *phase_args)
            # A HIGH finding needs promotion.min_validations other agents to confirm it (3); a smaller team asks fewer.
            needed = min(3, len(self.writers) - 1)
            if needed < 3:
                config = json.loads((self.repo / ".grid" / "config.json").read_text(encoding="utf-8"))
                config["promotion"] = {"min_validations": needed}
                (self.repo / ".grid" / "config.json").write_text(json.dumps(config, indent=2), encoding="utf-8")
            hooks = self.mc("hooks", "status")
            missing = [name for name, info in hooks["hooks"].items() if not info["installed"]]
            if missing:
                raise StepFailed(f"hooks not installed by init: {missing}")
            git(self.repo, "add", "-A")  # .gitignore's /.grid/ line: the Blackboard is no file of the branch
            git(self.repo, "commit", "-q", "-m", "Set up gridgit", agent="mc")
            self.say("gridgit init", f"{len(hooks['hooks'])} hooks installed; .grid/ history on refs/heads/grid")

    def create_worktrees(self) -> None:
        with self.step("create the agents' worktrees"):
            active = []
            for agent_id in self.ids:
                git(self.repo, "worktree", "add", "-q", "-b", f"agent/{agent_id}", str(self.worktree(agent_id)), "main")
                active.append(
                    {"id": agent_id, "type": agent_id.split("-")[0], "worktree": str(self.worktree(agent_id))}
                )
            self.say("worktrees", f"{len(self.ids)} linked worktrees under {self.worktree(self.ids[0]).parent}")
        with self.step("register the agents"):
            self.register(active)

    def register(self, active: list[dict[str, Any]]) -> None:
        phase_id = self.mc("state", "show", "--field", "position.phase_id")
        self.update_state({"status": "in_progress"})
        for agent in active:
            task = project.task(agent["id"], phase_id)
            self.mc("agent", "register", agent["id"], "--task", task, "--worktree", agent["worktree"])
        self.say("mc", f"registered {', '.join(a['id'] for a in active)} (gridgit agent register)")

    def plan_blocks(self, phase_id: str) -> None:
        """Master Control plans one block per agent that works (scouts only read): the queue they take from."""
        self.blocks = {}
        for number, agent_id in enumerate(self.writers, start=1):
            block_id = f"{phase_id[:2]}-{number:02d}"
            plan = project.block_plan(project.agent_spec(agent_id, self.ids, phase_id, str(self.worktree(agent_id))))
            args = ["--name", plan["name"], "--files", ",".join(plan["files"]), "--content", plan["plan"]]
            self.mc("block", "plan", block_id, *args)
            self.blocks[agent_id] = block_id
        self.say("mc", f"planned blocks {', '.join(self.blocks.values())} of {phase_id} (gridgit block plan)")

    def run_phase(self, number: int, phase_id: str) -> None:
        if number:
            with self.step(f"{phase_id}: sync the worktrees with main"):
                for agent_id in self.ids:
                    git(self.worktree(agent_id), "merge", "-q", "--no-edit", "main", agent=agent_id)
                self.register([{"id": i, "type": i.split("-")[0], "worktree": str(self.worktree(i))} for i in self.ids])
        with self.step(f"{phase_id}: plan the blocks"):
            self.plan_blocks(phase_id)
        with self.step(f"{phase_id}: agents at work"):
            self.say("mc", f"phase {phase_id}: {len(self.ids)} agents start")
            self.run_agents(phase_id)
        with self.step(f"{phase_id}: agents confirm what they met"):
            self.confirm_findings(phase_id)
        with self.step(f"{phase_id}: merge the agents' branches"):
            for agent_id in self.ids:
                if self.agent_commits[agent_id]:
                    git(self.repo, "merge", "-q", "--no-ff", "--no-edit", f"agent/{agent_id}", agent="mc")
            self.say("mc", f"merged {sum(1 for c in self.agent_commits.values() if c)} branches into main")
        with self.step(f"{phase_id}: phase commit"):
            message = f"Complete phase {phase_id}\n\nGrid-Phase-Complete: {phase_id}\n"
            actor.run(["git", "commit", "-q", "--allow-empty", "-F", "-"], self.repo, "mc", input_text=message)
            completed = self.mc("state", "show", "--field", "phases.completed")
            if phase_id not in (completed or []):
                raise StepFailed(f"the post-commit hook did not complete {phase_id} (phases.completed={completed})")
            now = self.mc("state", "show", "--field", "position.phase_id")
            self.say("mc", f"{phase_id} complete (archive, LEARNINGS, carry-forward); now in {now}")

    def confirm_findings(self, phase_id: str) -> None:
        """Each agent that writes confirms the HIGH patterns, gotchas and discoveries of the others
        (`gridgit confirm`), as many as promotion needs: phase completion then promotes them to LEARNINGS.md."""
        preview = gridgit(self.repo, "promote", "--phase", phase_id, "--dry-run", agent="memory-001") or {}
        confirmed = 0
        for item in preview.get("waiting_for_validations", []):
            others = [i for i in self.writers if i != item["agent"]]
            for agent_id in others[: item["needed"] - item["validations"]]:
                gridgit(self.repo, "confirm", item["uid"], "--note", "met it too", agent=agent_id)
                confirmed += 1
        self.say("agents", f"{confirmed} confirmation(s) of each other's findings (gridgit confirm)")

    def run_agents(self, phase_id: str) -> None:
        """Start every agent process, relay their progress, and fail on the first one that fails."""
        lines: queue.Queue[tuple[str, dict[str, Any] | None]] = queue.Queue()
        procs = {}
        for agent_id in self.ids:
            spec = project.agent_spec(agent_id, self.ids, phase_id, str(self.worktree(agent_id)))
            spec["block"] = self.blocks.get(agent_id)
            proc = subprocess.Popen(
                [sys.executable, "-m", "gridgit.demo.actor"],
                cwd=self.worktree(agent_id),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                env=actor.agent_env(agent_id),
            )
            assert proc.stdin is not None
            proc.stdin.write(json.dumps(spec))
            proc.stdin.close()
            procs[agent_id] = proc
            threading.Thread(target=_relay, args=(agent_id, proc, lines), daemon=True).start()
        running, failure = set(procs), None
        deadline = time.monotonic() + AGENT_TIMEOUT
        try:
            while running:
                try:
                    agent_id, message = lines.get(timeout=max(0.1, deadline - time.monotonic()))
                except queue.Empty:
                    failure = f"agents {', '.join(sorted(running))} still running after {AGENT_TIMEOUT}s"
                    break
                if message is None:  # its stdout closed: the process ended
                    running.discard(agent_id)
                elif message.get("event") == "progress":
                    self.say(agent_id, str(message.get("msg")))
                elif message.get("event") == "done":
                    self.writes += int(message.get("writes", 0))
                    self.agent_commits[agent_id] += list(message.get("commits", []))
                elif message.get("event") == "failed" and failure is None:
                    failure = f"{agent_id}: {message.get('error')}"
        finally:  # Ctrl-C or a timeout must not leave agent processes behind
            for agent_id, proc in procs.items():
                if proc.poll() is None:
                    proc.kill()
                proc.wait()
                if proc.returncode != 0 and failure is None:
                    stderr = proc.stderr.read() if proc.stderr else ""
                    failure = f"{agent_id} exited {proc.returncode}: {stderr.strip()[-300:]}"
        if failure:
            raise StepFailed(failure)

    def finish(self) -> None:
        with self.step(f"{self.phases[-1][0]}: plan the blocks"):
            self.plan_blocks(self.phases[-1][0])  # the phase the mission goes on with: its queue, waiting
        with self.step("close the mission"):
            for agent_id in self.ids:
                self.mc("agent", "done", agent_id, "--summary", f"{agent_id}: mission finished")
            self.mc("snapshot", "-m", "mission finished")  # the Blackboard's last state, onto its ref

    def verify(self) -> dict[str, Any]:
        from gridgit.demo import verify

        with self.step("check the results"):
            return verify.summarise(self.repo, self.ids, [p for p, _ in self.phases], self.writes, self.agent_commits)


def _relay(agent_id: str, proc: subprocess.Popen[str], lines: queue.Queue[tuple[str, dict[str, Any] | None]]) -> None:
    assert proc.stdout is not None
    for line in proc.stdout:
        try:
            lines.put((agent_id, json.loads(line)))
        except json.JSONDecodeError:
            lines.put((agent_id, {"event": "progress", "msg": line.strip()}))
    lines.put((agent_id, None))


def run(
    agents: int = 4,
    phases: int = 2,
    folder: Path | str | None = None,
    keep: bool = False,
    progress: Callable[[str], None] = lambda line: None,
) -> dict[str, Any]:
    """Run the demo; returns the summary (see gridgit.demo.verify.render). Raises GridError naming a failed step."""
    return Demo(agents, phases, Path(folder) if folder else None, keep, progress).run()
