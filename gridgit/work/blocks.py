"""Blocks of a phase: plan, start, complete, release, list; STATE's counts and position follow the files.

Every change of a PLAN file happens under `.grid/.locks/blocks.lock` (one lock for every block, so a
take sees the whole queue), and the files are the truth: after each change STATE's
`phases.definitions[].blocks`/`blocks_complete`, `progress` and `position.block_*` are
recounted from them inside the STATE lock (`sync_state`), so the last writer counts what is on
disk. Planning is Master Control's and planners' (the spec's planners write plans); in `hands_on`
mode a new block a planner plans is `proposed` until Master Control approves it (gridgit.model.mode).
Taking and working a block is anyone's but a scout's (scouts only read), and only its owner (or
Master Control) starts, completes or releases it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from gridgit.errors import BadInput, GridError, NeedsForce, NotFound, PermissionDenied
from gridgit.events import bus
from gridgit.model import mode, permissions, state
from gridgit.model.state_lists import ListChange, current_list, item_id, updates_for
from gridgit.store import clock, fileio, journal, locks, usertext
from gridgit.store.config import deep_merge
from gridgit.store.layout import Layout
from gridgit.work.blockfile import (
    BLOCK_ID_RE,
    MAX_WAVE,
    PLAN_RE,
    PRIORITIES,
    Block,
    Summary,
    check_block_id,
    plan_body,
    plan_path,
    sort_key,
    summary_path,
)
from gridgit.work.place import check_phase_known, resolve_phase

PLANNERS = frozenset({"mc", "planner", "system"})
SUPERVISORS = frozenset({"mc", "system"})


@contextmanager
def queue_locked(layout: Layout) -> Iterator[None]:
    """The lock of every PLAN file (`.grid/.locks/blocks.lock`): a take reads the whole queue and changes one block."""
    with locks.locked(layout.grid / "blocks"):
        yield


def load_phase(layout: Layout, phase_id: str) -> list[Block]:
    """The blocks of PHASE_ID (its PLAN files), by number; a broken file is an error naming it."""
    folder = layout.phase_dir(phase_id)
    if not folder.is_dir():
        return []
    found = []
    for path in sorted(p for p in folder.iterdir() if PLAN_RE.match(p.name)):
        found.append(Block.parse(fileio.read_text(path), str(path), phase_id, path.name))
    return found


def load_all(layout: Layout) -> list[Block]:
    """Every block of every phase folder, in (phase, number) order."""
    return [block for phase_id in layout.phase_ids() for block in load_phase(layout, phase_id)]


def find(blocks: list[Block], block_id: str) -> Block:
    for block in blocks:
        if block.block_id == block_id:
            return block
    raise NotFound(f"unknown block {block_id}: no plan (`gridgit block plan {block_id}`)")


def write_plan(layout: Layout, block: Block) -> None:
    path = plan_path(layout, block.phase_id, block.block_id)
    path.parent.mkdir(parents=True, exist_ok=True)
    journal.write(layout, path, block.render())


def check_worker(agent_id: str) -> str:
    """AGENT_ID when its type may take and work blocks (everyone but scouts, who only read)."""
    from gridgit.coordination.agents import check_agent_id

    kind = check_agent_id(agent_id)
    if kind == "scout":
        raise PermissionDenied(f"scouts only read: {agent_id} may not take or work a block")
    return kind


def _check_owner(block: Block, agent_id: str, action: str) -> None:
    kind = permissions.agent_type(permissions.check_agent_id(agent_id))
    if kind not in SUPERVISORS:
        check_worker(agent_id)
    if block.complete:
        raise BadInput(f"block {block.block_id} is already complete (its summary: {block.block_id[3:]}-SUMMARY.md)")
    if not block.held:
        raise BadInput(f"nobody holds block {block.block_id}: take it first (`gridgit take {block.block_id}`)")
    if block.owner != agent_id and kind not in SUPERVISORS:
        lost = next((c for c in block.contested if isinstance(c, dict) and c.get("agent") == agent_id), None)
        if lost is not None:  # a provisional take that lost to one the remote held first
            raise PermissionDenied(
                f"your take of block {block.block_id} lost to {block.owner} in another clone (who took it first "
                f"on the remote): it is theirs, so you may not {action} it; `gridgit take` another"
            )
        raise PermissionDenied(f"block {block.block_id} is {block.owner}'s: only its owner or mc may {action} it")


# ---- plan --------------------------------------------------------------------------------------


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
) -> tuple[Block, bool]:
    """Write (or rewrite) BLOCK_ID's PLAN file; (the block, True when it is new). A complete block's plan is final.

    A new block a planner plans in `hands_on` mode is proposed (it waits for `approve`); planning
    it again keeps its status, whatever it is.
    """
    from gridgit.coordination.claims import normalise_pattern

    check_block_id(block_id)
    kind = permissions.agent_type(permissions.check_agent_id(agent_id))
    if kind not in PLANNERS:
        raise PermissionDenied(f"only planners and Master Control plan blocks ({agent_id} is {kind})")
    title = usertext.clean_name(name, "a block name") or ""
    text = usertext.clean(content or "", "content", "a block plan")
    deps = list(dict.fromkeys(check_block_id(d.strip()) for d in depends_on or [] if d.strip()))
    if wave is not None and not 1 <= wave <= MAX_WAVE:
        raise BadInput(f"--wave {wave}: a wave is a whole number from 1 to {MAX_WAVE}")
    if priority is not None and (isinstance(priority, bool) or priority not in PRIORITIES):
        raise BadInput(f"--priority {priority}: a priority is a whole number from 0 (first) to 4 (last)")
    patterns = list(dict.fromkeys(normalise_pattern(layout, usertext.check_size(f, "path")) for f in files or []))
    layout.require()
    with queue_locked(layout):
        phase_id = resolve_phase(layout, block_id, phase)
        blocks = load_phase(layout, phase_id) + [b for b in load_all(layout) if b.phase_id != phase_id]
        existing = next((b for b in blocks if b.block_id == block_id), None)
        if existing is not None and existing.complete:
            raise BadInput(f"block {block_id} is complete: its plan is final")
        block = existing or Block(block_id, phase_id, planned_by=agent_id, planned_at=clock.now_iso())
        if existing is None and mode.proposes(state.read(layout), kind):
            block.status = "proposed"
        block.name = title or block.name
        block.priority = priority if priority is not None else block.priority
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
               "priority": block.priority, "status": block.status}  # fmt: skip
    bus.notify(layout, "block_planned", {**payload, "depends_on": block.depends_on, "agent": agent_id,
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


# ---- start, complete, release ------------------------------------------------------------------


def _update(
    layout: Layout, block_id: str, agent_id: str, action: str, apply: Callable[[Block], bool], phase: str | None = None
) -> Block:
    """Apply APPLY to BLOCK_ID's block under the queue lock, after the owner check; written when it returns True."""
    with queue_locked(layout):
        block = find(load_phase(layout, resolve_phase(layout, block_id, phase)), block_id)
        _check_owner(block, agent_id, action)
        if apply(block):
            write_plan(layout, block)
    return block


