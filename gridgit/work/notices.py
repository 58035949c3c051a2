"""What the work events mean for one agent: the lines its inbox shows (gridgit.coordination.inbox).

- `block_take_lost`: the loser hears its take of a block lost to an earlier take in another
  clone; the winner hears that someone else also took it (both, on their next sync);
- `block_reoffered`: the agent that went quiet hears who took its block;
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
    if kind == "budget_limit_reached":
        return "budget", (
            f"the mission reached its budget: {_usd(payload.get('total_usd'))} of {_usd(payload.get('limit_usd'))} "
            "(config.json budget.mission_limit_usd): finish what you are doing and report"
        )
    return None


def _usd(value: Any) -> str:
    return f"${value:,.2f}" if isinstance(value, (int, float)) else f"${value}"
