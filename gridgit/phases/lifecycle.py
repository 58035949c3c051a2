"""Phase lifecycle (spec 9): start a phase, complete it (promote, archive, carry forward,
STATE), list phases.

Completion is idempotent and resumable. STATE.md is its commit point: every step before it
(promotion, archive, carry-forward) skips what an earlier, interrupted run already did, and
the STATE update that marks the phase complete comes last, so running it again after a
crash finishes the job without duplicating a learning, an archived entry or a carried one.
Phase workflows serialise on the lock of `.grid/phases` (`.grid/.locks/phases.lock`), taken before any data lock (order:
phases -> STATE -> scratchpad -> LEARNINGS -> events).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from gridgit.errors import BadInput, GridError, PermissionDenied
from gridgit.events import bus
from gridgit.memory import workspace as memory
from gridgit.model import learnings, mode, permissions, state
from gridgit.model.permissions import SYSTEM_AGENT as SYSTEM
from gridgit.phases import approval, archiving, carry_forward, order, promotion
from gridgit.scratchpad import archive, store, subscriptions
from gridgit.scratchpad.document import Scratchpad
from gridgit.scratchpad.entry import Entry, Resolution
from gridgit.store import clock, locks, usertext
from gridgit.store import config as config_mod
from gridgit.store.layout import Layout, check_phase_id, default_phase_name, parse_phase_spec

MASTER_CONTROL = frozenset({"mc", "system"})


def check_master_control(agent_id: str, action: str) -> None:
    kind = permissions.agent_type(agent_id)
    if kind not in MASTER_CONTROL:
        raise PermissionDenied(f"only Master Control (mc) may {action} (agent {agent_id} is {kind})")


def _new_definition(phase_id: str, name: str | None, now: str) -> dict[str, Any]:
    return {
        "id": phase_id,
        "name": name or default_phase_name(phase_id),
        "status": "in_progress",
        "blocks": 0,
        "blocks_complete": 0,
        "started_at": now,
        "completed_at": None,
    }


def _insert_sorted(definitions: list[dict[str, Any]], definition: dict[str, Any]) -> None:
    """Keep definitions in phase-id order (NN first), which is the order phases run in."""
    position = next((i for i, d in enumerate(definitions) if str(d.get("id")) > definition["id"]), len(definitions))
    definitions.insert(position, definition)


def _position(phase_id: str, name: str) -> dict[str, Any]:
    return {
        "phase": order.phase_number(phase_id),
        "phase_id": phase_id,
        "phase_name": name,
        "block": 1,
        "block_id": None,
        "block_name": None,
        "wave": 1,
        "thread": 1,
    }


# ---- start ---------------------------------------------------------------------------------


def start_phase(
    layout: Layout, phase_id: str, name: str | None = None, agent_id: str = "mc", force: bool = False
) -> bool:
    """Create the phase directory and empty scratchpad and mark the phase in_progress in STATE.

    STATE's position moves to the phase when it points at no phase or a completed one.
    Returns False, changing nothing, when the phase already exists and has started. Another
    phase in progress, or a pending one before it, is refused unless FORCE (gridgit.phases.order):
    then the phase in progress is completed into this one and the pending ones are skipped.
    """
    check_phase_id(phase_id)
    name = usertext.clean_name(name, "a phase name")
    check_master_control(agent_id, "start a phase")
    layout.require()
    with locks.locked(layout.phases_dir):
        st = state.read(layout)
        defined = order.find(order.definitions(st), phase_id)
        starts = defined is None or defined.get("status") == "pending"
        forced = order.check(order.start_problem(st, phase_id), force) if starts else {}
        defined = defined or {}
        phase_name = name or str(defined.get("name") or default_phase_name(phase_id))
        skip: list[str] = []
        if forced:  # one phase in progress, the order whole (gridgit.phases.order)
            busy = order.in_progress(st, (phase_id,))
            for other in busy:  # its events record what this start overrode
                complete_phase(layout, other, f"{phase_id}:{phase_name}", agent_id, force=True, forced_by=forced)
            st = state.read(layout)
            skip = order.pending_between(st, None, phase_id)
            forced.update(completed=busy, skipped=skip)
        created = store.create(layout, phase_id, phase_name)
        now = clock.now_iso()
        moved_from: list[str | None] = []  # set when STATE's position moves to this phase

        def change(st: dict[str, Any]) -> dict[str, Any]:
            definitions = order.skipped(st, skip, now)
            definition = order.find(definitions, phase_id)
            if definition is None:
                _insert_sorted(definitions, _new_definition(phase_id, phase_name, now))
            elif definition.get("status") == "pending":
                definition.update(status="in_progress", started_at=definition.get("started_at") or now)
            elif not skip:
                return {}
            updates: dict[str, Any] = {"phases": {"definitions": definitions, "total": len(definitions)}}
            if skip:
                updates["phases"]["completed"] = _with_completed(st, skip)
            current = state.current_phase(st)
            if not current or order.is_complete(st, current):
                chosen = order.find(definitions, phase_id) or {}
                updates["position"] = _position(phase_id, str(chosen.get("name") or phase_name))
                updates["phases"]["current"] = order.phase_number(phase_id)
                if st.get("status") in ("planning", "complete"):
                    updates["status"] = "in_progress"
                moved_from[:] = [current]
            return updates

        changed_state = (
            state.update_with(layout, lambda old: _blocks_follow(layout, old, change(old)), agent_id) is not None
        )
        if created or changed_state:
            payload = {"phase_id": phase_id, "phase_name": phase_name, "agent": agent_id, **forced}
            bus.notify(layout, "phase_started", payload)
        if changed_state and moved_from:
            payload = {"old_phase": moved_from[0], "new_phase": phase_id, "agent": agent_id}
            bus.notify(layout, "phase_changed", payload)
    return created or changed_state or bool(forced)


# ---- complete ------------------------------------------------------------------------------


@dataclass
class CompletionResult:
    phase_id: str
    next_phase_id: str | None = None
    already_complete: bool = False
    promoted: list[str] = field(default_factory=list)  # titles of the learnings added
    archived: int = 0
    carried: int = 0
    awaiting_approval: dict[str, Any] | None = None  # the mode made it wait: the request (gridgit.phases.approval)
    restored: list[str] = field(default_factory=list)  # files of the phase brought back first (set by the API)
    waiting: list[dict[str, Any]] = field(default_factory=list)  # HIGH entries archived short of their validations

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def next_open_phase(st: dict[str, Any], phase_id: str) -> tuple[str | None, str | None]:
    """The first phase defined after PHASE_ID that is not complete (None when there is none)."""
    definitions = order.definitions(st)
    ids = [str(d.get("id")) for d in definitions]
    later = (
        definitions[ids.index(phase_id) + 1 :] if phase_id in ids else [d for d in definitions if d["id"] > phase_id]
    )
    for definition in later:
        if definition.get("status") != "complete":
            return str(definition["id"]), definition.get("name")
    return None, None


def _load(layout: Layout, phase_id: str, pad: Scratchpad | None = None) -> tuple[Scratchpad | None, list[Entry]]:
    """The phase's scratchpad (PAD when already read) and its archive, both parsed."""
    return pad or store.load_if_any(layout, phase_id), archive.read(layout, phase_id)