def start(layout: Layout, block_id: str, agent_id: str, phase: str | None = None) -> tuple[Block, bool]:
    """Mark BLOCK_ID in progress (its owner starts work); (block, False) when it already was."""
    started: list[bool] = []

    def apply(block: Block) -> bool:
        started.append(block.status != "in_progress")
        if started[0]:
            block.status, block.started_at = "in_progress", clock.now_iso()
        return started[0]

    layout.require()
    block = _update(layout, block_id, agent_id, "start", apply, phase)
    if started[0]:
        payload = {"block_id": block_id, "phase_id": block.phase_id, "name": block.name, "owner": block.owner}
        bus.notify(layout, "block_started", {**payload, "agent": agent_id})
    return block, started[0]


def _commits_of(layout: Layout, agent_id: str, since: str | None) -> list[str]:
    """The commits AGENT_ID made since SINCE (its take), as the post-commit hook recorded them, oldest first."""
    from gridgit.events import scan

    if not since or not layout.events_log.exists():
        return []
    found = scan.read_backwards(layout, since=clock.parse(since).timestamp(), types=["commit_recorded"])
    commits = [str(e["payload"].get("commit")) for e in found if e["payload"].get("agent") == agent_id]
    return [c for c in reversed(commits) if c and c != "None"]


def complete(
    layout: Layout,
    block_id: str,
    agent_id: str,
    summary: str,
    commits: list[str] | None = None,
    phase: str | None = None,
) -> Block:
    """Complete BLOCK_ID: its SUMMARY file, then the PLAN's status; its owner's claims on its files are released.

    An empty summary is refused; completing a block twice is bad input (nothing changes).
    """
    text = usertext.clean(summary or "", "content", "a block summary").strip()
    if not text:
        raise BadInput(f"block {block_id}: the summary is empty; say what was done (`--summary -` reads stdin)")
    given = [usertext.clean(c.strip(), "name", "a commit", one_line=True) for c in commits or [] if c.strip()]
    layout.require()
    owner: list[str] = []

    def apply(block: Block) -> bool:
        owner.append(str(block.owner))
        now = clock.now_iso()
        block.commits = list(dict.fromkeys([*block.commits, *given, *_commits_of(layout, owner[0], block.taken_at)]))
        written = Summary(block_id, block.phase_id, block.name, owner[0], now, block.commits, text)
        # The summary first: a crash before the PLAN says complete leaves a block that completes again.
        journal.write(layout, summary_path(layout, block.phase_id, block_id), written.render())
        block.status, block.completed_at = "complete", now
        block.started_at = block.started_at or block.taken_at
        return True

    block = _update(layout, block_id, agent_id, "complete", apply, phase)
    _let_go(layout, block, owner[0])
    payload = {"block_id": block_id, "phase_id": block.phase_id, "name": block.name, "owner": owner[0]}
    bus.notify(layout, "block_completed", {**payload, "commits": block.commits, "agent": agent_id})
    sync_state(layout, agent_id, f"complete block {block_id}", [owner[0]])
    from gridgit.memory import artifacts  # the files its commits added: the mission's artifacts

    artifacts.created(layout, block_id, block.phase_id, block.commits)
    return block


