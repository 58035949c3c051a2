"""Set-up and STATE.md (L3): init, read, update."""

from __future__ import annotations

from typing import Any

from gridgit.api.base import BoardBase
from gridgit.errors import NotFound
from gridgit.model import state as state_mod
from gridgit.model import state_schema
from gridgit.store import config as config_mod
from gridgit.store.layout import default_phase_name, parse_phase_spec


class StateAPI(BoardBase):
    """Set-up and STATE.md (L3): init, read, update."""

    def init(
        self, mission: str | None = None, phases: list[str] | None = None, force: bool = False, hooks: bool = True
    ) -> Any:
        """Create .grid/ (see gridgit.setup.init); PHASES are `ID[:NAME]` strings."""
        from gridgit.setup import init as init_mod

        specs = [parse_phase_spec(p) for p in phases or []]
        parsed = [(pid, name or default_phase_name(pid)) for pid, name in specs]
        if not force:
            return init_mod.init(self.layout, mission, parsed, force, hooks)
        with config_mod.recovering():  # re-creating what is missing works whatever config.json says
            return init_mod.init(self.layout, mission, parsed, force, hooks)

    def state(self) -> dict[str, Any]:
        return state_mod.read(self.layout)

    def state_field(self, dotted: str) -> Any:
        found, value = state_schema.lookup(self.state(), dotted)
        if not found:
            raise NotFound(f"STATE.md has no field {dotted!r}")
        return value

    def update_state(self, updates: dict[str, Any], agent: str | None = None) -> dict[str, Any]:
        return state_mod.update(self.layout, updates, self.agent(agent))

    def set_state(
        self, assignments: dict[str, Any], agent: str | None = None, changes: list[Any] | None = None
    ) -> dict[str, Any]:
        """Update from dotted paths: {"position.block": 2} sets only that leaf (a list value replaces the list).

        CHANGES (gridgit.model.state_lists.ListChange) add, update or remove single list items
        in the same locked write.
        """
        merged: dict[str, Any] = {}
        for dotted, value in assignments.items():
            merged = config_mod.deep_merge(merged, state_mod.dotted_to_nested(dotted, value))
        if not changes:
            return self.update_state(merged, agent)
        from gridgit.model import state_lists

        return state_lists.update(self.layout, changes, self.agent(agent), merged)

    def add_item(self, path: str, item: Any, agent: str | None = None) -> dict[str, Any]:
        """Add ITEM to the STATE list at PATH (e.g. `blockers`) under the STATE lock; a mapping without an id gets one."""
        from gridgit.model.state_lists import ListChange

        return self.set_state({}, agent, [ListChange.add(path, item)])

    def update_item(self, path: str, fields: dict[str, Any], agent: str | None = None) -> dict[str, Any]:
        """Merge FIELDS into the item of the STATE list at PATH whose id is FIELDS['id']."""
        from gridgit.model.state_lists import ListChange

        return self.set_state({}, agent, [ListChange.update(path, fields)])

    def remove_item(self, path: str, item_id: str, agent: str | None = None) -> dict[str, Any]:
        """Remove the item with ITEM_ID from the STATE list at PATH."""
        from gridgit.model.state_lists import ListChange

        return self.set_state({}, agent, [ListChange.remove(path, item_id)])
