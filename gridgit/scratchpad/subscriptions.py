"""Subscriptions (spec section 3): which topics, at which minimum relevance, an agent hears of.

Where one lives follows what its agent may write. An agent that may write the scratchpad keeps
it in the scratchpad's frontmatter (the spec's place): each phase has its own list, phase
completion carries it into the next phase (`carry`), so it lasts until `unsubscribe`; the
writer of a matching entry names it in the entry's event. A read-only agent (a scout or a
planner, which may not write a scratchpad) keeps it machine-local, in
`.grid/events/cursors/subscriptions/<agent>.json` (gitignored, like the inbox it feeds): it
holds for every phase until `unsubscribe`, and the agent's inbox matches entries against it.
Who a given entry names is `gridgit.scratchpad.store.subscribers`, on the write path.
"""

from __future__ import annotations

import json
from pathlib import Path

from gridgit.errors import BadInput
from gridgit.model import permissions
from gridgit.scratchpad import entry as entry_mod
from gridgit.scratchpad.document import Scratchpad
from gridgit.scratchpad.store import modify
from gridgit.store import clock, fileio, locks
from gridgit.store.layout import Layout, check_phase_id

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def listed(pad: Scratchpad) -> list[dict[str, Any]]:
    """The scratchpad's subscriptions that are mappings naming an agent (a hand edit may add junk)."""
    return [s for s in pad.meta.get("subscriptions") or [] if isinstance(s, dict) and s.get("agent_id")]


def stored_locally(agent_id: str) -> bool:
    """Whether AGENT_ID's subscription is machine-local: its type may not write a scratchpad."""
    return permissions.agent_type(agent_id) not in permissions.SCRATCHPAD_WRITERS


def local_path(layout: Layout, agent_id: str) -> Path:
    return layout.cursors_dir / "subscriptions" / f"{permissions.check_agent_id(agent_id)}.json"


def local(layout: Layout, agent_id: str) -> dict[str, Any] | None:
    """AGENT_ID's machine-local subscription, or None."""
    path = local_path(layout, agent_id)
    if not path.exists():
        return None
    try:
        found = json.loads(fileio.read_text(path))
    except json.JSONDecodeError:
        found = None
    if not isinstance(found, dict) or not isinstance(found.get("topics"), list):
        raise BadInput(f"{path}: not a subscription (`gridgit unsubscribe --agent {agent_id}` removes it)")
    return found


def subscribe(
    layout: Layout, phase_id: str, agent_id: str, topics: list[str], relevance_min: str = "LOW"
) -> dict[str, Any]:
    """Add or replace AGENT_ID's subscription (topics, or ["*"] for all) where it lives; returns it.

    `stored` says where: `scratchpad` (PHASE_ID's) or `machine-local`.
    """
    check_phase_id(phase_id)
    permissions.check_agent_id(agent_id)
    wanted = [t.strip() for t in topics if t and t.strip()]
    if not wanted:
        raise BadInput("subscribe needs at least one topic (or * for all)")
    clean = ["*"] if "*" in wanted else list(dict.fromkeys(entry_mod.normalise_topic(t) for t in wanted))
    subscription = {"agent_id": agent_id, "topics": clean, "relevance_min": entry_mod.check_relevance(relevance_min)}
    if stored_locally(agent_id):
        path = local_path(layout, agent_id)
        path.parent.mkdir(parents=True, exist_ok=True)
        with locks.locked(path):
            text = json.dumps({**subscription, "since": clock.now_iso()}) + "\n"
            fileio.atomic_write(path, text, durable=False)
        return {**subscription, "stored": "machine-local"}
    with modify(layout, phase_id) as pad:
        current = [s for s in pad.meta.get("subscriptions") or [] if isinstance(s, dict)]
        others = [s for s in current if s.get("agent_id") != agent_id]
        pad.meta["subscriptions"] = [*others, subscription]
    return {**subscription, "stored": "scratchpad"}


def unsubscribe(layout: Layout, phase_id: str, agent_id: str) -> bool:
    """Remove AGENT_ID's subscription; False when it had none (nothing is written then)."""
    check_phase_id(phase_id)
    permissions.check_agent_id(agent_id)
    if stored_locally(agent_id):
        path = local_path(layout, agent_id)
        if not path.exists():
            return False
        with locks.locked(path):
            existed = path.exists()
            path.unlink(missing_ok=True)
        return existed
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
