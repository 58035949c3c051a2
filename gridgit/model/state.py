"""STATE.md (L3): read, permission-checked locked update, the fields it derives, the gate of the phase order,
and body rendering. What each field must be is gridgit.model.state_schema."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from gridgit.errors import BadInput, NotFound
from gridgit.events import bus
from gridgit.model.permissions import check_state_fields
from gridgit.model.state_schema import check, lookup
from gridgit.store import clock, fileio, frontmatter, journal, locks, redaction, usertext
from gridgit.store.config import deep_merge
from gridgit.store.layout import PHASE_ID_RE, Layout, check_phase_id

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

HEADER = (
    "# ═══════════════════════════════════════════════════════════════════\n"
    "# GRID STATE - Machine Parseable Header\n"
    "# ═══════════════════════════════════════════════════════════════════\n"
)


def current_phase(state: dict[str, Any]) -> str | None:
    """STATE's `position.phase_id`: the phase agents work in (None before any has started)."""
    phase_id = lookup(state, "position.phase_id")[1]
    return str(phase_id) if phase_id else None


def registered_agent(state: dict[str, Any], agent_id: str) -> dict[str, Any]:
    """AGENT_ID's registration: its item of `agents.active` ({} when it is not registered)."""
    active = (state.get("agents") or {}).get("active") or []
    return next((a for a in active if isinstance(a, dict) and a.get("id") == agent_id), {})


def is_resolved(item: Any) -> bool:
    """A STATE blocker or warning that `gridgit resolve` marked (it stays in the list, closed)."""
    return isinstance(item, dict) and bool(item.get("resolved_at"))


def agent_worktrees(layout: Layout, state: dict[str, Any]) -> dict[Path, str]:
    """Work tree -> agent id, from STATE's `agents.active[].worktree` (relative paths from the main worktree)."""
    mapping: dict[Path, str] = {}
    for agent in (state.get("agents") or {}).get("active") or []:
        worktree = agent.get("worktree") if isinstance(agent, dict) else None
        if isinstance(worktree, str) and worktree:
            path = Path(worktree) if os.path.isabs(worktree) else layout.main_root / worktree
            mapping[path.resolve()] = str(agent["id"])
    return mapping


def defined_phases(state: dict[str, Any]) -> list[str]:
    """The ids of the phases STATE defines (`phases.definitions`), in its order."""
    definitions = (state.get("phases") or {}).get("definitions") or []
    return [str(d["id"]) for d in definitions if isinstance(d, dict) and d.get("id")]


def check_known_phase(layout: Layout, phase_id: str, state: dict[str, Any] | None = None) -> str:
    """PHASE_ID when it names a phase: STATE defines it or it has a folder; else NotFound.

    A malformed id is bad input; no .grid/ at all is NotInitialised, before either.
    """
    check_phase_id(phase_id)
    if layout.phase_dir(phase_id).is_dir():  # one stat: STATE is read only for a phase without a folder
        return phase_id
    known = defined_phases(read(layout) if state is None else state)
    if phase_id not in known:
        listed = ", ".join(sorted(set(known) | set(layout.phase_ids()))) or "none"
        raise NotFound(f"no phase {phase_id}: STATE.md does not define it and it has no folder (phases: {listed})")
    return phase_id


def undefined_position(st: dict[str, Any]) -> str | None:
    """What is wrong when STATE's position names a phase its definitions lack (a hand edit), else None."""
    current = current_phase(st)
    if not current or not PHASE_ID_RE.match(current) or current in defined_phases(st):
        return None
    return f"position.phase_id names phase {current}, which phases.definitions does not define"


def resolve_phase(layout: Layout, phase_id: str | None = None) -> str:
    """PHASE_ID when it names a phase (see check_known_phase), else STATE's current phase (which STATE must define)."""
    if phase_id:
        return check_known_phase(layout, phase_id)
    st = read(layout)
    current = current_phase(st)
    if not current:
        raise BadInput("no phase: pass --phase or start one with `gridgit phase start`")
    return check_position(st)


