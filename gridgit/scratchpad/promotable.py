"""Which entries LEARNINGS.md takes (spec 8.7), and which wait for validations: rules of an entry (pure).

The spec's memory flow asks more of one kind of entry than its `should_promote_to_learnings`
does: "HIGH relevance + 3+ validations -> promote to L4", and L4 holds "validated patterns
(3+ observations)", never "unvalidated hypotheses". So a HIGH pattern, gotcha or discovery
waits for `promotion.min_validations` other agents (config.json, default 3; `0` promotes on
the first HIGH entry) to confirm it (`gridgit confirm`); user preferences, architectural
decisions and entries tagged `promote` are promoted as they are. Promoting is
gridgit.phases.promotion's; the context pack reads these rules on an agent hook's path, so this
module imports no more than the entry.
"""

from __future__ import annotations

from gridgit.scratchpad.entry import Entry, Validation
from gridgit.store.layout import Layout

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_PROMOTED_CATEGORIES = ("pattern", "gotcha", "discovery")


def field_of(entry: Entry | dict[str, Any], name: str, default: Any) -> Any:
    return entry.get(name, default) if isinstance(entry, dict) else getattr(entry, name, default)


def _always(entry: Entry | dict[str, Any]) -> bool:
    """User preferences, architectural decisions and anything tagged `promote`: promoted as they are."""
    tags = field_of(entry, "tags", []) or []
    if "user_preference" in tags or "promote" in tags:
        return True
    return field_of(entry, "category", "") == "decision" and "architectural" in tags


def validated(entry: Entry | dict[str, Any]) -> int:
    """How many agents confirmed ENTRY (an Entry's validations, a dict's `validations` list)."""
    found = field_of(entry, "validations", []) or []
    return len({v.by if isinstance(v, Validation) else str(v.get("by")) for v in found})


def _high_value(entry: Entry | dict[str, Any]) -> bool:
    return field_of(entry, "relevance", "LOW") == "HIGH" and field_of(entry, "category", "") in _PROMOTED_CATEGORIES


def should_promote_to_learnings(entry: Entry | dict[str, Any], min_validations: int = 0) -> bool:
    """Spec 8.7: user preferences, architectural decisions and anything tagged `promote`; HIGH
    patterns/gotchas/discoveries once MIN_VALIDATIONS agents confirmed them (see the module)."""
    return _always(entry) or (_high_value(entry) and validated(entry) >= min_validations)


def waits_for_validations(entry: Entry | dict[str, Any], min_validations: int) -> bool:
    """A HIGH pattern, gotcha or discovery that would be promoted with MIN_VALIDATIONS confirmations, and has fewer."""
    return not _always(entry) and _high_value(entry) and validated(entry) < min_validations


def min_validations(layout: Layout) -> int:
    """config.json's `promotion.min_validations`: the confirmations a HIGH pattern, gotcha or discovery needs."""
    from gridgit.store import config

    return int(config.value(layout, "promotion.min_validations"))
