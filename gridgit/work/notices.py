"""What the work events mean for one agent: the lines its inbox shows (gridgit.coordination.inbox).

- `block_take_lost`: the loser hears its take of a block lost to an earlier take in another
  clone; the winner hears that someone else also took it (both, on their next sync);
- `block_reoffered`: the agent that went quiet hears who took its block;
- `block_released`, `block_assigned`: a holder hears Master Control released its block or gave it
  to another agent; an agent hears a block was assigned to it;
- `block_approved`: the planner of a proposed block hears it was approved;
- `budget_limit_reached`: every agent hears the mission reached its budget.
"""

from __future__ import annotations

from gridgit.store.commandline import said

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def inbox_line(event: dict[str, Any], me: str) -> tuple[str, str] | None:
    """(inbox kind, one line for the model) of EVENT for agent ME, or None when it is not for ME."""
    kind = event.get("type")
    payload = event.get("payload") if isinstance(event.get("payload"), dict) else {}
    assert isinstance(payload, dict)
    block = f"block {payload.get('block_id')}"
    if kind == "block_take_lost":
        if payload.get("loser") == me:
            return "block", (
                f"your take of {block} lost to {payload.get('winner')}, who took it first "
                f"({payload.get('winner_taken_at')}) in another clone: it is theirs; `{said('take')}` another"
            )
        if payload.get("winner") == me:
            return "block", f"{payload.get('loser')} also took your {block} in another clone; it stays yours"
    if kind == "block_reoffered" and payload.get("stale_agent") == me:
        return "block", f"your {block} was offered again after you went quiet, and {payload.get('agent')} took it"
    actor = payload.get("agent")
    if kind == "block_released" and payload.get("owner") == me and actor != me:
        return "block", f"{actor} released your {block}: it is back in the queue; stop working on it"
    if kind == "block_assigned" and payload.get("owner") == me:
        return (
            "block",
            f"{actor} assigned {block} to you: it is your block now (`gridgit block show {payload.get('block_id')}`)",
        )
    if kind == "block_assigned" and payload.get("previous") == me:
        return (
            "block",
            f"{actor} gave your {block} to {payload.get('owner')}: it is not yours any more; stop working on it",
        )
    if kind == "block_approved" and payload.get("planned_by") == me and actor != me:
        return "block", f"{actor} approved your proposed {block}: it is in the queue"
    if kind == "budget_limit_reached":
        return "budget", (
            f"the mission reached its budget: {_usd(payload.get('total_usd'))} of {_usd(payload.get('limit_usd'))} "
            "(config.json budget.mission_limit_usd): finish what you are doing and report"
        )
    return None


def _usd(value: Any) -> str:
    return f"${value:,.2f}" if isinstance(value, (int, float)) else f"${value}"