def _known_origins(layout: Layout) -> set[str]:
    """The origins of the learnings LEARNINGS.md holds: the entries promoted already."""
    return {item.origin for item in learnings.load(layout).learnings() if item.origin}


def complete_phase(
    layout: Layout,
    phase_id: str,
    next_phase: str | None = None,
    agent_id: str = "mc",
    marked_in_state: bool = False,
    force: bool = False,
    approved: bool = False,
    forced_by: dict[str, Any] | None = None,
) -> CompletionResult:
    """Complete PHASE_ID: promote, carry forward into the next phase, archive, update STATE.

    NEXT_PHASE (`ID[:NAME]`) defaults to the next phase STATE defines that is not complete;
    one that skips a pending phase, or completing past the current phase, is refused unless
    FORCE (gridgit.phases.order): then the current phase it passes is completed into it first, and
    the pending phases it passes over are skipped. A phase already complete changes nothing
    (already_complete=True), so git hooks may run this for every commit that carries
    `Grid-Phase-Complete:`. MARKED_IN_STATE: someone marked it complete by editing STATE.md,
    so the steps run while its scratchpad still holds entries (once: they leave it empty).
    A phase with a block taken or in progress is refused unless FORCE too. FORCED_BY: what a
    forced `phase start` overrode to complete this phase, recorded on its events. In `guided` and
    `hands_on` mode a completion not APPROVED by Master Control, once its checks pass, is recorded
    as a request and waits (awaiting_approval; gridgit.phases.approval).
    """
    check_phase_id(phase_id)
    check_master_control(agent_id, "complete a phase")
    next_id, next_name = parse_phase_spec(next_phase) if next_phase else (None, None)
    layout.require()
    # Every setting the steps below read, checked before the first of them writes anything.
    config_mod.load(layout)
    with locks.locked(layout.phases_dir):
        st = state.read(layout)
        state.check_known_phase(layout, phase_id, st)
        definition = order.find(order.definitions(st), phase_id)
        pad: Scratchpad | None = None
        if order.is_complete(st, phase_id):
            pad = store.load_if_any(layout, phase_id) if marked_in_state else None
            if pad is None or not pad.entries:
                return CompletionResult(phase_id, already_complete=True)
        if next_id is None:
            next_id, next_name = next_open_phase(st, phase_id)
        elif next_id == phase_id:
            raise BadInput(f"phase {phase_id} cannot be its own next phase")
        elif order.is_complete(st, next_id):
            raise BadInput(f"next phase {next_id} is already complete")
        forced = {**order.check(order.completion_problem(st, phase_id, next_id), force), **(forced_by or {})}
        passed = order.open_before(st, phase_id) if forced else None
        if passed:  # --force: the current phase is completed into this one first (which that starts)
            complete_phase(layout, passed, phase_id, agent_id, force=True)
            st = state.read(layout)
            forced["completed"] = [passed]
        skip = order.pending_between(st, phase_id, next_id) if forced and next_id else []
        if skip:
            forced["skipped"] = skip
        order.check_one_in_progress(st, phase_id, next_id)
        if not force:
            from gridgit.work import blocks

            blocks.check_phase_done(layout, phase_id)
        if not approved and not marked_in_state and mode.phase_waits(st):
            return CompletionResult(phase_id, next_id, awaiting_approval=approval.request(layout, phase_id, agent_id))
        # Parse every file this will change first: a broken one stops it before any write.
        pad, archived = _load(layout, phase_id, pad)
        known = _known_origins(layout)
        if next_id:
            _load(layout, next_id)
        entries = promotion.combine(archived, pad.entries if pad else [])

        result = CompletionResult(phase_id, next_id)
        promotion_result = promotion.promote(layout, phase_id, SYSTEM, entries=entries)
        promoted, result.waiting = promotion_result.promoted, promotion_result.waiting
        result.promoted = [learning.title for learning in promoted]
        next_started = False
        closed: dict[str, Resolution] = {}
        if next_id:
            next_def = order.find(order.definitions(st), next_id)
            next_name = next_name or (next_def or {}).get("name") or default_phase_name(next_id)
            created = store.create(layout, next_id, next_name)
            next_started = created or next_def is None or next_def.get("status") == "pending"
            subscribed = subscriptions.listed(pad) if pad else []
            # Carried before the archive closes what it carried: a crash in between carries it once
            # (carrying skips what is there), never not at all.
            result.carried = len(carry_forward.carry_forward(layout, phase_id, next_id, entries, subscribed))
            closed = carry_forward.closed_by_carrying(phase_id, next_id, entries)
        if pad is not None:
            origins = known | {learning.origin for learning in promoted}
            result.archived = archiving.archive_phase(layout, phase_id, origins, closed)
        memory.phase_completed(layout, phase_id, agent_id)
        name = str((definition or {}).get("name") or (pad.phase_name if pad else default_phase_name(phase_id)))
        state.update_with(layout, lambda old: _blocks_follow(layout, old, _completion_updates(
            old, phase_id, name, next_id, next_name, skip)), agent_id)  # fmt: skip
        if next_id and next_started:
            bus.notify(layout, "phase_started", {"phase_id": next_id, "phase_name": next_name, "agent": agent_id})
        payload = {"phase_id": phase_id, "next_phase_id": next_id, "agent": agent_id, **forced}
        bus.notify(layout, "phase_completed", {**payload, **({"approved": True} if approved else {})})
        if next_id:
            bus.notify(layout, "phase_changed", {"old_phase": phase_id, "new_phase": next_id, "agent": agent_id})
    return result


