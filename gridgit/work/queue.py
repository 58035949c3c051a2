"""The work queue: which blocks are ready, and taking one atomically.

A block is ready when its phase is open (in progress, or the current phase), it waits for no
approval (a proposed block in `hands_on` mode does), every block it depends on is complete,
every block of an earlier wave of its phase is complete, and nobody holds it, or its holder
went stale (no heartbeat for `heartbeat.stale_minutes`, counted from its take at the earliest)
or finished (`agent done`) without completing it: such a block is offered again, and its take
says from whom (`block_reoffered`). The next ready block is the first by (phase, wave,
priority, number).

`take` is a compare-and-swap under the queue lock (`.grid/.locks/blocks.lock`): the whole queue is
read and one block's owner written inside it, so N agents racing for fewer blocks each get a
different one and the rest hear "nothing ready" (errors.NothingReady, exit 8). The agent is
then registered with the block as its block, and claims the files its plan lists.

Across clones the remote's grid ref is the compare-and-swap (gridgit.history.publish): the API
runs `take_local` once this clone holds everything the remote had, pushes, and `withdraw`s the
take when another clone's push came first; `after_take` follows once the take stands.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from gridgit.coordination import activity, agents, claims, heartbeat
from gridgit.errors import BadInput, GridError, NothingReady
from gridgit.events import bus
from gridgit.model import mode, permissions, state
from gridgit.store import clock
from gridgit.store import config as config_mod
from gridgit.store.clone import clone_id
from gridgit.store.layout import Layout
from gridgit.work import blocks as blocks_mod
from gridgit.work.blockfile import Block, check_block_id
from gridgit.work.place import check_phase_known


@dataclass
class Offer:
    """A ready block; STALE_OWNER is who held it before going quiet (None for a block nobody held)."""

    block: Block
    stale_owner: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {**self.block.to_dict(), "stale_owner": self.stale_owner}


@dataclass
class TakeResult:
    """The block taken (ALREADY: the agent held it before), whom it was taken from, the files claimed."""

    block: Block
    already: bool = False
    reoffered_from: str | None = None
    claimed: list[str] = field(default_factory=list)
    overlaps: list[dict[str, Any]] = field(default_factory=list)
    pushed: bool = False  # the take is on the remote, confirmed first there (set by the API)
    provisional: bool = False  # a remote exists and has not confirmed it (set by the API): settled at the next sync
    reason: str = ""  # why it is provisional
    attempts: int = 0  # rounds on the remote before it was confirmed (set by the API): each extra one, a lost race
    before: dict[str, Any] = field(default_factory=dict)  # the block's take fields before it (what withdraw restores)

    def to_dict(self) -> dict[str, Any]:
        return {
            "block": self.block.to_dict(),
            "already": self.already,
            "reoffered_from": self.reoffered_from,
            "claimed": self.claimed,
            "overlaps": self.overlaps,
            "pushed": self.pushed,
            "provisional": self.provisional,
            "reason": self.reason,
        }


def _moment(text: Any) -> datetime:
    try:
        return clock.parse(str(text))
    except ValueError:
        return datetime.min.replace(tzinfo=clock.now().tzinfo)


def _gone(layout: Layout, block: Block, st: dict[str, Any], config: dict[str, Any], now: datetime) -> bool:
    """Whether BLOCK's holder stopped working on it: finished (`agent done`), or stale since its take.

    A holder not registered (yet: a take registers its agent after the queue lock) has the
    grace of its take, like one that just sent a heartbeat.
    """
    agents = st.get("agents") or {}
    active = {str(a.get("id")): a for a in agents.get("active") or [] if isinstance(a, dict)}
    owner = str(block.owner)
    if owner not in active and owner in heartbeat.agent_ids(agents.get("completed")):
        return True
    me = active.get(owner) or {"id": owner}
    if not heartbeat.sends_heartbeats(owner):
        return False  # Master Control and planners send no heartbeats: their takes never go stale
    signs = [t for t in (me.get("last_heartbeat"), block.taken_at, block.started_at) if t]
    alive = max(signs, key=_moment) if signs else None
    report = heartbeat.registered_staleness(layout, {**me, "last_heartbeat": alive}, [block.phase_id], now, config)
    return bool(report["stale"])


def _open_phases(st: dict[str, Any]) -> set[str]:
    definitions = [d for d in (st.get("phases") or {}).get("definitions") or [] if isinstance(d, dict)]
    done = {str(d.get("id")) for d in definitions if d.get("status") == "complete"}
    done |= {str(p) for p in (st.get("phases") or {}).get("completed") or []}
    opened = {str(d.get("id")) for d in definitions if d.get("status") == "in_progress"}
    current = state.current_phase(st)
    return (opened | ({current} if current else set())) - done


def offers(
    layout: Layout, every: list[Block], st: dict[str, Any], config: dict[str, Any], now: datetime
) -> tuple[list[Offer], dict[str, str]]:
    """(the ready blocks in the order they are taken, block id -> why each other block waits)."""
    complete = {b.block_id for b in every if b.complete}
    phases = _open_phases(st)
    proposals_wait = mode.proposals_wait(st)
    ready: list[Offer] = []
    waiting: dict[str, str] = {}
    for block in every:
        # A proposal waiting for approval is not the phase's plan yet: the waves after it do not wait for it.
        earlier = [b for b in every if b.phase_id == block.phase_id and b.wave < block.wave]
        before = [b.block_id for b in earlier if not (b.proposed and proposals_wait)]
        missing = [d for d in [*block.depends_on, *before] if d not in complete]
        if block.complete:
            waiting[block.block_id] = "complete"
        elif block.phase_id not in phases:
            waiting[block.block_id] = f"its phase {block.phase_id} is not in progress"
        elif block.proposed and proposals_wait:
            waiting[block.block_id] = f"proposed: waits for approval (`gridgit approve block {block.block_id}`)"
        elif missing:
            waiting[block.block_id] = "waits for " + ", ".join(dict.fromkeys(missing))
        elif block.held and not _gone(layout, block, st, config, now):
            waiting[block.block_id] = f"held by {block.owner} ({block.status})"
        else:
            ready.append(Offer(block, block.owner if block.held else None))
    ready.sort(key=lambda o: (o.block.phase_id, o.block.wave, o.block.priority, int(o.block.block_id[3:])))
    return ready, waiting


def ready(layout: Layout, phase: str | None = None, now: datetime | None = None) -> list[Offer]:
    """The blocks an agent may take now (of PHASE, when given), in the order `take` takes them."""
    layout.require()
    st = state.read(layout)
    if phase:
        check_phase_known(layout, phase, st)
    found, _ = offers(layout, blocks_mod.load_all(layout), st, config_mod.load(layout), now or clock.now())
    return [o for o in found if phase is None or o.block.phase_id == phase]


def _nothing(agent_id: str, waiting: dict[str, str]) -> NothingReady:
    if not waiting:
        return NothingReady(f"nothing ready for {agent_id}: no block is planned (`gridgit block plan`)")
    held = sum(1 for why in waiting.values() if why.startswith("held"))
    done = sum(1 for why in waiting.values() if why == "complete")
    parts = [f"{held} held", f"{len(waiting) - held - done} waiting", f"{done} complete"]
    return NothingReady(f"nothing ready for {agent_id}: of {len(waiting)} blocks, " + ", ".join(parts))


def take(layout: Layout, agent_id: str, block_id: str | None = None, now: datetime | None = None) -> TakeResult:
    """Take BLOCK_ID, or the next ready block, for AGENT_ID, in this clone alone (see the module docstring).

    An agent holds one block at a time: asking again returns the one it holds (already=True).
    """
    result = take_local(layout, agent_id, block_id, now)
    return result if result.already else after_take(layout, agent_id, result)


def take_local(layout: Layout, agent_id: str, block_id: str | None = None, now: datetime | None = None) -> TakeResult:
    """The take itself, under the queue lock: the PLAN file says AGENT_ID holds the block; nobody told yet."""
    permissions.check_agent_id(agent_id)
    if block_id is not None:
        check_block_id(block_id)
    layout.require()
    config = config_mod.load(layout)
    clone = clone_id(layout)
    moment = now or clock.now()
    with blocks_mod.queue_locked(layout):
        every = blocks_mod.load_all(layout)
        # What the block names must exist before the agent's rights are looked at (docs/cli.md).
        wanted = blocks_mod.find(every, block_id) if block_id else None
        blocks_mod.check_worker(agent_id)
        mine = next((b for b in every if b.owner == agent_id and b.held), None)
        wanted = wanted or mine
        if mine is not None and wanted is mine:
            return TakeResult(mine, already=True)
        if wanted is not None and wanted.complete:
            raise BadInput(f"block {wanted.block_id} is already complete")
        if mine is not None:
            raise BadInput(f"{agent_id} holds block {mine.block_id}: complete or release it before taking another")
        found, waiting = offers(layout, every, state.read(layout), config, moment)
        offer = next((o for o in found if block_id in (None, o.block.block_id)), None)
        if offer is None:
            if block_id:
                raise NothingReady(f"block {block_id} is not ready: {waiting.get(block_id, 'unknown')}")
            raise _nothing(agent_id, waiting)
        block = offer.block
        before = block.take()
        block.status, block.owner, block.clone = "taken", agent_id, clone
        block.taken_at, block.started_at, block.completed_at = clock.format_iso(moment), None, None
        blocks_mod.write_plan(layout, block)
    return TakeResult(block, reoffered_from=offer.stale_owner, before=before)


def withdraw(layout: Layout, result: TakeResult) -> None:
    """Undo a take another clone beat to the remote: the block's take fields as they were, if still this take's."""
    if result.already:
        return
    taken = result.block
    with blocks_mod.queue_locked(layout):
        block = blocks_mod.find(blocks_mod.load_phase(layout, taken.phase_id), taken.block_id)
        if (block.owner, block.clone, block.taken_at) != (taken.owner, taken.clone, taken.taken_at):
            return  # moved on since (a merge, a release): not this take any more
        for name, value in result.before.items():
            setattr(block, name, value)
        blocks_mod.write_plan(layout, block)


def after_take(layout: Layout, agent_id: str, result: TakeResult, assigned_by: str | None = None) -> TakeResult:
    """The block is the agent's (on disk): register it as its block, claim its files, tell everyone.

    ASSIGNED_BY: Master Control handed it over (gridgit.work.assign): `block_assigned`, not a take.
    """
    block = result.block
    task = f"block {block.block_id}" + (f": {block.name}" if block.name else "")
    agents.register(layout, agent_id, assigned_by or agent_id, task, block.block_id)
    payload = {"block_id": block.block_id, "phase_id": block.phase_id, "name": block.name, "agent": agent_id}
    stale = result.reoffered_from
    if stale:
        if assigned_by is None:
            bus.notify(layout, "block_reoffered", {**payload, "stale_agent": stale})
        blocks_mod.sync_state(layout, assigned_by or agent_id, f"take block {block.block_id} from {stale}", [stale])
    if block.files:
        try:
            if stale:
                claims.release(layout, stale, block.files)
            granted = claims.claim(layout, block.files, agent_id, exclusive=True, reason=f"block {block.block_id}")
            result.claimed = [c.pattern for c in granted.granted]
            result.overlaps = [c.to_dict() for c in granted.conflicts]
        except GridError as exc:  # the take stands: claims are advice, and the block is written
            import logging

            logging.getLogger("gridgit.work").warning("gridgit: warning: files of %s not claimed (%s)", task, exc)
    if assigned_by:
        bus.notify(layout, "block_assigned", {**payload, "owner": agent_id, "previous": stale, "agent": assigned_by})
    else:
        bus.notify(layout, "block_taken", {**payload, "clone": block.clone, "files": block.files})
        activity.record(layout, agent_id, f"take {block.block_id}")
    return result