def release(layout: Layout, block_id: str, agent_id: str, phase: str | None = None) -> Block:
    """Give BLOCK_ID back to the queue (planned, nobody's); its owner's claims on its files are released."""
    owner: list[str] = []

    def apply(block: Block) -> bool:
        owner.append(str(block.owner))
        block.status, block.owner, block.clone = "planned", None, None
        block.taken_at = block.started_at = None
        return True

    layout.require()
    block = _update(layout, block_id, agent_id, "release", apply, phase)
    _let_go(layout, block, owner[0])
    payload = {"block_id": block_id, "phase_id": block.phase_id, "owner": owner[0], "agent": agent_id}
    bus.notify(layout, "block_released", payload)
    sync_state(layout, agent_id, f"release block {block_id}", [owner[0]])
    return block


def _let_go(layout: Layout, block: Block, owner: str) -> None:
    """OWNER's claims on BLOCK's files go with the block; a claim file that fails is a warning (the block changed)."""
    if not block.files:
        return
    from gridgit.coordination import claims

    try:
        claims.release(layout, owner, block.files)
    except GridError as exc:
        import logging

        logging.getLogger("gridgit.work").warning("gridgit: warning: claims of %s kept (%s)", owner, exc)


# ---- what other workflows ask ------------------------------------------------------------------


def check_phase_done(layout: Layout, phase_id: str) -> None:
    """Refuse to complete PHASE_ID while one of its blocks is taken or in progress (`phase complete --force` skips this)."""
    held = [b for b in load_phase(layout, phase_id) if b.held]
    if held:
        shown = ", ".join(f"{b.block_id} ({b.owner}, {b.status})" for b in held)
        raise NeedsForce(
            f"phase {phase_id} has blocks in progress: {shown}; complete or release them "
            "(`gridgit block complete|release`), or pass --force"
        )


def get(layout: Layout, block_id: str, phase: str | None = None) -> Block:
    """BLOCK_ID's block (errors.NotFound when it has no plan)."""
    layout.require()
    return find(load_phase(layout, resolve_phase(layout, block_id, phase)), block_id)


def check_named(layout: Layout, block_id: str) -> None:
    """A block an agent says it works on (`agent register --block`, MCP start_session): NotFound when it is
    an `NN-MM` id whose phase does not exist, or whose phase has a queue (PLAN files) without it.

    A phase without PLAN files keeps blocks as STATE's position counts them, so any number is one.
    """
    if not BLOCK_ID_RE.match(block_id):
        return  # free text (`01-02 -> 01-03`, a name): nothing to look up
    queue = load_phase(layout, resolve_phase(layout, block_id))
    if queue:
        find(queue, block_id)


def listing(layout: Layout, phase: str | None = None) -> list[Block]:
    """The blocks of PHASE (every phase when None), in (phase, number) order."""
    layout.require()
    return load_phase(layout, check_phase_known(layout, phase)) if phase else load_all(layout)


