"""The repository around the Blackboard: validation, git hooks, the watcher daemon, status, context packs, doctor."""

from __future__ import annotations

from typing import Any

from gridgit.api.base import BoardBase


class RepositoryAPI(BoardBase):
    """The repository around the Blackboard: validation, git hooks, the watcher daemon, status, context packs, doctor."""

    def validate(self, paths: list[str] | None = None, staged: bool = False) -> list[Any]:
        """Problems (gridgit.validation.rules.Problem) of the .grid/ files: the work tree, or with STAGED the index."""
        from gridgit.validation import sources

        return sources.validate_paths(self.layout, paths, staged)

    def install_hooks(self) -> Any:
        """Install the git hooks and the merge driver (see gridgit.git.hooks.install)."""
        from gridgit.git import hooks

        return hooks.install(self.layout)

    def uninstall_hooks(self) -> Any:
        """Remove gridgit's hooks and merge driver, restoring what was there before."""
        from gridgit.git import hooks

        return hooks.uninstall(self.layout)

    def hooks_status(self) -> Any:
        from gridgit.git import hooks

        return hooks.status(self.layout)

    def _check_environment(self) -> None:
        """The watcher runs for hours: a variable it would refuse on its first event is refused at its start."""
        import os

        from gridgit.errors import BadInput
        from gridgit.model import permissions
        from gridgit.store import environment

        for _, problem in environment.problems(self.layout.root)[:1]:
            raise BadInput(problem)
        if os.environ.get("GRID_AGENT_ID"):
            permissions.check_agent(self.layout, os.environ["GRID_AGENT_ID"])

    def watch(self, polling: bool = False, background: bool = False) -> None:
        """Run the watcher in this process until SIGTERM / SIGINT (see gridgit.watch.daemon.run)."""
        from gridgit.watch import daemon

        self._check_environment()
        daemon.run(self.layout, polling=polling, background=background)

    def daemon_start(self, polling: bool = False, timeout: float = 30.0) -> Any:
        """Start the background watcher unless one runs; a DaemonStatus (action: started / already-running)."""
        from gridgit.watch import daemon

        self._check_environment()
        return daemon.start(self.layout, polling=polling, timeout=timeout)

    def daemon_stop(self, timeout: float = 10.0) -> Any:
        """SIGTERM the background watcher and wait; a DaemonStatus (action: stopped / not-running / cleaned)."""
        from gridgit.watch import daemon

        return daemon.stop(self.layout, timeout=timeout)

    def daemon_status(self) -> Any:
        """A DaemonStatus: state running / starting / stopped / stale-pid, pid, since, watches."""
        from gridgit.watch import daemon

        return daemon.status(self.layout)

    def daemon_logs(self, lines: int = 50) -> list[str]:
        from gridgit.watch import daemon

        return daemon.logs(self.layout, lines)

    def daemon_follow_logs(self) -> Any:
        from gridgit.watch import daemon

        return daemon.follow(self.layout)

    def status(self) -> dict[str, Any]:
        """The mission dashboard as data (see gridgit.views.status)."""
        from gridgit.views import status as status_mod

        return status_mod.summary(self.layout, self.config)

    def resume(self) -> dict[str, Any]:
        """Where a restarted Master Control picks up: phase, block, open work, agents, checkpoint, next step
        (see gridgit.views.resume)."""
        from gridgit.views import resume as resume_mod

        return resume_mod.gather(self.layout, self.config)

    def roster(self) -> list[dict[str, Any]]:
        """Registered and recently seen agents with their last heartbeat and staleness (see gridgit.views.roster)."""
        from gridgit.views import roster

        return roster.roster(self.layout.require(), self.config)

    def context(
        self,
        agent: str | None = None,
        phase_id: str | None = None,
        query: str | None = None,
        budget: int | None = None,
    ) -> Any:
        """The context pack an agent reads before it starts (see gridgit.views.context.ContextPack)."""
        from gridgit.views import context as context_mod

        return context_mod.gather(self.layout, self.agent(agent), phase_id, query, budget)

    def repair(self) -> list[Any]:
        """`doctor --repair`: every damaged or missing .grid/ file brought back (see restore(everything=True))."""
        from gridgit.store import config
        from gridgit.views import repair

        with config.recovering():  # a config.json that does not load is what it may have to repair
            return repair.repair(self.layout, self._ref())

    def doctor(self) -> Any:
        """Check the repository's gridgit set-up (see gridgit.views.findings.Report)."""
        from gridgit.views import doctor as doctor_mod

        return doctor_mod.run(self.layout.root)
