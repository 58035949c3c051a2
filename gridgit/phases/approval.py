"""A phase completion that waits for Master Control's approval (STATE's mode `guided` or `hands_on`).

In those modes, asking to complete a phase (`gridgit phase complete`, a `Grid-Phase-Complete:`
commit, the MCP server) runs the checks completion runs, then records the request in the phase's
STATE definition (`approval: {requested_by, requested_at}`) and emits `phase_approval_requested`,
once per request; nothing else changes. `gridgit approve phase` (Master Control) completes it,
with the same checks again (gridgit.phases.lifecycle.complete_phase, approved). The request
travels with STATE.md (merged field-wise, definitions by id) to every clone.
"""

from __future__ import annotations

from typing import Any

from gridgit.events import bus
from gridgit.model import mode, state
from gridgit.phases import order
from gridgit.store import clock
from gridgit.store.layout import Layout, default_phase_name


def request(layout: Layout, phase_id: str, agent_id: str) -> dict[str, Any]:
    """Record AGENT_ID's request to complete PHASE_ID (the request standing already, when there is one)."""
    found: list[dict[str, Any]] = []

    def change(st: dict[str, Any]) -> dict[str, Any]:
        definitions = order.definitions(st)
        definition = order.find(definitions, phase_id)
        if definition is None:
            definition = {"id": phase_id, "name": default_phase_name(phase_id), "status": "in_progress"}
            definitions = sorted([*definitions, definition], key=lambda d: str(d.get("id")))
        standing = definition.get("approval")
        if isinstance(standing, dict) and standing.get("requested_at"):
            found.append({**standing, "new": False})
            return {}
        definition["approval"] = {"requested_by": agent_id, "requested_at": clock.now_iso()}
        found.append({**definition["approval"], "new": True})
        return {"phases": {"definitions": definitions}}

    action = f"ask to complete phase {phase_id} (waits for approval)"
    state.update_with(layout, change, agent_id, action, check_permission=False)
    asked = found[0]
    if asked.pop("new"):
        payload = {"phase_id": phase_id, "mode": mode.mode_of(state.read(layout)), "agent": agent_id}
        bus.notify(layout, "phase_approval_requested", {**payload, "requested_at": asked["requested_at"]})
    return asked


def waiting(st: dict[str, Any]) -> list[dict[str, Any]]:
    """The phases whose completion waits for approval: phase_id, name, requested_by, requested_at."""
    found = []
    for definition in order.definitions(st):
        asked = definition.get("approval")
        if definition.get("status") != "complete" and isinstance(asked, dict) and asked.get("requested_at"):
            row = {"phase_id": str(definition.get("id")), "name": definition.get("name")}
            found.append({**row, "requested_by": asked.get("requested_by"), "requested_at": asked["requested_at"]})
    return found