def table(rows: list[Block]) -> str:
    """Blocks as `gridgit block list` prints them (and the MCP resource grid://blocks)."""
    if not rows:
        return "no blocks (`gridgit block plan`)"
    lines = [f"  {'BLOCK':<6} {'STATUS':<12} {'WAVE':>4} {'PRI':>3}  {'OWNER':<16} NAME"]
    for b in rows:
        lines.append(
            f"  {b.block_id:<6} {b.status:<12} {b.wave:>4} {b.priority:>3}  {b.owner or '-':<16} {b.name or '-'}"
        )
    return "\n".join(lines)


# ---- STATE in step -------------------------------------------------------------------------------


def _fraction(definition: dict[str, Any], counts: tuple[int, int]) -> float:
    if definition.get("status") == "complete":
        return 1.0
    total, done = counts
    return done / total if total else 0.0


def state_updates(st: dict[str, Any], blocks: list[Block]) -> dict[str, Any]:
    """The STATE fields that follow BLOCKS: per-phase counts, progress, the current phase's block position.

    Progress is the mean over phases of each one's share done (a complete phase counts whole, a
    phase with blocks by its complete blocks), so it agrees with phase completion's own count.
    """
    blocks = [b for b in blocks if not b.proposed]  # not the phase's work until approved
    counts: dict[str, tuple[int, int]] = {}
    for block in blocks:
        total, done = counts.get(block.phase_id, (0, 0))
        counts[block.phase_id] = (total + 1, done + block.complete)
    definitions = [dict(d) for d in (st.get("phases") or {}).get("definitions") or [] if isinstance(d, dict)]
    for definition in definitions:
        total, done = counts.get(str(definition.get("id")), (0, 0))
        if definition.get("status") != "complete":
            definition.update(blocks=total, blocks_complete=done)
    percent = sum(_fraction(d, counts.get(str(d.get("id")), (0, 0))) for d in definitions)
    threads = [b.threads() for b in blocks]
    updates: dict[str, Any] = {
        "phases": {"definitions": definitions},
        "progress": {
            "blocks_total": len(blocks),
            "blocks_complete": sum(b.complete for b in blocks),
            "threads_total": sum(total for total, _ in threads),
            "threads_complete": sum(done for _, done in threads),
            "percent": round(100.0 * percent / max(len(definitions), 1), 1),
        },
    }
    current = state.current_phase(st)
    mine = [b for b in blocks if b.phase_id == current]
    if mine:
        # The position is the phase's frontier: its first block not complete (the last one when all are),
        # its wave, and the thread it is at (its first task not done).
        at = next((b for b in mine if not b.complete), mine[-1])
        total, done = at.threads()
        updates["position"] = {"block": sort_key(at.block_id)[1], "block_id": at.block_id,
                               "block_name": at.name or None, "wave": at.wave, "thread": min(done + 1, total),
                               "thread_total": total}  # fmt: skip
    return updates


def position_updates(layout: Layout, st: dict[str, Any], updates: dict[str, Any]) -> dict[str, Any]:
    """UPDATES (a phase change) with the block fields that follow the phase they move to: its planned blocks."""
    return deep_merge(updates, state_updates(deep_merge(st, updates), load_all(layout)))


def sync_state(layout: Layout, actor: str, action: str, let_go: list[str] | None = None) -> None:
    """Recount STATE's block fields from the files under the STATE lock; agents in LET_GO no longer hold a block.

    gridgit's bookkeeping on the actor's behalf (like a heartbeat's stamp): no STATE permission is needed.
    """

    def compute(st: dict[str, Any]) -> dict[str, Any]:
        updates = state_updates(st, load_all(layout))
        active = {item_id(a) for a in current_list(st, "agents.active")}
        changes = [ListChange.update("agents.active", {"id": a, "block": None}) for a in let_go or [] if a in active]
        if changes:
            updates.update(updates_for(st, changes))
        return {key: value for key, value in updates.items() if _differs(st, key, value)}

    state.update_with(layout, compute, actor, action, check_permission=False)


def _differs(st: dict[str, Any], key: str, value: Any) -> bool:
    old = st.get(key)
    if isinstance(value, dict) and isinstance(old, dict):
        return any(_differs(old, k, v) for k, v in value.items())
    return bool(old != value)
