"""Where a restarted Master Control picks up: `gridgit resume`, and the head of mc's context pack.

STATE's `resume` block says whether and where (gridgit.model.state.derive keeps it true to the
mission inside every update: `can_resume`, `resume_position`, `last_agent`; the hooks keep
`last_commit`, the conflict checkpoint `checkpoint_file`). This adds what a person or an agent
needs to act on it: the phase and block at the position, the blocks held and whether their
holders went quiet, what is ready, the open work, the agents that were active, the last
checkpoint's conflicts, and the next command to run.
"""

from __future__ import annotations

from gridgit.coordination import agents, checkpoint
from gridgit.errors import GridError
from gridgit.model import state as state_mod
from gridgit.views import status

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from gridgit.store.layout import Layout

MC = "--agent mc"  # the phase commands are Master Control's: the commands said here run as it


def gather(layout: Layout, config: dict[str, Any]) -> dict[str, Any]:
    """Where the mission is and what to do next, as data (what `gridgit resume --json` prints)."""
    st = state_mod.read(layout)
    resume = st.get("resume") or {}
    pos = st.get("position") or {}
    phase_id = pos.get("phase_id")
    definitions = [d for d in (st.get("phases") or {}).get("definitions") or [] if isinstance(d, dict)]
    here = next((d for d in definitions if d.get("id") == phase_id), {})
    rows = agents.active_rows(layout, st, config)
    quiet = {str(r["id"]) for r in rows if r.get("stale")}
    data: dict[str, Any] = {
        "can_resume": bool(resume.get("can_resume")),
        "mission": st.get("cluster"),
        "status": st.get("status"),
        "mode": st.get("mode"),
        "phase": None,
        "block": None,
        "held": [],
        "ready": [],
        "blocks": {"complete": 0, "total": 0},
        "open": [],
        "agents": [{k: r.get(k) for k in ("id", "task", "block", "last_heartbeat", "warning_level")} for r in rows],
        "last_agent": resume.get("last_agent"),
        "last_commit": resume.get("last_commit"),
        "checkpoint": None,
        "pending": [str(d.get("id")) for d in definitions if d.get("status") == "pending"],
        "next": [],
    }
    if here:
        data["phase"] = {"id": phase_id, "name": pos.get("phase_name") or here.get("name"), "number": pos.get("phase"),
                         "total": len(definitions), "status": here.get("status")}  # fmt: skip
        data["open"] = status.open_items(st, phase_id, status.phase_entries(layout, phase_id))
        _blocks(layout, data, str(phase_id), pos, quiet)
    try:
        found = checkpoint.open_conflicts(layout)
    except GridError as exc:
        found = [{"path": f"(CHECKPOINT.md does not read: {exc})", "agents": []}]
    if found or resume.get("checkpoint_file"):
        data["checkpoint"] = {"file": resume.get("checkpoint_file"), "conflicts": found}
    data["next"] = _next(data)
    return data


def _blocks(layout: Layout, data: dict[str, Any], phase_id: str, pos: dict[str, Any], quiet: set[str]) -> None:
    """The phase's blocks into DATA: the one at the position, those held (and by whom), the ready ones."""
    from gridgit.work import blocks, queue

    try:
        rows = blocks.load_phase(layout, phase_id)
        data["ready"] = [o.block.block_id for o in queue.ready(layout, phase_id)] if rows else []
    except GridError as exc:
        data["block"] = {"error": str(exc)}
        return
    data["blocks"] = {"complete": sum(b.complete for b in rows), "total": len(rows)}
    data["held"] = [{"block_id": b.block_id, "name": b.name, "status": b.status, "owner": b.owner,
                     "quiet": b.owner in quiet} for b in rows if b.held]  # fmt: skip
    at = next((b for b in rows if b.block_id == pos.get("block_id")), None)
    if at is not None:
        total, done = at.threads()
        data["block"] = {"block_id": at.block_id, "name": at.name, "status": at.status, "wave": at.wave,
                         "thread": min(done + 1, total), "thread_total": total}  # fmt: skip


def _next(data: dict[str, Any]) -> list[str]:
    """What to do now, each a command that runs as Master Control (or the reason there is none)."""
    if data["status"] in ("complete", "failed") and not data["pending"]:
        return [f"the mission is {data['status']}: nothing to resume"]
    phase = data["phase"]
    if phase is None or phase["status"] != "in_progress":
        first = data["pending"][:1]
        return [f"gridgit phase start {first[0]} {MC}"] if first else ["no phase is pending: plan one first"]
    steps = []
    if data["checkpoint"] and data["checkpoint"]["conflicts"]:
        steps.append("gridgit conflicts list  (then `gridgit conflicts resolve PATH` once settled)")
    quiet = [h["block_id"] for h in data["held"] if h["quiet"]]
    if data["ready"]:  # a block whose holder went quiet is offered again: it is among them
        again = f"; {', '.join(quiet)} again, its holder gone quiet" if quiet else ""
        steps.append(f"ready to take: {', '.join(data['ready'])}{again} (an executor's `gridgit take`)")
    counts = data["blocks"]
    if counts["total"] and counts["complete"] == counts["total"] and not data["held"]:
        steps.append(f"gridgit phase complete {phase['id']} {MC}  (every block of it is complete)")
    elif not counts["total"]:
        steps.append(f"gridgit block plan --template  (no block of {phase['id']} is planned yet)")
    return steps or ["gridgit status  (every block is held by an agent at work)"]


def render(data: dict[str, Any]) -> str:
    """The resume report as text."""
    phase, block = data["phase"], data["block"]
    lines = [f"Mission: {data['mission']}  [{data['status']}, {data['mode']}]  can resume: "
             f"{'yes' if data['can_resume'] else 'no'}"]  # fmt: skip
    if phase:
        lines.append(
            f"Phase {phase['number']}/{phase['total']}: {phase['id']} {phase['name'] or ''} ({phase['status']})"
        )
    if block and "error" in block:
        lines.append(f"Blocks: {block['error']}")
    elif block:
        lines.append(f"Block {block['block_id']}: {block['name'] or '-'} ({block['status']}, wave {block['wave']}, "
                     f"thread {block['thread']}/{block['thread_total']})")  # fmt: skip
    if phase:
        lines.append(f"Blocks: {data['blocks']['complete']} of {data['blocks']['total']} complete")
    lines += [f"  held: {h['block_id']} {h['status']} by {h['owner']}{' (quiet)' if h['quiet'] else ''}"
              for h in data["held"]]  # fmt: skip
    lines += ["", f"Open work ({len(data['open'])}):"]
    lines += [f"  {i['kind']:<8} {i['source']:<18} {i['text']}" for i in data["open"][:10]] or ["  none"]
    lines += ["", "Agents that were active:"]
    lines += [f"  {a['id']:<16} {a['warning_level'] or '-':<8} {a['task'] or ''}".rstrip() for a in data["agents"]]
    lines += [] if data["agents"] else ["  none"]
    lines += ["", f"Last agent: {data['last_agent'] or '-'}   Last commit: {data['last_commit'] or '-'}"]
    if data["checkpoint"]:
        found = data["checkpoint"]["conflicts"]
        lines.append(
            f"Checkpoint: {data['checkpoint']['file'] or '.grid/CHECKPOINT.md'}, {len(found)} open conflict(s)"
        )
        lines += [f"  {c['path']}: {', '.join(c.get('agents') or [])}" for c in found]
    lines += ["", "Next:"] + [f"  {step}" for step in data["next"]]
    return "\n".join(lines)
