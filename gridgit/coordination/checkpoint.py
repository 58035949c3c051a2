"""`.grid/CHECKPOINT.md`: the spec's "checkpoint" resolution of write conflicts, for a human or MC.

Frontmatter lists the open conflicts (one per path); the body explains them. Anything else
in the file (another checkpoint's keys, text outside gridgit's markers) is kept. When the
last conflict is resolved and nothing else is left, the file is removed: its existence
means "a checkpoint is waiting" (STATE's `resume.checkpoint_file`).
"""

from __future__ import annotations

import os

from gridgit.errors import BadInput
from gridgit.events import bus
from gridgit.store import clock, fileio, frontmatter, locks, notices
from gridgit.store.commandline import said
from gridgit.store.layout import Layout

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

START, END = "<!-- gridgit:conflicts -->", "<!-- /gridgit:conflicts -->"
_OWN_KEYS = ("checkpoint", "status", "created_at", "updated_at", "resolution", "conflicts")
MAX_EVIDENCE = 20


def _read(layout: Layout) -> tuple[dict[str, Any], str]:
    path = layout.checkpoint
    if not path.exists():
        return {}, ""
    text = fileio.read_text(path)
    if not text.startswith(frontmatter.DELIMITER + "\n"):
        return {}, text
    meta, body = frontmatter.parse(text, str(path))
    if not isinstance(meta.get("conflicts", []), list):
        raise BadInput(f"{path}: `conflicts` must be a list")
    return meta, body


def _foreign_body(body: str) -> str:
    """The body without gridgit's section."""
    if START in body and END in body:
        head, rest = body.split(START, 1)
        body = head + rest.split(END, 1)[1]
    return body.strip("\n")


def _section(conflicts: list[dict[str, Any]]) -> str:
    lines = [
        START,
        "# Checkpoint: write conflicts",
        "",
        "Two or more agents modified the same files within the conflict window. gridgit picks",
        "no winner: agree on one in the phase scratchpad, reconcile the file, then run",
        f"`{said('conflicts resolve', 'PATH', agent=None)}` (or `--all`).",  # a shared file: it names no agent
    ]
    for item in conflicts:
        lines += [
            "",
            f"## `{item['path']}`",
            "",
            f"- agents: {', '.join(item['agents'])}",
            f"- detected by {item['detected_by']} at {item['first_detected']} (last seen {item['last_detected']})",
        ]
        for proof in item.get("evidence", []):
            what = "claimed it (exclusive)" if proof.get("source") == "claim" else proof.get("operation", "modified")
            where = f" as `{proof['path']}`" if proof.get("path") not in (None, item["path"]) else ""
            lines.append(f"- {proof.get('conflicting_agent')} {what}{where} at {proof.get('timestamp')}")
    return "\n".join([*lines, END, ""])


def _write(layout: Layout, meta: dict[str, Any], body: str) -> None:
    conflicts = meta.get("conflicts") or []
    foreign_meta = {k: v for k, v in meta.items() if k not in _OWN_KEYS}
    foreign = _foreign_body(body)
    if not conflicts:
        if not foreign_meta and not foreign:
            fileio.refuse_symlink(layout.checkpoint)
            if layout.checkpoint.exists():
                os.unlink(layout.checkpoint)
            return
        fileio.atomic_write(layout.checkpoint, frontmatter.render(foreign_meta, foreign + "\n" if foreign else ""))
        return
    body = _section(conflicts) + ("\n" + foreign + "\n" if foreign else "")
    fileio.atomic_write(layout.checkpoint, frontmatter.render(meta, body))


def open_conflicts(layout: Layout) -> list[dict[str, Any]]:
    """The conflicts CHECKPOINT.md lists as open."""
    return list(_read(layout)[0].get("conflicts") or [])


def record(
    layout: Layout, path: str, detected_by: str, agents: list[str], evidence: list[dict[str, Any]], window: float
) -> bool:
    """Add (or refresh) the open conflict on PATH; True when it is new or involves a new agent."""
    now = clock.now_iso()
    with locks.locked(layout.checkpoint):
        meta, body = _read(layout)
        conflicts: list[dict[str, Any]] = list(meta.get("conflicts") or [])
        item = next((c for c in conflicts if isinstance(c, dict) and c.get("path") == path), None)
        involved = sorted({detected_by, *agents})
        if item is None:
            item = {"path": path, "agents": involved, "detected_by": detected_by, "first_detected": now}
            conflicts.append(item)
            fresh = True
        else:
            fresh = not set(involved) <= set(item.get("agents") or [])
            item["agents"] = sorted({*(item.get("agents") or []), *involved})
        item["last_detected"] = now
        item["window_minutes"] = window
        key = ("conflicting_agent", "timestamp", "operation", "path")
        known = {tuple(e.get(k) for k in key) for e in item.get("evidence") or []}
        merged = list(item.get("evidence") or [])
        merged += [e for e in evidence if tuple(e.get(k) for k in key) not in known]
        item["evidence"] = merged[-MAX_EVIDENCE:]
        meta.setdefault("checkpoint", "write_conflict")
        meta.setdefault("created_at", now)
        meta.update({"status": "open", "updated_at": now, "resolution": "checkpoint", "conflicts": conflicts})
        _write(layout, meta, body)
    sync_state(layout)
    return fresh


def resolve(layout: Layout, agent_id: str, paths: list[str] | None = None, note: str = "") -> list[dict[str, Any]]:
    """Close the open conflicts on PATHS (all when None); returns those closed."""
    with locks.locked(layout.checkpoint):
        meta, body = _read(layout)
        conflicts = list(meta.get("conflicts") or [])
        closed = [c for c in conflicts if paths is None or c.get("path") in paths]
        if closed:
            meta["conflicts"] = [c for c in conflicts if c not in closed]
            meta["updated_at"] = clock.now_iso()
            _write(layout, meta, body)
    if closed:
        sync_state(layout)
        payload = {"agent": agent_id, "paths": [c.get("path") for c in closed], "note": note}
        bus.notify(layout, "conflict_resolved", payload)
    return closed


def sync_state(layout: Layout) -> None:
    """STATE's `resume.checkpoint_file`: CHECKPOINT.md's path while the file exists, else null.

    Decided under the STATE lock from the file as it is then, after CHECKPOINT.md's own lock
    is released (it is outside the lock order), so concurrent conflicts and resolutions
    converge on the truth; nothing is written when STATE already says it.
    """
    from gridgit.errors import GridError
    from gridgit.model import state

    try:
        shown = layout.checkpoint.relative_to(layout.main_root).as_posix()
    except ValueError:
        shown = str(layout.checkpoint)

    def change(st: dict[str, Any]) -> dict[str, Any]:
        wanted = shown if layout.checkpoint.exists() else None
        if (st.get("resume") or {}).get("checkpoint_file") == wanted:
            return {}
        return {"resume": {"checkpoint_file": wanted}}

    try:
        state.update_with(
            layout, change, "system", "checkpoint " + ("opened" if layout.checkpoint.exists() else "closed")
        )
    except GridError as exc:  # a broken STATE.md must not undo the conflict bookkeeping
        notices.warn("gridgit.coordination.checkpoint", f"could not update resume.checkpoint_file: {exc}")
