"""`file_modified` events and write-conflict detection (spec section 3, "Conflict Detection").

Two agents conflict on a path when another agent modified it (or a file it was renamed
from or to) within the window, or holds a live exclusive claim on it. On a conflict the
spec's "checkpoint" resolution runs once per new conflict: a `write_conflict` event,
`.grid/CHECKPOINT.md`, and a HIGH warning in the current phase's scratchpad. The git hooks
and the watcher record modifications through `record_modification`, like `gridgit touch`.
"""

from __future__ import annotations

from pathlib import Path

from gridgit.coordination import activity, claims
from gridgit.coordination.recent import RecentChanges
from gridgit.errors import BadInput, GridError
from gridgit.events import bus
from gridgit.model.permissions import check_agent_id, check_agent_token, check_scratchpad_writer
from gridgit.store import config as config_mod
from gridgit.store import notices, pathtext, usertext
from gridgit.store.layout import Layout
from gridgit.store.record import FrozenRecord, Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from gridgit.coordination.claimfile import Claim


class ConflictResult(Record):
    """The spec's ConflictResult; `conflicts` items carry conflicting_agent, operation, timestamp.
    EVENT_ID: the `write_conflict` event a new conflict emitted (None: none was)."""

    FIELDS = (
        "path", "agent", "window_minutes", "conflicts", "claims", "paths", "resolution", "new", "bytes_read", "event_id"
    )  # fmt: skip
    __slots__ = FIELDS

    def __init__(
        self,
        path: str,
        agent: str,
        window_minutes: float,
        conflicts: list[dict[str, Any]] | None = None,
        claims: list[dict[str, Any]] | None = None,
        paths: list[str] | None = None,
        resolution: str | None = None,
        new: bool = False,
        bytes_read: int = 0,
        event_id: str | None = None,
    ) -> None:
        self.path = path
        self.agent = agent
        self.window_minutes = window_minutes
        self.conflicts = conflicts if conflicts is not None else []
        self.claims = claims if claims is not None else []
        self.paths = paths if paths is not None else []
        self.resolution = resolution
        self.new = new
        self.bytes_read = bytes_read
        self.event_id = event_id

    @property
    def has_conflict(self) -> bool:
        return bool(self.conflicts)

    @property
    def conflicting_agents(self) -> list[str]:
        return sorted({c["conflicting_agent"] for c in self.conflicts})

    def summary(self) -> str:
        """One line for a person: who changed the path within the window, and who holds an exclusive claim on it."""
        changed = sorted({c["conflicting_agent"] for c in self.conflicts if c.get("source") != "claim"})
        claimed = {c["conflicting_agent"]: c for c in self.conflicts if c.get("source") == "claim"}
        parts = [f"{', '.join(changed)} changed it too within the conflict window"] if changed else []
        parts += [f"{agent} claimed it exclusively ({c['path']}, until {c['expires_at']})" for agent, c in
                  sorted(claimed.items())]  # fmt: skip
        return f"write conflict on {self.path}: " + "; ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        data = self.fields()
        for name in ("conflicts", "claims"):
            data[name] = [dict(item) for item in data[name]]
        data["paths"] = list(self.paths)
        data["has_conflict"] = self.has_conflict
        data["conflicting_agents"] = self.conflicting_agents
        return data


class ModificationResult(Record):
    FIELDS = ("event", "conflict")
    __slots__ = FIELDS

    def __init__(self, event: dict[str, Any], conflict: ConflictResult | None = None) -> None:
        self.event = event
        self.conflict = conflict

    def to_dict(self) -> dict[str, Any]:
        return {"event": self.event, "conflict": self.conflict.to_dict() if self.conflict else None}


def _warn(message: str) -> None:
    notices.warn("gridgit.coordination.conflicts", message)


