"""Three-way merge of values: keyed lists and mappings against their common base (pure functions).

The building blocks of gridgit.history.merge's file merges: additions from both sides are kept,
a removal is honoured when the other side left the item alone, and an item both sides
changed is settled by the caller.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

MISSING: Any = object()  # "no such item" on one side or in the base

Pick = Callable[[Any, Any], Any]  # (ours, theirs) -> the value kept where both changed a scalar


class CannotMerge(Exception):
    """This pair of versions needs a human (the merge driver leaves conflict markers)."""


def _keyed(items: list[Any], key: Callable[[Any], Any]) -> dict[Any, Any]:
    """ITEMS by (key, occurrence): two items with one key stay two."""
    seen: dict[Any, int] = {}
    out: dict[Any, Any] = {}
    for item in items:
        k = key(item)
        n = seen.get(k, 0)
        seen[k] = n + 1
        out[(k, n)] = item
    return out


def merge_items(
    base: list[Any], ours: list[Any], theirs: list[Any], key: Callable[[Any], Any], both: Callable[[Any, Any, Any], Any]
) -> list[Any]:
    """Three-way union of keyed items: additions from both sides, removals honoured, no duplicates.

    BOTH(base_or_MISSING, ours, theirs) resolves an item both sides have and changed differently.
    The result keeps ours' order, then theirs' new items in their order.
    """
    b, o, t = _keyed(base, key), _keyed(ours, key), _keyed(theirs, key)
    result = []
    for k, mine in o.items():
        if k in t:
            other, old = t[k], b.get(k, MISSING)
            if mine == other or other == old:
                result.append(mine)
            elif mine == old:
                result.append(other)
            else:
                result.append(both(old, mine, other))
        elif k not in b or b[k] != mine:
            result.append(mine)  # ours added it, or changed what theirs removed: nothing is lost
    for k, other in t.items():
        if k not in o and (k not in b or b[k] != other):
            result.append(other)
    return result


def json_key(item: Any) -> str:
    """The identity of a list item: its `id` when it is a mapping with one, else its whole value."""
    if isinstance(item, dict) and "id" in item:
        return "id:" + json.dumps(item["id"], sort_keys=True, default=str)
    return json.dumps(item, sort_keys=True, default=str)


def _merge_value(base: Any, ours: Any, theirs: Any, pick: Pick) -> Any:
    if ours == theirs or theirs == base:
        return ours
    if ours == base:
        return theirs
    if isinstance(ours, dict) and isinstance(theirs, dict):
        return merge_mapping(base if isinstance(base, dict) else {}, ours, theirs, pick)
    if isinstance(ours, list) and isinstance(theirs, list):
        return merge_items(
            base if isinstance(base, list) else [], ours, theirs, json_key,
            lambda b, mine, other: _merge_value(b if b is not MISSING else None, mine, other, pick),
        )  # fmt: skip
    return pick(ours, theirs)


def merge_mapping(base: dict[str, Any], ours: dict[str, Any], theirs: dict[str, Any], pick: Pick) -> dict[str, Any]:
    """Key-wise three-way merge of mappings (lists united, see merge_items); PICK settles scalars both changed."""
    merged: dict[str, Any] = {}
    for key in [*ours, *(k for k in theirs if k not in ours)]:
        o, t, b = ours.get(key, MISSING), theirs.get(key, MISSING), base.get(key, MISSING)
        if o is MISSING:
            if b is MISSING or b != t:
                merged[key] = t  # theirs added or changed it (ours' removal of a changed field loses to the change)
            continue
        if t is MISSING:
            if b is MISSING or b != o:
                merged[key] = o
            continue
        merged[key] = _merge_value(None if b is MISSING else b, o, t, pick)
    return merged
