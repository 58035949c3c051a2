"""Master Control hands a block to an agent: assign a block nobody holds, or reassign a held one.

The same compare-and-swap as a take (gridgit.work.queue): the whole queue is read and the block's
owner written under the queue lock. A block nobody holds must be ready, as for a take; a held one
moves from its holder, whose claims on its files go with it. The new owner is registered with the
block and claims its files, as after a take. `block_assigned` tells both (their inboxes): the new
owner that the block is now theirs, the previous holder that it is not any more.

EXPECTED_OWNER makes it a compare-and-swap a person can trust from a page open for minutes: the
holder they saw ("" for nobody); when another process changed the block meanwhile, nothing changes
and they hear who holds it now.
"""

from __future__ import annotations

from gridgit.errors import BadInput, NothingReady, PermissionDenied
from gridgit.model import mode, permissions, state
from gridgit.store import clock
from gridgit.store import config as config_mod
from gridgit.store.clone import clone_id
from gridgit.store.layout import Layout
from gridgit.work import blocks as blocks_mod
from gridgit.work import queue, readiness
from gridgit.work.blockfile import check_block_id
from gridgit.work.place import resolve_phase


def _who(owner: str | None) -> str:
    return owner or "nobody"


def assign(
    layout: Layout,
    block_id: str,
    to_agent: str,
    agent_id: str,
    expected_owner: str | None = None,
    phase: str | None = None,
) -> queue.TakeResult:
    """Give BLOCK_ID to TO_AGENT (Master Control's AGENT_ID acts); `reoffered_from` is its previous holder.

    EXPECTED_OWNER (None: no check; "": nobody) must be who holds it now.
    """
    check_block_id(block_id)
    kind = permissions.agent_type(permissions.check_agent_id(agent_id))
    permissions.check_agent_id(to_agent)
    layout.require()
    config = config_mod.load(layout)
    with blocks_mod.queue_locked(layout):
        every = blocks_mod.load_all(layout)
        phase_id = resolve_phase(layout, block_id, phase)
        block = blocks_mod.find([b for b in every if b.phase_id == phase_id], block_id)
        if kind not in blocks_mod.SUPERVISORS:
            raise PermissionDenied(f"only Master Control assigns blocks ({agent_id} is {kind})")
        blocks_mod.check_worker(to_agent)
        holder = block.owner if block.held else None
        if expected_owner is not None and (expected_owner or None) != holder:
            raise BadInput(
                f"block {block_id} changed meanwhile: {_who(holder)} holds it now, not {_who(expected_owner or None)}; "
                "nothing changed"
            )
        if block.complete:
            raise BadInput(f"block {block_id} is already complete")
        if holder == to_agent:
            return queue.TakeResult(block, already=True)
        other = next((b for b in every if b.owner == to_agent and b.held), None)
        if other is not None:
            raise BadInput(f"{to_agent} holds block {other.block_id}: it completes or releases it first")
        st = state.read(layout)
        if block.proposed and mode.proposals_wait(st):
            raise BadInput(f"block {block_id} is proposed: approve it first (`gridgit approve block {block_id}`)")
        if holder is None:
            ready, waiting = readiness.offers(
                readiness.judge(layout, every, st, config, clock.now(), to_agent, take=block_id)
            )
            if block_id not in {o.block.block_id for o in ready}:
                raise NothingReady(f"block {block_id} is not ready: {waiting.get(block_id, 'unknown')}")
        block.status, block.owner, block.clone = "taken", to_agent, clone_id(layout)
        block.taken_at, block.started_at, block.completed_at = clock.now_iso(), None, None
        blocks_mod.write_plan(layout, block)
        result = queue.TakeResult(block, reoffered_from=holder)
        queue.claim_files(layout, result, to_agent)
    return queue.after_take(layout, to_agent, result, assigned_by=agent_id)