def normalise_path(layout: Layout, path: str | Path) -> str:
    """PATH as repo-relative posix text (store.pathtext); a relative PATH is taken from the repository root."""
    if not usertext.check_path(str(path)).strip():
        raise BadInput("empty path")
    candidate = Path(path)
    rel = layout.relative(candidate if candidate.is_absolute() else layout.root / candidate)
    if rel == ".git" or rel.startswith(".git/"):
        raise BadInput(f"{path}: inside .git")
    return pathtext.as_text(rel)


def window_of(layout: Layout, window_minutes: float | None) -> float:
    """WINDOW_MINUTES, else `conflicts.window_minutes`: the conflict window."""
    if window_minutes is None:
        window_minutes = float(config_mod.value(layout, "conflicts.window_minutes"))
    if window_minutes < 0:
        raise BadInput(f"window {window_minutes:g}: must be 0 minutes or more")
    return float(window_minutes)


def _conflict_on(
    rel_path: str,
    agent_id: str,
    window: float,
    recent: RecentChanges,
    live: list[Claim],
) -> ConflictResult:
    """Other agents' modifications of REL_PATH (renames followed) in RECENT, and their LIVE claims on it."""
    names = recent.names(rel_path)
    result = ConflictResult(rel_path, agent_id, window, paths=sorted(names), bytes_read=recent.bytes_read)
    result.conflicts.extend(recent.by_others(names, agent_id))
    for claim in claims.claims_on(live, names, exclude_agent=agent_id):
        result.claims.append(claim.to_dict())
        if claim.held:  # a shared claim alone is not a conflict, nor one waiting behind another: see claims.py
            result.conflicts.append(
                {
                    "conflicting_agent": claim.agent,
                    "operation": "claimed",
                    "timestamp": claim.created_at,
                    "path": claim.pattern,
                    "claim_id": claim.id,
                    "expires_at": claim.expires_at,
                    "source": "claim",
                }
            )
    return result


def detect_write_conflict(
    layout: Layout, rel_path: str, agent_id: str, window_minutes: float | None = None
) -> ConflictResult:
    """Other agents' modifications of REL_PATH (renames followed) within the window, and their claims.

    Pure: nothing is written.
    """
    window = window_of(layout, window_minutes)
    recent = RecentChanges.read(layout, window, paths=[rel_path])
    return _conflict_on(rel_path, agent_id, window, recent, claims.live_claims(layout))


def handle_conflict(layout: Layout, result: ConflictResult, known: set[str] | None = None) -> ConflictResult:
    """The "checkpoint" resolution: CHECKPOINT.md, and for a new conflict an event and a HIGH warning.

    KNOWN: the conflict arrived with a merge (gridgit.coordination.crossing), and these are the agents
    CHECKPOINT.md listed on the path before it: the event is new here unless they include everyone (the
    merged CHECKPOINT.md may hold it already, recorded by the other clone, which wrote the warning).
    """
    if not result.has_conflict:
        return result
    result.resolution = "checkpoint"
    fresh = True
    try:
        from gridgit.coordination import checkpoint  # only on a conflict: it loads YAML

        fresh = checkpoint.record(
            layout, result.path, result.agent, result.conflicting_agents, result.conflicts, result.window_minutes
        )
    except GridError as exc:  # a broken CHECKPOINT.md must not hide the conflict itself
        _warn(f"could not update {layout.checkpoint}: {exc}")
    result.new = fresh if known is None else not {result.agent, *result.conflicting_agents} <= known
    if not result.new:
        return result
    result.event_id = bus.emit(
        layout,
        "write_conflict",
        {
            "path": result.path,
            "agent": result.agent,
            "conflicting_agents": result.conflicting_agents,
            "operations": sorted({c["operation"] for c in result.conflicts}),
            "paths": result.paths,
            "window_minutes": result.window_minutes,
            "resolution": "checkpoint",
        },
    )["id"]
    if fresh:
        _warn_scratchpad(layout, result)
    return result


