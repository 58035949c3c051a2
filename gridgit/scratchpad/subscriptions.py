"""Subscriptions (spec section 3): who is named in the events of new entries on which topics.

They live in a scratchpad's frontmatter, so each phase has its own list; phase completion
carries them into the next phase (`carry`), so a subscription lasts until `unsubscribe`.
Who a given entry notifies is `gridgit.scratchpad.store.subscribers`, on the write path.
"""

from __future__ import annotations

from typing import Any

from gridgit.errors import BadInput
from gridgit.model import permissions
from gridgit.scratchpad import entry as entry_mod
from gridgit.scratchpad.document import Scratchpad
from gridgit.scratchpad.store import modify
from gridgit.store.layout import Layout, check_phase_id


def listed(pad: Scratchpad) -> list[dict[str, Any]]:
    """The scratchpad's subscriptions that are mappings naming an agent (a hand edit may add junk)."""
    return [s for s in pad.meta.get("subscriptions") or [] if isinstance(s, dict) and s.get("agent_id")]


def subscribe(
    layout: Layout, phase_id: str, agent_id: str, topics: list[str], relevance_min: str = "LOW"
) -> dict[str, Any]:
    """Add or replace AGENT_ID's subscription (topics, or ["*"] for all); returns it."""
    check_phase_id(phase_id)
    # A subscription is written into the scratchpad: only its writers may add one.
    permissions.check_scratchpad_writer(permissions.check_agent_id(agent_id))
    wanted = [t.strip() for t in topics if t and t.strip()]
    if not wanted:
        raise BadInput("subscribe needs at least one topic (or * for all)")
    clean = ["*"] if "*" in wanted else list(dict.fromkeys(entry_mod.normalise_topic(t) for t in wanted))
    subscription = {"agent_id": agent_id, "topics": clean, "relevance_min": entry_mod.check_relevance(relevance_min)}
    with modify(layout, phase_id) as pad:
        current = [s for s in pad.meta.get("subscriptions") or [] if isinstance(s, dict)]
        others = [s for s in current if s.get("agent_id") != agent_id]
        pad.meta["subscriptions"] = [*others, subscription]
    return subscription


def unsubscribe(layout: Layout, phase_id: str, agent_id: str) -> bool:
    """Remove AGENT_ID's subscription; False when it had none (nothing is written then)."""
    check_phase_id(phase_id)
    permissions.check_agent_id(agent_id)
    with modify(layout, phase_id) as pad:
        current = list(pad.meta.get("subscriptions") or [])
        pad.meta["subscriptions"] = [s for s in current if not (isinstance(s, dict) and s.get("agent_id") == agent_id)]
        return len(pad.meta["subscriptions"]) != len(current)


def carry(previous: list[dict[str, Any]], pad: Scratchpad) -> list[str]:
    """Add the PREVIOUS phase's subscriptions to PAD (the next phase's) for agents it has none for.

    An agent that already subscribed in the next phase keeps what it chose there. Returns
    the agents whose subscription was carried.
    """
    present = {s["agent_id"] for s in listed(pad)}
    carried = [dict(s) for s in previous if isinstance(s, dict) and s.get("agent_id") not in present]
    if carried:
        pad.meta["subscriptions"] = [*(pad.meta.get("subscriptions") or []), *carried]
    return [str(s["agent_id"]) for s in carried]
