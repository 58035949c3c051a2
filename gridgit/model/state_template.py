"""A fresh STATE.md: the packaged template filled with real ids, timestamps and phases (init, restore)."""

from __future__ import annotations

import secrets

from gridgit.model import state, state_schema
from gridgit.model.permissions import SYSTEM_AGENT as SYSTEM
from gridgit.store import clock, frontmatter
from gridgit.store.layout import read_template


def _slug(text: str) -> str:
    return "-".join("".join(c if c.isalnum() else " " for c in text.lower()).split()) or "mission"


def new_state(mission: str, phases: list[tuple[str, str]], head: str | None = None) -> str:
    """The text of a fresh STATE.md: the template filled with real ids, timestamps and phases.

    HEAD is the commit the session starts from: its last recorded commit, so that every commit
    after it counts (STATE's `progress.commits`).
    """
    now = clock.now_iso()
    compact = now.replace("-", "").replace(":", "")
    text = read_template("STATE.md")
    for token, value in {
        "session_id": f"sess-{compact}-{secrets.token_hex(3)}",
        "mission_id": f"mission-{compact}-{_slug(mission)}",
        "cluster": mission,
        "now": now,
    }.items():
        text = text.replace("{{" + token + "}}", value.replace('"', "'"))
    data, _ = frontmatter.parse(text, "templates/STATE.md")
    data["phases"]["total"] = len(phases)
    data["phases"]["current"] = 1
    data["phases"]["definitions"] = [
        {
            "id": pid,
            "name": name,
            "status": "in_progress" if i == 0 else "pending",
            "blocks": 0,
            "blocks_complete": 0,
            "started_at": now if i == 0 else None,
            "completed_at": None,
        }
        for i, (pid, name) in enumerate(phases)
    ]
    first_id, first_name = phases[0]
    data["position"].update({"phase": 1, "phase_id": first_id, "phase_name": first_name})
    data["resume"]["last_commit"] = head
    state.derive(data, SYSTEM)
    state_schema.check(data, "templates/STATE.md")
    return state.render_file(data)
