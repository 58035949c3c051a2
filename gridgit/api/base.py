"""What every part of the API shares: the layout, identity and phase defaults, config.json."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from gridgit.errors import BadInput, GridError, PermissionDenied
from gridgit.git import missed
from gridgit.model import permissions
from gridgit.model import state as state_mod
from gridgit.store import config as config_mod
from gridgit.store.layout import Layout, check_phase_id


class BoardBase:
    """The layout, identity and defaults every part of gridgit.Blackboard shares."""

    def __init__(self, path: Path | str | None = None, agent: str | None = None) -> None:
        self.layout = Layout.find(path)
        self.default_agent = agent or os.environ.get("GRID_AGENT_ID")
        # Read your writes: commits whose post-commit work is still queued, or that skipped git's
        # hooks (a HEAD reflog grew: gridgit.git.missed), are recorded first (one listing and a
        # stat per work tree; gridgit.git.recording is imported only when there is one).
        try:
            queued = bool(os.listdir(self.layout.commit_queue))
        except OSError:
            queued = False
        if queued or missed.moved(str(self.layout.git_common)):
            from gridgit.git import recording

            recording.settle(self.layout)

    def agent(self, agent: str | None = None) -> str:
        """Who acts: AGENT, else the board's default, else GRID_AGENT_ID, else `git config grid.agent`, checked.

        Required: a Blackboard records no change by nobody (only the hooks and the watcher say `unknown`).
        """
        chosen = permissions.declared_agent(self.layout.require(), agent or self.default_agent)
        if not chosen:
            raise BadInput("no agent id: pass --agent, set GRID_AGENT_ID or `git config grid.agent`")
        return chosen

    def phase(self, phase_id: str | None = None) -> str:
        """PHASE_ID (NotFound when STATE defines no such phase and it has no folder), else STATE's current phase."""
        return state_mod.resolve_phase(self.layout, phase_id)

    def _filter_agent(self, agent: str | None) -> str | None:
        """An agent id to filter by (`read --by`, `claims --agent`), checked like any other: None is no filter."""
        return permissions.check_agent(self.layout, agent) if agent else None

    @property
    def config(self) -> dict[str, Any]:
        """config.json over the defaults, as it is now (shared: read it, do not change it)."""
        return config_mod.current(self.layout)

    def _phase_and_block(self, phase: str | None, block: str | None, agent_id: str) -> tuple[str, str]:
        """PHASE and BLOCK; what is not given comes from STATE (one read): the phase from its position,
        the block from AGENT_ID's registration, else from the position.

        With both given, STATE is not read at all: the write path stays one file read.
        """
        if phase and block is not None:
            return check_phase_id(phase), block
        try:
            st = state_mod.read(self.layout)
        except GridError:
            if not phase:
                raise
            st = {}  # a broken STATE.md stops no write that names its phase: the block stays empty
        position = st.get("position") or {}
        if not phase and not position.get("phase_id"):
            raise BadInput("no phase: pass --phase or start one with `gridgit phase start`")
        if block is None:
            block = str(state_mod.registered_agent(st, agent_id).get("block") or position.get("block_id") or "")
        return check_phase_id(phase or position["phase_id"]), block

    def _master_control(self, agent: str | None = None) -> str:
        """The declared agent (as `agent`): who drives a phase must say so.

        No id is no permission (closed by default): an unnamed process is not Master Control.
        """
        chosen = permissions.declared_agent(self.layout.require(), agent or self.default_agent)
        if not chosen:
            raise PermissionDenied("this needs Master Control: pass --agent mc or set GRID_AGENT_ID=mc")
        return chosen

    def _ref(self) -> str | None:
        """The grid ref's name from config.json (`sync.ref`), None for the default."""
        ref = self.config.get("sync", {}).get("ref")
        return ref if isinstance(ref, str) else None

    def _snapshot_after(self, subject: str, agent: str | None) -> None:
        """Commit .grid/ onto the grid ref after a milestone (`sync.snapshot`); a failure is a warning only."""
        settings = self.config.get("sync", {})
        if not settings.get("snapshot", True):
            return
        from gridgit.errors import GridError
        from gridgit.history import snapshot

        try:
            snapshot.snapshot(self.layout, subject, self._attributed(agent), settings.get("ref"))
        except GridError as exc:
            import logging

            logging.getLogger("gridgit.git").warning("gridgit: warning: no snapshot after %s (%s)", subject, exc)

    def _push_soon(self) -> None:
        """With `sync.auto`, get the write just made to the other clones now (gridgit.history.autosync)."""
        if self.config["sync"].get("auto") is True:
            from gridgit.history import autosync

            autosync.push_soon(self.layout)

    def _attributed(self, agent: str | None) -> str:
        """Who a file change is attributed to: AGENT, the default agent, git config grid.agent, or unknown."""
        return permissions.attribute_agent(self.layout, agent or self.default_agent)
