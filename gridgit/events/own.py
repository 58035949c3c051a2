"""Whether an event is an agent's own doing: never news for that agent (standard library only).

The inbox skips these; the agent hooks' fast path skips them too when it decides, without
loading the inbox, that nothing is new for an agent. One rule for both.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing itself costs the hooks' fast path ~4 ms
if TYPE_CHECKING:
    from typing import Any


def own_doing(event: dict[str, Any], agent: str) -> bool:
    """EVENT was done by AGENT and is not a write conflict (one its own write found is still news to it)."""
    payload = event.get("payload")
    actor = payload.get("agent") if isinstance(payload, dict) else None
    return actor == agent and event.get("type") != "write_conflict"