def _blocks_follow(layout: Layout, st: dict[str, Any], updates: dict[str, Any]) -> dict[str, Any]:
    """UPDATES of a phase change with the block position of the phase it moves to (gridgit.work.blocks): a
    Master Control that resumes there finds the block to pick up, not block 1."""
    if "position" not in updates:
        return updates
    from gridgit.work import blocks

    return blocks.position_updates(layout, st, updates)


def _with_completed(st: dict[str, Any], ids: list[str]) -> list[str]:
    """STATE's `phases.completed` with IDS added (each once, in the order they completed)."""
    completed = list(st.get("phases", {}).get("completed") or [])
    return completed + [p for p in ids if p not in completed]


def _completion_updates(
    st: dict[str, Any], phase_id: str, name: str, next_id: str | None, next_name: str | None, skip: list[str]
) -> dict[str, Any]:
    """The STATE change that marks PHASE_ID complete (SKIP skipped) and moves the position to NEXT_ID."""
    now = clock.now_iso()
    definitions = order.skipped(st, skip, now)
    done = order.find(definitions, phase_id)
    if done is None:
        done = {**_new_definition(phase_id, name, now), "started_at": None}
        _insert_sorted(definitions, done)
    done.update(status="complete", completed_at=now)
    if isinstance(done.get("blocks"), int):
        done["blocks_complete"] = done["blocks"]
    completed = _with_completed(st, [*skip, phase_id])
    phases: dict[str, Any] = {"definitions": definitions, "completed": completed, "total": len(definitions)}
    updates: dict[str, Any] = {"phases": phases}
    if next_id:
        upcoming = order.find(definitions, next_id)
        if upcoming is None:
            upcoming = _new_definition(next_id, next_name, now)
            _insert_sorted(definitions, upcoming)
        elif upcoming.get("status") == "pending":
            upcoming.update(status="in_progress", started_at=upcoming.get("started_at") or now)
        phases["current"] = order.phase_number(next_id)
        updates["position"] = _position(next_id, str(upcoming.get("name") or next_name))
        agents = _agents_moved(st, phase_id, next_id)
        if agents is not None:
            updates["agents"] = {"active": agents}
        if st.get("status") in ("planning", "complete"):
            updates["status"] = "in_progress"
    elif all(d.get("status") == "complete" for d in definitions):
        updates["status"] = "complete"
    updates["progress"] = {"percent": round(100.0 * len(completed) / max(len(definitions), 1), 1)}
    return updates


