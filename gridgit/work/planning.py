"""Planning blocks: writing a PLAN file (new, or an edit), and Master Control's approval of a proposed one.

Planning is Master Control's and planners' (the spec's planners write plans). Any other agent that
works blocks (everyone but scouts) may file a new block it discovered while working: with
`discovered_from` (the block it was working on, beads' "discovered-from" link), recorded in the PLAN
file. In `hands_on` mode a new block anyone but Master Control plans is `proposed` until Master
Control approves it (gridgit.model.mode); otherwise it is planned, in the queue at once.
"""

from __future__ import annotations

from gridgit.errors import BadInput, NotFound, PermissionDenied
from gridgit.events import bus
from gridgit.model import mode, permissions, state
from gridgit.store import clock, usertext
from gridgit.store.layout import Layout
from gridgit.work.blockfile import MAX_WAVE, PRIORITIES, Block, check_block_id, check_labels, plan_body
from gridgit.work.blocks import check_worker, find, load_all, load_phase, queue_locked, sync_state, write_plan
from gridgit.work.place import resolve_phase

PLANNERS = frozenset({"mc", "planner", "system"})


def _check_dependencies(block: Block, blocks: list[Block]) -> None:
    """Every dependency planned, no cycle, and a wave after the waves of its dependencies in its phase."""
    by_id = {b.block_id: b for b in blocks}
    by_id[block.block_id] = block
    for dep in block.depends_on:
        if dep == block.block_id:
            raise BadInput(f"block {dep} cannot depend on itself")
        if dep not in by_id:
            raise NotFound(f"dependency {dep} of block {block.block_id} is not planned (plan it first)")
        other = by_id[dep]
        if other.phase_id == block.phase_id and other.wave >= block.wave:
            raise BadInput(
                f"block {block.block_id} (wave {block.wave}) depends on {dep} (wave {other.wave}) of its phase: "
                "a block's wave comes after its dependencies' waves"
            )
    seen: set[str] = set()
    path: list[str] = []

    def visit(block_id: str) -> None:
        if block_id in path:
            raise BadInput(f"dependency cycle: {' -> '.join([*path[path.index(block_id) :], block_id])}")
        if block_id in seen or block_id not in by_id:
            return
        path.append(block_id)
        for dep in by_id[block_id].depends_on:
            visit(dep)
        path.pop()
        seen.add(block_id)

    visit(block.block_id)


def _check_planner(kind: str, agent_id: str, discovered: str | None) -> None:
    """Planners plan anything; another working agent only a block it discovered (DISCOVERED set), and only anew."""
    if kind in PLANNERS:
        return
    if discovered is None:
        raise PermissionDenied(
            f"only planners and Master Control plan blocks ({agent_id} is {kind}); "
            "file work you discovered with `--discovered-from BLOCK`"
        )
    check_worker(agent_id)


