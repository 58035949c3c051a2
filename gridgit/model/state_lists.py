"""One item of a STATE list by its id: add, update, remove, computed under the STATE lock.

Replacing a whole list (`state update --set blockers=[...]`) writes a list its writer read
before taking the lock, so two agents adding at once leave one of them out. These changes
are computed from the list as it is inside the lock instead, so sixteen writers adding one
item each leave sixteen items.

An item is a mapping with an `id` (agents, blockers, warnings, decisions, ...) or a plain
value (`phases.completed`), which is its own id.
"""

from __future__ import annotations

import copy
import os
from collections.abc import Sequence

from gridgit.errors import BadInput
from gridgit.model import state, state_schema
from gridgit.store.config import deep_merge
from gridgit.store.layout import Layout
from gridgit.store.record import FrozenRecord

TYPE_CHECKING = False  # typing itself costs an agent hook's start ~3 ms
if TYPE_CHECKING:
    from typing import Any

# The prefix of an id gridgit makes for an item added without one (the spec's `blocker-001`
# style, with a random part so that items added on two machines never share an id).
ID_PREFIXES = {
    "blockers": "blocker",
    "warnings": "warning",
    "persistent.decisions": "dec",
    "persistent.artifacts": "art",
}
OPERATIONS = ("add", "update", "remove")


def item_id(item: Any) -> str | None:
    """The id of a list item: a mapping's `id`, a plain value itself."""
    if isinstance(item, dict):
        value = item.get("id")
        return None if value is None else str(value)
    return None if item is None else str(item)


def new_id(path: str) -> str:
    prefix = ID_PREFIXES.get(path) or path.rsplit(".", 1)[-1].rstrip("s") or "item"
    return f"{prefix}-{os.urandom(4).hex()}"


class ListChange(FrozenRecord):
    """One change to the list at dotted PATH: add ITEM, update the item with ITEM's id, remove ITEM_ID."""

    FIELDS = ("op", "path", "item", "item_id")
    __slots__ = FIELDS

    def __init__(self, op: str, path: str, item: Any = None, item_id: str | None = None) -> None:
        self.op = op
        self.path = path
        self.item = item
        self.item_id = item_id

    @classmethod
    def add(cls, path: str, item: Any) -> ListChange:
        """Add ITEM; a mapping without an id gets a new one (see `new_id`)."""
        if isinstance(item, dict) and item.get("id") is None:
            item = {"id": new_id(path), **item}
        if item is None or isinstance(item, list):
            raise BadInput(f"--add {path}: the item must be a mapping or a single value, not {item!r}")
        return cls("add", path, item, item_id(item))

    @classmethod
    def update(cls, path: str, fields: dict[str, Any]) -> ListChange:
        """Merge FIELDS into the item whose id is FIELDS['id']."""
        if not isinstance(fields, dict) or fields.get("id") is None:
            raise BadInput(f"--update {path}: give a mapping with the id of the item, e.g. {{id: x, status: done}}")
        return cls("update", path, fields, str(fields["id"]))

    @classmethod
    def remove(cls, path: str, item_id: str) -> ListChange:
        if not str(item_id).strip():
            raise BadInput(f"--remove {path}: give the id of the item")
        return cls("remove", path, None, str(item_id).strip())


def _check_path(path: str) -> str:
    parts = path.split(".")
    if not path or not all(parts):
        raise BadInput(f"invalid list path {path!r}")
    return path


def current_list(st: dict[str, Any], path: str) -> list[Any]:
    """The list at PATH in ST (empty when absent); anything but a list there is bad input."""
    found, value = state_schema.lookup(st, _check_path(path))
    if not found or value is None:
        return []
    if not isinstance(value, list):
        raise BadInput(f"STATE field {path!r} is not a list (it is {type(value).__name__})")
    return list(value)


def apply_change(items: list[Any], change: ListChange) -> list[Any]:
    """ITEMS with CHANGE applied (a new list; pure)."""
    ids = [item_id(i) for i in items]
    if change.op == "add":
        if change.item_id in ids:
            raise BadInput(f"{change.path} already has an item with id {change.item_id!r} (use --update)")
        return [*items, copy.deepcopy(change.item)]
    if change.item_id not in ids:
        raise BadInput(f"{change.path} has no item with id {change.item_id!r}")
    at = ids.index(change.item_id)
    if change.op == "remove":
        return items[:at] + items[at + 1 :]
    if not isinstance(items[at], dict):
        raise BadInput(f"{change.path}: item {change.item_id!r} is a plain value; remove it and add the new one")
    return [*items[:at], deep_merge(items[at], change.item), *items[at + 1 :]]


def updates_for(st: dict[str, Any], changes: Sequence[ListChange]) -> dict[str, Any]:
    """The STATE updates that apply CHANGES, in order, to the lists of ST."""
    lists: dict[str, list[Any]] = {}
    for change in changes:
        if change.op not in OPERATIONS:
            raise BadInput(f"unknown list operation {change.op!r}")
        base = lists[change.path] if change.path in lists else current_list(st, change.path)
        lists[change.path] = apply_change(base, change)
    updates: dict[str, Any] = {}
    for path, items in lists.items():
        updates = deep_merge(updates, state.dotted_to_nested(path, items))
    return updates


def update(
    layout: Layout,
    changes: Sequence[ListChange],
    agent_id: str,
    base: dict[str, Any] | None = None,
    action: str | None = None,
) -> dict[str, Any]:
    """Apply BASE (other field updates) and CHANGES in one locked STATE write; the new state.

    The lists are changed as they are after BASE, so `--set` and `--add` combine. What only
    the phase and block operations move is refused (gridgit.model.state.gated).
    """
    if not changes and not base:
        raise BadInput("a STATE update needs at least one field or list change")
    new = state.update_with(
        layout, lambda st: state.gated(st, _combined(st, base or {}, changes), agent_id), agent_id, action
    )
    assert new is not None  # a non-empty change always writes
    return new


def _combined(st: dict[str, Any], base: dict[str, Any], changes: Sequence[ListChange]) -> dict[str, Any]:
    return deep_merge(base, updates_for(deep_merge(st, base), changes))
