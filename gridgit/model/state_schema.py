"""STATE.md's schema (spec section 1): what each field and list item must be, checked (pure functions)."""

from __future__ import annotations

from collections.abc import Callable

from gridgit.errors import BadInput
from gridgit.model.permissions import STATE_FIELDS
from gridgit.store.layout import PHASE_ID_RE

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

STATUSES = ("planning", "in_progress", "blocked", "complete", "failed")
MODES = ("autopilot", "guided", "hands_on")
PHASE_STATUSES = ("complete", "in_progress", "pending")


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _optional(check: Callable[[Any], bool]) -> Callable[[Any], bool]:
    return lambda v: v is None or check(v)


def _one_of(values: tuple[str, ...]) -> Callable[[Any], bool]:
    return lambda v: v in values


_is_str = _optional(lambda v: isinstance(v, str))
_is_list = lambda v: isinstance(v, list)  # noqa: E731
_is_dict = lambda v: isinstance(v, dict)  # noqa: E731

# dotted path -> (check, what it must be); only paths present are checked.
SCHEMA: dict[str, tuple[Callable[[Any], bool], str]] = {
    "version": (_is_str, "a string"),
    "session_id": (_is_str, "a string"),
    "mission_id": (_is_str, "a string"),
    "cluster": (_is_str, "a string"),
    "created_at": (_is_str, "an ISO 8601 string"),
    "updated_at": (_is_str, "an ISO 8601 string"),
    "status": (_one_of(STATUSES), "one of " + ", ".join(STATUSES)),
    "mode": (_one_of(MODES), "one of " + ", ".join(MODES)),
    "phases": (_is_dict, "a mapping"),
    "phases.total": (_is_int, "an integer"),
    "phases.current": (_is_int, "an integer"),
    "phases.completed": (_is_list, "a list"),
    "phases.definitions": (_is_list, "a list"),
    "position": (_is_dict, "a mapping"),
    "position.phase": (_is_int, "an integer"),
    "position.phase_id": (_optional(lambda v: isinstance(v, str) and bool(PHASE_ID_RE.match(v))), "NN-slug"),
    "position.block": (_optional(_is_int), "an integer"),
    "position.wave": (_optional(_is_int), "an integer"),
    "position.thread": (_optional(_is_int), "an integer"),
    "position.thread_total": (_optional(_is_int), "an integer"),
    "progress": (_is_dict, "a mapping"),
    "progress.percent": (_is_number, "a number"),
    "progress.commits": (_is_int, "an integer"),
    "progress.files_changed": (_is_int, "an integer"),
    "agents": (_is_dict, "a mapping"),
    "agents.active": (_is_list, "a list"),
    "agents.completed": (_is_list, "a list"),
    "persistent": (_is_dict, "a mapping"),
    "resume": (_is_dict, "a mapping"),
    "budget": (_is_dict, "a mapping"),
    "warnings": (_is_list, "a list"),
    "blockers": (_is_list, "a list"),
    "energy": (_is_number, "a number"),
}


def lookup(data: dict[str, Any], dotted: str) -> tuple[bool, Any]:
    node: Any = data
    for part in dotted.split("."):
        if not isinstance(node, dict) or part not in node:
            return False, None
        node = node[part]
    return True, node


def check(state: dict[str, Any], source: str) -> None:
    """Raise BadInput naming SOURCE and the field at the first problem of STATE (see problems)."""
    found = problems(state)
    if found:
        raise BadInput(f"{source}: {found[0][1]}")


def problems(state: dict[str, Any]) -> list[tuple[str, str]]:
    """(dotted field, message) for every way STATE breaks the schema, list items included."""
    found = [(key, f"unknown field {key!r}") for key in state if key not in STATE_FIELDS]
    for dotted, (ok, what) in SCHEMA.items():
        present, value = lookup(state, dotted)
        if present and not ok(value):
            found.append((dotted, f"field {dotted!r} must be {what}, got {_shown(value)}"))
    for dotted, (ok, what) in _ITEMS.items():
        items = lookup(state, dotted)[1]
        for i, item in enumerate(items if isinstance(items, list) else []):
            if not ok(item):
                found.append((dotted, f"{dotted}[{i}] must be {what}, got {_shown(item)}"))
    definitions = lookup(state, "phases.definitions")[1]
    for i, definition in enumerate(definitions if isinstance(definitions, list) else []):
        if isinstance(definition, dict) and definition.get("status", "pending") not in PHASE_STATUSES:
            found.append(("phases.definitions", f"phases.definitions[{i}].status must be one of {PHASE_STATUSES}"))
    return found


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:80] + "…"


def _has_id(pattern: Any = None) -> Callable[[Any], bool]:
    def ok(item: Any) -> bool:
        if not isinstance(item, dict) or not isinstance(item.get("id"), str):
            return False
        return pattern is None or bool(pattern.match(item["id"]))

    return ok


_is_text_or_mapping = lambda v: isinstance(v, (str, dict))  # noqa: E731
# list field -> (check of each item, what an item must be)
_ITEMS: dict[str, tuple[Callable[[Any], bool], str]] = {
    "phases.definitions": (_has_id(PHASE_ID_RE), "a mapping with an NN-slug id"),
    "phases.completed": (lambda v: isinstance(v, str) and bool(PHASE_ID_RE.match(v)), "a phase id"),
    "agents.active": (_has_id(), "a mapping with an id"),
    "agents.completed": (lambda v: isinstance(v, (str, dict)), "a mapping or an agent id"),
    "warnings": (_is_text_or_mapping, "a text or a mapping"),
    "blockers": (_is_text_or_mapping, "a text or a mapping"),
}