def _warn_scratchpad(layout: Layout, result: ConflictResult) -> None:
    from gridgit.model import state
    from gridgit.scratchpad import store
    from gridgit.store.commandline import said

    others = ", ".join(result.conflicting_agents)
    shown = result.conflicts[-10:]
    lines = [  # the spec's warning fields: Warning, Risk Level, Mitigation
        f"Warning: {warning_marker(result.path)} (checked by {result.agent}): {others} also "
        f"changed it within {result.window_minutes:g} minutes or holds an exclusive claim.",
        "Risk Level: high",
        "Mitigation: coordinate before either continues; see .grid/CHECKPOINT.md, then "
        f"`{said('conflicts resolve', result.path, agent=None)}`.",  # shared text: it names no agent
        "",
        *(f"- {c['conflicting_agent']} {c['operation']} `{c['path']}` at {c['timestamp']}" for c in shown),
        *([f"- ... and {len(result.conflicts) - len(shown)} more"] if len(result.conflicts) > len(shown) else []),
    ]
    try:
        phase_id = state.current_phase(state.read(layout))
        if phase_id:
            tags = ["write_conflict", *result.conflicting_agents]
            store.write_entry(
                layout, phase_id, "system", "warning", "conflict", "\n".join(lines), tags, "HIGH", block_id=""
            )
    except GridError as exc:
        _warn(f"could not write the conflict warning to the scratchpad: {exc}")


def warning_marker(path: str) -> str:
    """The words naming PATH in a conflict's warning entry: how `resolve` finds the entry again."""
    return f"write conflict on `{path}`"


def check_conflict(
    layout: Layout, path: str | Path, agent_id: str, window_minutes: float | None = None
) -> ConflictResult:
    """Detect conflicts on PATH for AGENT_ID and, when there is one, run the checkpoint resolution."""
    layout.require()
    rel = normalise_path(layout, path)
    # The hooks and the watcher attribute a change nobody declared to `unknown`: a token, not an agent id.
    return handle_conflict(layout, detect_write_conflict(layout, rel, check_agent_token(agent_id), window_minutes))


class Modification(FrozenRecord):
    """One change to record: PATH (repo-relative, or absolute inside the repository) and how it changed.

    OPERATION is created, modified, deleted or moved; a move names OLD_PATH. BLOB is the git blob
    id of what the file holds after it (an agent hook's edit, a staged file), by which one edit
    recorded twice is known (`record_modifications`, SAME_EDIT).
    """

    FIELDS = ("path", "operation", "old_path", "blob")
    __slots__ = FIELDS

    def __init__(
        self,
        path: str | Path,
        operation: str = "modified",
        old_path: str | Path | None = None,
        blob: str | None = None,
    ) -> None:
        self.path = path
        self.operation = operation
        self.old_path = old_path
        self.blob = blob


def _payload(layout: Layout, change: Modification, agent_id: str) -> dict[str, Any]:
    if change.operation not in bus.OPERATIONS:
        raise BadInput(f"unknown operation {change.operation!r} (one of: {', '.join(bus.OPERATIONS)})")
    payload: dict[str, Any] = {"path": normalise_path(layout, change.path), "agent": agent_id}
    payload["operation"] = change.operation
    if change.operation == "moved":
        if change.old_path is None:
            raise BadInput("a move needs the old path (--from OLD_PATH)")
        payload["old_path"] = normalise_path(layout, change.old_path)
    elif change.old_path is not None:
        raise BadInput(f"--from is only for a move, not {change.operation!r}")
    if change.blob:
        payload["blob"] = change.blob
    return payload


