"""Phase order: STATE's phase definitions, and the rules that keep the mission in order.

Phases run one at a time, in phase-id order (`NN` first): starting a phase while another is
in progress, or while one before it is still pending, and completing a phase into a next one
that skips a pending phase, are refused, unless forced (`--force`), which the phase events
record (`forced: true`, `overrode: <the rule>`). Completing a phase past the current one
while that is open is refused the same way.
"""

from __future__ import annotations

from typing import Any

from gridgit.errors import BadInput
from gridgit.model import state


def phase_number(phase_id: str) -> int:
    return int(phase_id.split("-", 1)[0])


def definitions(st: dict[str, Any]) -> list[dict[str, Any]]:
    """STATE's phase definitions (copies), in their order."""
    return [dict(d) for d in st.get("phases", {}).get("definitions", []) if isinstance(d, dict)]


def find(found: list[dict[str, Any]], phase_id: str) -> dict[str, Any] | None:
    return next((d for d in found if d.get("id") == phase_id), None)


def is_complete(st: dict[str, Any], phase_id: str) -> bool:
    definition = find(definitions(st), phase_id)
    return phase_id in (st.get("phases", {}).get("completed") or []) or (
        definition is not None and definition.get("status") == "complete"
    )


def _with_status(st: dict[str, Any], status: str, but: tuple[str | None, ...]) -> list[str]:
    return [str(d["id"]) for d in definitions(st) if d.get("status") == status and d.get("id") not in but]


def start_problem(st: dict[str, Any], phase_id: str) -> str | None:
    """Why starting PHASE_ID would break the order (None: it does not)."""
    busy = _with_status(st, "in_progress", (phase_id,))
    if busy:
        return f"phase {busy[0]} is in progress: one phase at a time (`gridgit phase complete {busy[0]}` first)"
    skipped = [p for p in _with_status(st, "pending", (phase_id,)) if p < phase_id]
    if skipped:
        return f"phase {skipped[0]} is pending before {phase_id}: phases start in order"
    return None


def completion_problem(st: dict[str, Any], phase_id: str, next_id: str | None) -> str | None:
    """Why completing PHASE_ID into NEXT_ID would break the order (None: it does not).

    Past the current phase while that is open, the current phase would stay in progress for
    ever and its open work never be carried (a mistyped `Grid-Phase-Complete:` trailer too).
    """
    current = state.current_phase(st)
    open_current = current and current != phase_id and not is_complete(st, current)
    if open_current and phase_number(str(current)) < phase_number(phase_id):
        return f"phase {current} is current and not complete: complete it before {phase_id}"
    if next_id is None:
        return None
    skipped = [p for p in _with_status(st, "pending", (next_id,)) if phase_id < p < next_id]
    if skipped:
        return f"phase {skipped[0]} is pending between {phase_id} and {next_id}: the next phase is {skipped[0]}"
    busy = _with_status(st, "in_progress", (phase_id, next_id))
    if busy:
        return f"phase {busy[0]} is in progress too: one phase at a time (complete it first)"
    return None


def check(problem: str | None, force: bool) -> dict[str, Any]:
    """Refuse PROBLEM unless FORCE; what the phase event records of an override ({} when none)."""
    if problem is None:
        return {}
    if not force:
        raise BadInput(f"{problem} (--force overrides the phase order)")
    return {"forced": True, "overrode": problem}