def _agents_moved(st: dict[str, Any], phase_id: str, next_id: str) -> list[Any] | None:
    """agents.active with the agents registered for PHASE_ID moved on to NEXT_ID (None: none was).

    Agents work on across a phase change: their heartbeats and staleness follow them.
    """
    active = (st.get("agents") or {}).get("active") or []
    if not any(isinstance(a, dict) and a.get("phase") == phase_id for a in active):
        return None
    return [{**a, "phase": next_id} if isinstance(a, dict) and a.get("phase") == phase_id else a for a in active]


# ---- manual archive, listing ---------------------------------------------------------------


def archive_scratchpad(layout: Layout, phase_id: str, agent_id: str) -> int:
    """`gridgit archive`: move the settled entries to the archive, without promotion; open work stays live.

    Entries promoted earlier (their origin is in LEARNINGS.md) are marked so in the archive.
    """
    check_phase_id(phase_id)
    if permissions.agent_type(agent_id) not in MASTER_CONTROL | {"memory"}:
        raise PermissionDenied(f"only Master Control or memory agents may archive a scratchpad (agent {agent_id})")
    store.load(layout, phase_id)  # a missing or broken scratchpad is reported, not archived
    return archiving.archive_settled(layout, phase_id, _known_origins(layout))


def list_phases(layout: Layout) -> list[dict[str, Any]]:
    """Every phase STATE defines or that has a directory, in phase order."""
    st = state.read(layout)
    current = state.current_phase(st)
    definitions = {str(d.get("id")): d for d in order.definitions(st)}
    rows = []
    for phase_id in sorted(set(definitions) | set(layout.phase_ids())):
        definition = definitions.get(phase_id, {})
        row: dict[str, Any] = {
            "id": phase_id,
            "name": definition.get("name") or default_phase_name(phase_id),
            "status": definition.get("status") or "untracked",
            "current": phase_id == current,
            "entries": None,
            "archived": 0,
            "started_at": definition.get("started_at"),
            "completed_at": definition.get("completed_at"),
        }
        try:
            pad = store.load_if_any(layout, phase_id)
            if pad is not None:
                row["entries"] = len(pad.entries)
            row["archived"] = len(archive.read(layout, phase_id))
        except GridError as exc:  # one broken phase must not hide the others
            row["error"] = str(exc)
        rows.append(row)
    return rows