def check_position(st: dict[str, Any]) -> str:
    """STATE's current phase; NotFound when its definitions lack it (a hand edit), naming the repair."""
    current = check_phase_id(str(current_phase(st)))
    undefined = undefined_position(st)
    if undefined:
        raise NotFound(f"STATE.md: {undefined}: `gridgit doctor --repair` brings its valid position back")
    return current


def parse(text: str, source: str) -> tuple[dict[str, Any], str]:
    """(state, body) of STATE.md text, schema-checked."""
    state, body = frontmatter.parse(text, source)
    check(state, source)
    return state, body


def read(layout: Layout) -> dict[str, Any]:
    """The current STATE frontmatter; readers need no lock since writes are atomic."""
    layout.require()
    return parse(fileio.read_text(layout.state), str(layout.state))[0]


def dotted_to_nested(dotted: str, value: Any) -> dict[str, Any]:
    """`position.block=2` -> {"position": {"block": 2}}."""
    parts = dotted.split(".")
    if not all(parts):
        raise BadInput(f"invalid field path {dotted!r}")
    nested: dict[str, Any] = {parts[-1]: value}
    for part in reversed(parts[:-1]):
        nested = {part: nested}
    return nested


def apply(
    state: dict[str, Any],
    body: str,
    updates: dict[str, Any],
    agent_id: str,
    source: str,
    action: str | None = None,
    check_permission: bool = True,
) -> tuple[dict[str, Any], str]:
    """The pure update step: permission check, deep merge, updated_at, re-rendered body.

    ACTION is the Recent Activity row's text (default: the fields updated); CHECK_PERMISSION
    False is for gridgit's own bookkeeping on an agent's behalf (registration, heartbeats).
    """
    if check_permission:
        check_state_fields(agent_id, list(updates))
    updates = usertext.clean_obj(updates, "STATE value", "a STATE value", whole=False)
    new = deep_merge(state, updates)
    new["updated_at"] = clock.now_iso()
    _stamp_new_items(state, new, agent_id)
    derive(new, agent_id)
    check(new, source)
    action = action or "update " + ", ".join(updates)
    return new, render_body(new, recent_rows(body), (new["updated_at"], agent_id, action, "ok"))


# The spec's examples stamp each STATE warning (`timestamp`) and blocker (`added_at`), and say
# whose each is (`source`); decisions and artifacts are someone's too.
_ITEM_STAMPS = {"warnings": "timestamp", "blockers": "added_at", "persistent.decisions": "added_at",
                "persistent.artifacts": "added_at"}  # fmt: skip


def _stamp_new_items(old: dict[str, Any], new: dict[str, Any], agent_id: str) -> None:
    """Give each warning, blocker, decision and artifact that NEW adds to OLD's (a mapping with an id
    OLD's list lacks, or without an id and not in OLD's list) its timestamp and its `source`
    (AGENT_ID, who added it), unless it has them."""
    for field, stamp in _ITEM_STAMPS.items():
        found, before = lookup(old, field)
        before = before if found and isinstance(before, list) else []
        ids = [item.get("id") for item in before if isinstance(item, dict) and item.get("id") is not None]
        after = lookup(new, field)[1]
        for item in after if isinstance(after, list) else []:
            if not isinstance(item, dict):
                continue
            if (item["id"] not in ids) if item.get("id") is not None else (item not in before):
                item[stamp] = item.get(stamp) or new["updated_at"]
                item["source"] = item.get("source") or agent_id


def derive(st: dict[str, Any], agent_id: str) -> None:
    """What STATE keeps from its other fields, made again by every update inside the STATE lock.

    A phase added without a status is pending, and `phases.total` counts the definitions. The
    `resume` block is true to the mission: `can_resume` while the position's phase is in
    progress and the mission neither complete nor failed, `resume_position` the position's
    phase, block and thread, `last_agent` the agent of the latest change (gridgit's own
    `system` and an `unknown` committer aside). A value written there by hand does not last.
    """
    phases = st.get("phases")
    definitions = phases.get("definitions") if isinstance(phases, dict) else None
    if isinstance(phases, dict) and isinstance(definitions, list):
        for definition in definitions:
            if isinstance(definition, dict) and "status" not in definition:
                definition["status"] = "pending"
        phases["total"] = len(definitions)
    resume = st.get("resume")
    if not isinstance(resume, dict):
        return
    position = st.get("position")
    position = position if isinstance(position, dict) else {}
    phase_id = position.get("phase_id")
    running = [d for d in definitions or [] if isinstance(d, dict) and d.get("id") == phase_id]
    resume["can_resume"] = bool(running and running[0].get("status") == "in_progress") and st.get("status") not in (
        "complete", "failed",
    )  # fmt: skip
    resume["resume_position"] = {
        "phase": position.get("phase"), "phase_id": phase_id, "block": position.get("block"),
        "block_id": position.get("block_id"), "thread": position.get("thread"),
    }  # fmt: skip
    if agent_id not in ("system", "unknown"):
        resume["last_agent"] = agent_id


