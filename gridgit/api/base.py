"""What every part of the API shares: the layout, identity and phase defaults, config.json."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from gridgit.errors import BadInput, GridError, PermissionDenied
from gridgit.model import permissions
from gridgit.model import state as state_mod
from gridgit.store import config as config_mod
from gridgit.store.layout import Layout, check_phase_id


class BoardBase:
    """The layout, identity and defaults every part of gridgit.Blackboard shares."""

    def __init__(self, path: Path | str | None = None, agent: str | None = None) -> None:
        self.layout = Layout.find(path)
        self.default_agent = agent or os.environ.get("GRID_AGENT_ID")

    def agent(self, agent: str | None = None) -> str:
        """AGENT, else the board's default, else GRID_AGENT_ID; an agent is required to write."""
        chosen = agent or self.default_agent or os.environ.get("GRID_AGENT_ID")
        if not chosen:
            raise BadInput("no agent id: pass --agent or set GRID_AGENT_ID")
        return chosen

    def phase(self, phase_id: str | None = None) -> str:
        """PHASE_ID, else STATE's current phase."""
        return state_mod.resolve_phase(self.layout, phase_id)

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
        """AGENT, else the default agent, else GRID_AGENT_ID: who drives a phase must say so.

        No id is no permission (closed by default): an unnamed process is not Master Control.
        """
        chosen = agent or self.default_agent or os.environ.get("GRID_AGENT_ID")
        if not chosen:
            raise PermissionDenied("this needs Master Control: pass --agent mc or set GRID_AGENT_ID=mc")
        return chosen

    def _snapshot_after(self, subject: str, agent: str | None) -> None:
        """Commit .grid/ onto the grid ref after a milestone (`sync.snapshot`); a failure is a warning only."""
        settings = self.config.get("sync", {})
        if not settings.get("snapshot", True):
            return
        from gridgit.errors import GridError
        from gridgit.git import snapshot

        try:
            snapshot.snapshot(self.layout, subject, self._attributed(agent), settings.get("ref"))
        except GridError as exc:
            import logging

            logging.getLogger("gridgit.git").warning("gridgit: warning: no snapshot after %s (%s)", subject, exc)

    def _attributed(self, agent: str | None) -> str:
        """Who a file change is attributed to: AGENT, the default agent, git config grid.agent, or unknown."""
        return permissions.attribute_agent(self.layout, agent or self.default_agent)