def record_modifications(
    layout: Layout,
    changes: list[Modification],
    agent_id: str,
    check: bool = True,
    extra: dict[str, Any] | None = None,
    same_edit: bool = False,
) -> list[ModificationResult]:
    """Emit one `file_modified` per change (one append for all), then check each for a write conflict.

    The window is read once, before the append, and indexed by path: the cost follows the
    window plus the number of changes, so a commit of 5,000 files stays within a hook's budget.
    EXTRA adds fields to every payload (an agent hook's tool and session), never over these.
    SAME_EDIT (the pre-commit hook): a change whose path an agent tool's hook recorded last,
    within the window, with the same blob, by the same agent (or when AGENT_ID is `unknown`, by
    anyone), is that recorded edit, not a second one: it is neither emitted again nor checked again.
    """
    layout.require()
    agent = check_agent_token(agent_id)  # may be `unknown` (see check_conflict)
    payloads = [{**(extra or {}), **_payload(layout, change, agent)} for change in changes]
    if not check:
        return [ModificationResult(event) for event in bus.emit_many(layout, "file_modified", payloads)]
    window = window_of(layout, None)
    # The batch's own renames link its paths too, as they would once read back from the log.
    moves = [(p["old_path"], p["path"]) for p in payloads if "old_path" in p]
    recent = RecentChanges.read(layout, window, moves, [p["path"] for p in payloads])
    if same_edit:
        payloads = [p for p in payloads if not recent.recorded(p["path"], p.get("blob"), agent)]
    events = bus.emit_many(layout, "file_modified", payloads) if payloads else []
    live = claims.live_claims(layout)
    return [
        ModificationResult(event, handle_conflict(layout, _conflict_on(p["path"], agent, window, recent, live)))
        for event, p in zip(events, payloads, strict=True)
    ]


def record_modification(
    layout: Layout,
    path: str | Path,
    agent_id: str,
    operation: str = "modified",
    old_path: str | Path | None = None,
    check: bool = True,
    extra: dict[str, Any] | None = None,
) -> ModificationResult:
    """Emit `file_modified` for PATH, then check it (record_modifications with one change).

    A touched file (`gridgit touch`, the watcher's attributed edit) is a sign of its agent's work
    (an agent tool's hook records its own: gridgit.agents.runner).
    """
    result = record_modifications(layout, [Modification(path, operation, old_path)], agent_id, check, extra)[0]
    activity.record(layout, agent_id, "touch")
    return result


def resolve(
    layout: Layout, agent_id: str, paths: list[str | Path] | None = None, note: str = ""
) -> list[dict[str, Any]]:
    """Close open conflicts in CHECKPOINT.md (on PATHS, or all), and their warning entries.

    Emits `conflict_resolved`, and `entry_resolved` for each warning of the current phase
    (carried copies included) that named a closed path.
    """
    layout.require()
    # Closing conflicts rewrites CHECKPOINT.md and resolves warning entries: a scratchpad writer's job.
    check_scratchpad_writer(check_agent_id(agent_id))
    wanted = [normalise_path(layout, p) for p in paths] if paths else None
    from gridgit.coordination import checkpoint

    closed = checkpoint.resolve(layout, check_agent_id(agent_id), wanted, note)
    markers = [warning_marker(str(c.get("path"))) for c in closed]
    if markers:
        _resolve_warnings(layout, markers, agent_id, note)
    return closed


def _resolve_warnings(layout: Layout, markers: list[str], agent_id: str, note: str) -> None:
    from gridgit.coordination import resolution
    from gridgit.model import state

    def wanted(entry: Any) -> bool:
        return (
            entry.category == "warning" and "write_conflict" in entry.tags and any(m in entry.content for m in markers)
        )

    try:
        phase_id = state.current_phase(state.read(layout))
        if phase_id and layout.scratchpad(phase_id).exists():
            # gridgit wrote the warning, so it closes it for whoever resolved the conflict (even a scout).
            resolution.resolve_entries(
                layout, phase_id, wanted, agent_id, note or "conflict resolved", check_permission=False
            )
    except GridError as exc:
        _warn(f"could not resolve the conflict's warning entry: {exc}")


def open_conflicts(layout: Layout) -> list[dict[str, Any]]:
    layout.require()
    from gridgit.coordination import checkpoint

    return checkpoint.open_conflicts(layout)
