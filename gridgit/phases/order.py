"""Phase order: STATE's phase definitions, and the rules that keep the mission in order.

Phases run one at a time, in phase-id order (`NN` first): starting a phase while another is
in progress, or while one before it is still pending, and completing a phase into a next one
that skips a pending phase, are refused, unless forced (`--force`), which the phase events
record (`forced: true`, `overrode: <the rule>`). Completing a phase past the current one
while that is open is refused the same way.

Forcing keeps the order whole and never leaves two phases in progress: the phase in progress
is completed (its open work carried into the phase asked for), and each pending phase passed
over is skipped (marked complete with `skipped: true`; nothing of it ran). A phase in progress
that the forced step does not settle (two in progress after a hand edit or a merge) is refused
even then.
"""

from __future__ import annotations

from typing import Any

from gridgit.errors import BadInput, NeedsForce
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


def in_progress(st: dict[str, Any], but: tuple[str | None, ...] = ()) -> list[str]:
    """The phases in progress, but BUT, in phase order."""
    return sorted(_with_status(st, "in_progress", but))


def pending_between(st: dict[str, Any], low: str | None, high: str) -> list[str]:
    """The pending phases after LOW (None: from the first) and before HIGH, in phase order: what forcing skips."""
    return sorted(p for p in _with_status(st, "pending", (high,)) if (low is None or low < p) and p < high)


def skipped(st: dict[str, Any], ids: list[str], now: str) -> list[dict[str, Any]]:
    """STATE's definitions with the phases IDS skipped: complete, `skipped: true`, nothing of them run."""
    found = definitions(st)
    for definition in found:
        if definition.get("id") in ids:
            definition.update(status="complete", skipped=True, completed_at=now)
    return found


def open_before(st: dict[str, Any], phase_id: str) -> str | None:
    """The current phase when it is open and comes before PHASE_ID (completing PHASE_ID would pass it), else None."""
    current = state.current_phase(st)
    if current and current != phase_id and not is_complete(st, current):
        return current if phase_number(current) < phase_number(phase_id) else None
    return None


def completion_problem(st: dict[str, Any], phase_id: str, next_id: str | None) -> str | None:
    """Why completing PHASE_ID into NEXT_ID would break the order (None: it does not).

    Past the current phase while that is open, the current phase would stay in progress for
    ever and its open work never be carried (a mistyped `Grid-Phase-Complete:` trailer too).
    """
    current = open_before(st, phase_id)
    if current:
        return f"phase {current} is current and not complete: complete it before {phase_id}"
    if next_id is None:
        return None
    between = pending_between(st, phase_id, next_id)
    if between:
        return f"phase {between[0]} is pending between {phase_id} and {next_id}: the next phase is {between[0]}"
    return None


def check_one_in_progress(st: dict[str, Any], phase_id: str, next_id: str | None) -> None:
    """Refuse, forced or not, a completion of PHASE_ID into NEXT_ID that would leave another phase in progress."""
    busy = in_progress(st, (phase_id, next_id))
    if busy:
        raise BadInput(
            f"phase {busy[0]} is in progress too: one phase at a time (`gridgit phase complete {busy[0]} --force` first)"
        )


def check(problem: str | None, force: bool) -> dict[str, Any]:
    """Refuse PROBLEM unless FORCE; what the phase event records of an override ({} when none)."""
    if problem is None:
        return {}
    if not force:
        raise NeedsForce(f"{problem} (--force overrides the phase order)")
    return {"forced": True, "overrode": problem}
