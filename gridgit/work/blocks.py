"""Blocks of a phase: load, start, complete, release, list; STATE's counts and position follow the files.

Every change of a PLAN file happens under `.grid/.locks/blocks.lock` (one lock for every block, so a
take sees the whole queue), and the files are the truth: after each change STATE's
`phases.definitions[].blocks`/`blocks_complete`, `progress` and `position.block_*` are
recounted from them inside the STATE lock (`sync_state`), so the last writer counts what is on
disk. Planning is gridgit.work.planning's. Taking and working a block is anyone's but a scout's
(scouts only read), and only its owner (or Master Control) starts, completes or releases it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from gridgit.errors import BadInput, GridError, NeedsForce, NotFound, PermissionDenied
from gridgit.events import bus
from gridgit.model import permissions, state
from gridgit.model.state_lists import ListChange, current_list, item_id, updates_for
from gridgit.store import clock, fileio, journal, locks, usertext
from gridgit.store.config import deep_merge
from gridgit.store.layout import Layout
from gridgit.work.blockfile import (
    BLOCK_ID_RE,
    PLAN_RE,
    Block,
    Summary,
    plan_path,
    sort_key,
    summary_path,
)
from gridgit.work.place import check_phase_known, resolve_phase

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
        tags = f"  [{', '.join(b.labels)}]" if b.labels else ""
        lines.append(
            f"  {b.block_id:<6} {b.status:<12} {b.wave:>4} {'P' + str(b.priority):>3}  {b.owner or '-':<16} "
            f"{b.name or '-'}{tags}"
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
