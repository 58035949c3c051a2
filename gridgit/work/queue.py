"""The work queue: taking a ready block atomically (which blocks are ready, and why: gridgit.work.readiness).

The next ready block is the first by (priority, phase, wave, number) that the taker's labels
select; a block whose files overlap work in progress is not ready, so two takes never hand out
one file twice. A stale holder's block taken again says from whom (`block_reoffered`).

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

from gridgit.coordination import activity, agents, claims
from gridgit.errors import BadInput, GridError, NothingReady
from gridgit.events import bus
from gridgit.model import permissions, state
from gridgit.store import clock
from gridgit.store import config as config_mod
from gridgit.store.clone import clone_id
from gridgit.store.layout import Layout
from gridgit.work import blocks as blocks_mod
from gridgit.work.blockfile import Block, check_block_id, check_labels
from gridgit.work.readiness import judge, offers


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
    claims: Any = None  # the take's claims.ClaimResult (made with the take, withdrawn with it)
    let_go: list[Any] = field(default_factory=list)  # the quiet holder's claims the take released

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


def _nothing(agent_id: str, waiting: dict[str, str]) -> NothingReady:
    if not waiting:
        return NothingReady(f"nothing ready for {agent_id}: no block is planned (`gridgit block plan`)")
    held = sum(1 for why in waiting.values() if why.startswith("held"))
    done = sum(1 for why in waiting.values() if why == "complete")
    overlapping = sum(1 for why in waiting.values() if why.startswith("its files overlap"))
    filtered = sum(1 for why in waiting.values() if why.startswith("filtered out"))
    parts = [f"{held} held", f"{len(waiting) - held - done - overlapping - filtered} waiting", f"{done} complete"]
    parts += [f"{overlapping} overlapping work in progress"] if overlapping else []
    parts += [f"{filtered} without the labels asked for"] if filtered else []
    why = f"nothing ready for {agent_id}: of {len(waiting)} blocks, " + ", ".join(parts)
    return NothingReady(why + " (`gridgit ready --explain` says why each waits)")


def take_local(
    layout: Layout,
    agent_id: str,
    block_id: str | None = None,
    now: datetime | None = None,
    labels: list[str] | None = None,
) -> TakeResult:
    """The take itself, under the queue lock: the PLAN file says AGENT_ID holds the block; nobody told yet.

    LABELS select the next ready block; a block named is taken whatever its labels.
    """
    permissions.check_agent_id(agent_id)
    if block_id is not None:
        check_block_id(block_id)
    wanted_labels = check_labels(labels) if block_id is None else []
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
        st = state.read(layout)
        found, waiting = offers(judge(layout, every, st, config, moment, agent_id, wanted_labels, block_id or ""))
        offer = next(iter(found), None)
        if offer is None:
            if block_id:
                raise NothingReady(f"block {block_id} is not ready: {waiting.get(block_id, 'unknown')}")
            raise _nothing(agent_id, waiting)
        block = offer.block
        before = block.take()
        block.status, block.owner, block.clone = "taken", agent_id, clone
        block.taken_at, block.started_at, block.completed_at = clock.format_iso(moment), None, None
        blocks_mod.write_plan(layout, block)
        result = TakeResult(block, reoffered_from=offer.stale_owner, before=before)
        claim_files(layout, result, agent_id)
    return result


def claim_files(layout: Layout, result: TakeResult, agent_id: str) -> None:
    """The files of RESULT's block become AGENT_ID's exclusive claims, in the same grid commit as the take (so
    they reach the other clones with it, and are withdrawn with it); a quiet holder's claims on them go."""
    block = result.block
    if not block.files:
        return
    try:
        if result.reoffered_from:
            result.let_go = claims.release(layout, result.reoffered_from, block.files, by="system", tell=False)
        granted = claims.claim(layout, block.files, agent_id, exclusive=True, reason=f"block {block.block_id}",
                               tell=False)  # fmt: skip
        result.claims = granted
        result.claimed = [c.pattern for c in granted.granted]
        result.overlaps = [c.to_dict() for c in granted.conflicts]
    except GridError as exc:  # the take stands: claims are advice, and the block is written
        import logging

        logging.getLogger("gridgit.work").warning("gridgit: warning: files of block %s not claimed (%s)",
                                                  block.block_id, exc)  # fmt: skip


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
    made = result.claims
    before = {c.id: c.replace(released_at=None, released_by=None) for c in result.let_go}
    if made is not None:
        before.update(made.before)
    claims.undo(layout, before, [*result.let_go, *(made.granted if made is not None else [])])


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
        claims.announce_release(layout, stale, stale, result.let_go)  # its block going is what it hears of
    if result.claims is not None:
        claims.announce(layout, agent_id, result.claims)
    if assigned_by:
        bus.notify(layout, "block_assigned", {**payload, "owner": agent_id, "previous": stale, "agent": assigned_by})
    else:
        bus.notify(layout, "block_taken", {**payload, "clone": block.clone, "files": block.files})
        activity.record(layout, agent_id, f"take {block.block_id}")
    return result
