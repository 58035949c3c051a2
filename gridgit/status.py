"""The mission at a glance, as data (for --json) and as text."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gridgit import state as state_mod

if TYPE_CHECKING:
    from gridgit.blackboard import Blackboard


def summary(board: Blackboard) -> dict[str, Any]:
    st = board.state()
    pos = st.get("position", {})
    return {
        "mission": st.get("cluster"),
        "mission_id": st.get("mission_id"),
        "status": st.get("status"),
        "mode": st.get("mode"),
        "progress": st.get("progress", {}).get("percent", 0),
        "position": {k: pos.get(k) for k in ("phase", "phase_id", "phase_name", "block", "block_id", "thread")},
        "phases_total": st.get("phases", {}).get("total", 0),
        "agents": st.get("agents", {}).get("active", []),
        "blockers": st.get("blockers", []),
        "warnings": st.get("warnings", []),
        "updated_at": st.get("updated_at"),
    }


def render(data: dict[str, Any]) -> str:
    pos = data["position"]
    lines = [
        f"Mission: {data['mission']}  ({data['status']}, {data['mode']})",
        f"Progress: [{state_mod.progress_bar(float(data['progress'] or 0))}] {data['progress']}%",
        f"Phase {pos['phase']}/{data['phases_total']}: {pos['phase_id'] or '-'} {pos['phase_name'] or ''}".rstrip(),
        f"Block {pos['block'] or '-'}  Thread {pos['thread'] or '-'}",
        f"Agents ({len(data['agents'])}): " + (", ".join(str(a.get("id")) for a in data["agents"]) or "none"),
        f"Blockers ({len(data['blockers'])}): "
        + (
            "; ".join(str(b.get("description", b)) if isinstance(b, dict) else str(b) for b in data["blockers"])
            or "none"
        ),
        f"Updated: {data['updated_at']}",
    ]
    return "\n".join(lines)
