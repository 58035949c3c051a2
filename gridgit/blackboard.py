"""Blackboard: the Python API. Everything the CLI does, an agent can do in-process."""

from __future__ import annotations

import functools
import os
from pathlib import Path
from typing import Any

from gridgit import config as config_mod
from gridgit import state as state_mod
from gridgit.errors import BadInput
from gridgit.layout import Layout, check_phase_id


class Blackboard:
    """The Blackboard of the repository around PATH (default: the current directory).

    AGENT is the default agent id for writes (else GRID_AGENT_ID).
    """

    def __init__(self, path: Path | str | None = None, agent: str | None = None) -> None:
        self.layout = Layout.find(path)
        self.default_agent = agent or os.environ.get("GRID_AGENT_ID")

    # ---- identity and defaults ----------------------------------------------------------

    def agent(self, agent: str | None = None) -> str:
        """AGENT, else the board's default, else GRID_AGENT_ID; an agent is required to write."""
        chosen = agent or self.default_agent or os.environ.get("GRID_AGENT_ID")
        if not chosen:
            raise BadInput("no agent id: pass --agent or set GRID_AGENT_ID")
        return chosen

    def phase(self, phase_id: str | None = None) -> str:
        """PHASE_ID, else STATE's current phase."""
        if phase_id:
            return check_phase_id(phase_id)
        current = self.state().get("position", {}).get("phase_id")
        if not current:
            raise BadInput("no phase: pass --phase or start one with `gridgit phase start`")
        return check_phase_id(current)

    @functools.cached_property
    def config(self) -> dict[str, Any]:
        return config_mod.load(self.layout)

    # ---- set-up ---------------------------------------------------------------------------

    def init(self, mission: str | None = None, phases: list[str] | None = None, force: bool = False) -> Any:
        """Create .grid/ (see gridgit.init); PHASES are `ID[:NAME]` strings."""
        from gridgit import init as init_mod

        parsed = [init_mod.parse_phase_option(p) for p in phases or []]
        return init_mod.init(self.layout, mission, parsed, force)

    # ---- L3: STATE.md ---------------------------------------------------------------------

    def state(self) -> dict[str, Any]:
        return state_mod.read(self.layout)

    def state_field(self, dotted: str) -> Any:
        found, value = state_mod.lookup(self.state(), dotted)
        if not found:
            raise BadInput(f"STATE.md has no field {dotted!r}")
        return value

    def update_state(self, updates: dict[str, Any], agent: str | None = None) -> dict[str, Any]:
        return state_mod.update(self.layout, updates, self.agent(agent))

    def set_state(self, assignments: dict[str, Any], agent: str | None = None) -> dict[str, Any]:
        """Update from dotted paths: {"position.block": 2} sets only that leaf."""
        merged: dict[str, Any] = {}
        for dotted, value in assignments.items():
            merged = config_mod.deep_merge(merged, state_mod.dotted_to_nested(dotted, value))
        return self.update_state(merged, agent)

    # ---- L2: scratchpads, heartbeats (issue 3) -----------------------------------------

    # ---- phases, archive, promotion, L4 (issue 3) --------------------------------------

    # ---- events, conflicts, claims (issue 4) -------------------------------------------

    # ---- git integration: validation, hooks (issue 5) ----------------------------------

    # ---- watcher daemon (issue 6) -------------------------------------------------------

    # ---- dashboard, context packs, doctor (issue 8) ------------------------------------