# What moves only with the mission's own operations, never by `state update`: the position
# (phase start and complete move the phase, the block operations the block) and the phase
# order (which phase is current, in progress, complete). A side door there let a write create
# a phase nobody started, and a phase be passed over with its work left behind.
_PHASE_MOVES = ("status", "started_at", "completed_at", "skipped")


def gated(st: dict[str, Any], updates: dict[str, Any], agent_id: str) -> dict[str, Any]:
    """UPDATES, refused when AGENT_ID may not write their fields or they would move STATE's position
    or phase order (see above)."""
    check_state_fields(agent_id, list(updates))
    new = deep_merge(st, updates)
    if new.get("position") != st.get("position"):
        raise BadInput(
            "STATE's position moves only with the mission: `gridgit phase start|complete` moves the phase, "
            "`gridgit take` and `gridgit block start|complete` the block"
        )
    old_phases, new_phases = st.get("phases") or {}, new.get("phases") or {}
    for key in ("current", "completed"):
        if old_phases.get(key) != new_phases.get(key):
            raise BadInput(f"phases.{key} moves only with `gridgit phase start|complete`")
    before = {d.get("id"): d for d in old_phases.get("definitions") or [] if isinstance(d, dict)}
    kept = {d.get("id") for d in new_phases.get("definitions") or [] if isinstance(d, dict)}
    gone = [i for i, d in before.items() if i not in kept and d.get("status", "pending") != "pending"]
    if gone:
        raise BadInput(f"phase {gone[0]} has started: it leaves phases.definitions only by completing")
    for definition in new_phases.get("definitions") or []:
        if not isinstance(definition, dict):
            continue
        was = before.get(definition.get("id"), {"status": "pending"})
        moved = [k for k in _PHASE_MOVES if definition.get(k, was.get(k)) != was.get(k)]
        if moved:
            raise BadInput(
                f"phase {definition.get('id')}'s {moved[0]} moves only with `gridgit phase start|complete` "
                "(a planner adds a phase as pending)"
            )
    return updates


def update(layout: Layout, updates: dict[str, Any], agent_id: str) -> dict[str, Any]:
    """The spec's update protocol under STATE.md's lock (`.grid/.locks/state.lock`); returns the new state.

    What only the phase and block operations move is refused (see `gated`).
    """
    if not isinstance(updates, dict) or not updates:
        raise BadInput("a STATE update needs at least one field")
    new = update_with(layout, lambda st: gated(st, updates, agent_id), agent_id)
    assert new is not None  # non-empty updates always write
    return new


def update_with(
    layout: Layout,
    change: Callable[[dict[str, Any]], dict[str, Any] | None],
    agent_id: str,
    action: str | None = None,
    check_permission: bool = True,
) -> dict[str, Any] | None:
    """Apply CHANGE(current state) -> updates under the STATE lock; None when it returns none.

    Computing the updates inside the lock is what makes an append (a warning, a completed
    phase) safe against a concurrent writer: the list it extends is the current one.
    ACTION and CHECK_PERMISSION: see `apply`.
    """
    layout.require()
    with locks.locked(layout.state):
        old, body = parse(fileio.read_text(layout.state), str(layout.state))
        updates = change(old)
        if not updates:
            return None
        new, new_body = apply(old, body, updates, agent_id, str(layout.state), action, check_permission)
        journal.write(layout, layout.state, frontmatter.render(new, new_body, HEADER))
    bus.notify(layout, "state_updated", {"agent": agent_id, "fields": list(updates), "timestamp": new["updated_at"]})
    old_ids = {b.get("id") for b in old.get("blockers", []) if isinstance(b, dict)}
    for blocker in new.get("blockers", []):
        if isinstance(blocker, dict) and blocker.get("id") not in old_ids:
            payload = {
                "agent": agent_id,
                "blocker_id": blocker.get("id"),
                "blocking_thread": blocker.get("blocking_thread"),
                "description": blocker.get("description"),
                "added_at": blocker.get("added_at"),
            }
            if blocker.get("entry"):  # the scratchpad entry it stands for (L2 -> L3)
                payload.update(entry_uid=blocker["entry"], phase_id=blocker.get("phase_id"))
            bus.notify(layout, "blocker_added", payload)
    return new