def plan(
    layout: Layout,
    block_id: str,
    agent_id: str,
    name: str | None = None,
    content: str = "",
    depends_on: list[str] | None = None,
    wave: int | None = None,
    files: list[str] | None = None,
    phase: str | None = None,
    priority: int | None = None,
    labels: list[str] | None = None,
    discovered_from: str | None = None,
) -> tuple[Block, bool]:
    """Write (or rewrite) BLOCK_ID's PLAN file; (the block, True when it is new). A complete block's plan is final.

    A new block anyone but Master Control plans in `hands_on` mode is proposed (it waits for
    `approve`); planning it again keeps its status, whatever it is. None keeps what was there.
    """
    from gridgit.coordination.claims import normalise_pattern

    check_block_id(block_id)
    kind = permissions.agent_type(permissions.check_agent_id(agent_id))
    _check_planner(kind, agent_id, discovered_from)
    title = usertext.clean_name(name, "a block name") or ""
    text = usertext.clean(content or "", "content", "a block plan")
    deps = list(dict.fromkeys(check_block_id(d.strip()) for d in depends_on or [] if d.strip()))
    if wave is not None and not 1 <= wave <= MAX_WAVE:
        raise BadInput(f"--wave {wave}: a wave is a whole number from 1 to {MAX_WAVE}")
    if priority is not None and (isinstance(priority, bool) or priority not in PRIORITIES):
        raise BadInput(f"--priority {priority}: a priority is a whole number from 0 (first) to 4 (last)")
    tags = check_labels(labels) if labels is not None else None
    origin = check_block_id(discovered_from) if discovered_from is not None else None
    patterns = list(dict.fromkeys(normalise_pattern(layout, usertext.check_size(f, "path")) for f in files or []))
    layout.require()
    with queue_locked(layout):
        phase_id = resolve_phase(layout, block_id, phase)
        blocks = load_phase(layout, phase_id) + [b for b in load_all(layout) if b.phase_id != phase_id]
        existing = next((b for b in blocks if b.block_id == block_id), None)
        if existing is not None and kind not in PLANNERS:
            raise PermissionDenied(f"block {block_id} is planned already: only planners and Master Control edit it")
        if origin is not None and origin != block_id:
            find(blocks, origin)  # the block it was found in must be planned
        elif origin is not None:
            raise BadInput(f"block {block_id} cannot be discovered from itself")
        if existing is not None and existing.complete:
            raise BadInput(f"block {block_id} is complete: its plan is final")
        block = existing or Block(block_id, phase_id, planned_by=agent_id, planned_at=clock.now_iso())
        if existing is None and mode.proposes(state.read(layout), kind):
            block.status = "proposed"
        block.name = title or block.name
        block.priority = priority if priority is not None else block.priority
        block.labels = tags if tags is not None else block.labels
        block.discovered_from = origin or block.discovered_from
        block.depends_on = deps if depends_on is not None else block.depends_on
        block.files = patterns if files is not None else block.files
        earlier = [b for b in blocks if b.block_id in block.depends_on and b.phase_id == phase_id]
        block.wave = wave if wave is not None else (existing.wave if existing else 1)
        if wave is None and earlier:  # after the waves of its dependencies, unless told otherwise
            block.wave = max(block.wave, 1 + max(b.wave for b in earlier))
        _check_dependencies(block, [b for b in blocks if b.block_id != block_id])
        block.body = plan_body(block_id, block.name, text if content or existing is None else block.plan)
        write_plan(layout, block)
    payload = {"block_id": block_id, "phase_id": phase_id, "name": block.name, "wave": block.wave,
               "priority": block.priority, "labels": block.labels, "status": block.status}  # fmt: skip
    bus.notify(layout, "block_planned", {**payload, "depends_on": block.depends_on, "agent": agent_id,
                                         "discovered_from": block.discovered_from,
                                         "replanned": existing is not None})  # fmt: skip
    sync_state(layout, agent_id, f"plan block {block_id}")
    return block, existing is None


def approve(layout: Layout, block_id: str, agent_id: str, phase: str | None = None) -> Block:
    """Master Control approves the proposed block BLOCK_ID: it is planned (offered when ready); its planner is told."""
    kind = permissions.agent_type(permissions.check_agent_id(agent_id))
    check_block_id(block_id)
    layout.require()
    with queue_locked(layout):
        block = find(load_phase(layout, resolve_phase(layout, block_id, phase)), block_id)
        if kind not in mode.APPROVERS:
            raise PermissionDenied(f"only Master Control approves blocks ({agent_id} is {kind})")
        if not block.proposed:
            by = f", approved by {block.approved_by}" if block.approved_by else ""
            raise BadInput(f"block {block_id} is not proposed: it is {block.status}{by}; nothing to approve")
        block.status, block.approved_by, block.approved_at = "planned", agent_id, clock.now_iso()
        write_plan(layout, block)
    payload = {"block_id": block_id, "phase_id": block.phase_id, "name": block.name, "planned_by": block.planned_by}
    bus.notify(layout, "block_approved", {**payload, "agent": agent_id})
    sync_state(layout, agent_id, f"approve block {block_id}")
    return block
