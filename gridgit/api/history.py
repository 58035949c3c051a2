"""The Blackboard's own history: snapshots onto the grid ref, sync with a remote, migration, log and diff."""

from __future__ import annotations

from typing import Any

from gridgit.api.base import BoardBase


class HistoryAPI(BoardBase):
    """The grid ref: `snapshot`, `sync`, `migrate`, `log`, `diff` (see docs/sync.md)."""

    def snapshot(self, reason: str = "snapshot", agent: str | None = None) -> Any:
        """Commit .grid/ onto the grid ref now (an Outcome: commit, created, invalid files left out)."""
        from gridgit.history import snapshot
        from gridgit.store import usertext

        usertext.check_size(reason, "note", "the snapshot's message")  # free text has one limit per kind: a note's
        return snapshot.snapshot(self.layout.require(), reason, self._attributed(agent), self._ref())

    def sync(self, remote: str | None = None, agent: str | None = None, push: bool = True) -> Any:
        """Fetch REMOTE's grid ref, merge it into .grid/, push the result (a SyncResult)."""
        from gridgit.history import sync

        return sync.sync(self.layout.require(), remote, self._attributed(agent), self._ref(), push_result=push)

    def restore(
        self, paths: list[str] | None = None, everything: bool = False, rev: str | None = None, agent: str | None = None
    ) -> list[Any]:
        """Bring back .grid/ files (PATHS, or with EVERYTHING each damaged one) from the grid history.

        Each from the newest grid commit (from REV, default the grid ref) holding a valid
        version, entries written since kept; one Restored per file (see docs/sync.md).
        """
        from gridgit.history import restore
        from gridgit.store import config

        # Recovery never depends on what broke: a config.json that does not load is restored too.
        with config.recovering():
            return restore.restore(self.layout, paths, everything, rev, self._ref(), self._attributed(agent))

    def migrate(self, agent: str | None = None) -> Any:
        """Move a Blackboard the code branches track onto the grid ref (a MigrateResult; idempotent)."""
        from gridgit.history import migrate

        return migrate.migrate(self.layout.require(), self._attributed(agent), self._ref())

    def log(self, limit: int = 20, phase: str | None = None, agent: str | None = None) -> list[Any]:
        """The grid ref's history, newest first: who wrote, archived, resolved, promoted what (LogItems)."""
        from gridgit.history import log as history

        layout = self.layout.require()
        return history.log(layout, self._ref(), limit, phase and self.phase(phase), self._filter_agent(agent))

    def diff(self, rev: str | None = None, stat: bool = False) -> str:
        """git's diff of .grid/ from REV (default: the last snapshot) to the files now."""
        from gridgit.history import log as history

        return history.diff(self.layout.require(), self._ref(), rev, stat)