def render_file(state: dict[str, Any], body: str = "") -> str:
    """The whole STATE.md for STATE, keeping the recent-activity rows of BODY."""
    return frontmatter.render(state, render_body(state, recent_rows(body)), HEADER)


# ---- markdown body ----------------------------------------------------------------------

_RECENT = "## Recent Activity"
_MAX_ROWS = 10


def recent_rows(body: str) -> list[str]:
    """The activity table rows of an existing body, newest first."""
    if _RECENT not in body:
        return []
    section = body.split(_RECENT, 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| ")]
    return [r for r in rows if not r.startswith("| Time ")]


def progress_bar(percent: float, width: int = 20) -> str:
    filled = max(0, min(width, round(percent / 100 * width)))
    return "█" * filled + "░" * (width - filled)


def _cell(value: Any) -> str:
    return usertext.strip_controls(str(value).replace("\n", " "), one_line=True).replace("|", "\\|")


def render_body(state: dict[str, Any], rows: list[str], new_row: tuple[str, ...] | None = None) -> str:
    """The human half of STATE.md, derived from the frontmatter (plus the activity rows), secrets redacted.

    Redacted whole: a row's action (a heartbeat's `--action`), a task or a value typed into the
    frontmatter by hand is copied here and from here into the shared history.
    """
    if new_row is not None:
        rows = ["| " + " | ".join(_cell(c) for c in new_row) + " |", *rows]
    pos = state.get("position", {})
    phases = state.get("phases", {})
    percent = float(state.get("progress", {}).get("percent", 0) or 0)
    active = state.get("agents", {}).get("active", [])
    agent_lines = [
        f"- {a.get('id')}: {a.get('task') or 'no task'}"
        + (f" (last heartbeat {a['last_heartbeat']})" if a.get("last_heartbeat") else "")
        for a in active
    ] or ["None"]
    table = ["| Time | Agent | Action | Result |", "|------|-------|--------|--------|", *rows[:_MAX_ROWS]]
    resume = state.get("resume", {})
    progress = state.get("progress", {})
    blockers = [b for b in state.get("blockers", []) if not is_resolved(b)]
    body = "\n".join(
        [
            "",
            "# THE GRID - Mission State",
            "",
            f"## Mission: {state.get('cluster', '')}",
            "",
            f"**Status:** {state.get('status', '')}",
            f"**Mode:** {state.get('mode', '')}",
            f"**Progress:** [{progress_bar(percent)}] {percent:g}%",
            "",
            "## Current Position",
            "",
            f"Phase {pos.get('phase', 0)}/{phases.get('total', 0)}: {pos.get('phase_name') or '-'}",
            f"Block {pos.get('block') or '-'}: {pos.get('block_name') or '-'}",
            f"Thread {pos.get('thread') or '-'}/{pos.get('thread_total') or '-'}",
            "",
            _RECENT,
            "",
            *table,
            "",
            "## Active Agents",
            "",
            *agent_lines,
            "",
            "## Session Summary",
            "",
            f"- Started: {state.get('created_at', '')}",
            f"- Last Update: {state.get('updated_at', '')}",
            f"- Commits: {progress.get('commits') or 0}",
            f"- Files Changed: {progress.get('files_changed') or 0}",
            f"- Last Commit: {resume.get('last_commit') or '-'}",
            f"- Open Blockers: {len(blockers)}",
            "",
            "---",
            "",
            "End of Line.",
            "",
        ]
    )
    return redaction.redact(body)
