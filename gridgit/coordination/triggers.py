"""Heartbeats nobody has to write by hand: the scratchpad protocol's triggers (6.2, "Commit made:
after successful git commit").

A commit by an agent is a heartbeat entry of that agent, written by the post-commit hook: its
current action `committed <hash>`, the commit's files as the files touched, the thread and
progress its last heartbeat said. Who committed is `GRID_AGENT_ID`, else `git config grid.agent`
(gridgit.model.permissions.attribute_agent), else the agent registered for the worktree the
commit was made in (an agent tool's session registers its worktree when it starts, see
gridgit.agents.handlers). A commit nobody can be named for, or by an agent that sends no
heartbeats (Master Control, scouts, planners), writes nothing.
"""

from __future__ import annotations

from gridgit.coordination import heartbeat
from gridgit.errors import GridError
from gridgit.model import state
from gridgit.model.permissions import UNKNOWN_AGENT
from gridgit.store import notices
from gridgit.store.layout import Layout

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from gridgit.scratchpad.entry import Entry

FILES_SHOWN = 20  # a heartbeat line, not the commit: `gridgit log` has every file


def action(commit: str) -> str:
    """What the heartbeat of COMMIT says its agent is doing."""
    return f"committed {commit}"


def committer(layout: Layout, agent_id: str, st: dict[str, Any]) -> str:
    """AGENT_ID, or when it is `unknown` the agent registered for this worktree (else `unknown`)."""
    if agent_id != UNKNOWN_AGENT:
        return agent_id
    return state.agent_worktrees(layout, st).get(layout.root.resolve(), UNKNOWN_AGENT)


def commit_heartbeat(layout: Layout, agent_id: str, commit: str, files: list[str]) -> Entry | None:
    """The heartbeat of the agent that made COMMIT (see the module's rules); None when there is none.

    A failure is a warning: the commit is recorded whatever its heartbeat does.
    """
    try:
        st = state.read(layout)
        agent_id = committer(layout, agent_id, st)
        if agent_id == UNKNOWN_AGENT or not heartbeat.sends_heartbeats(agent_id):
            return None
        me = state.registered_agent(st, agent_id)
        phase_id = me.get("phase") or state.current_phase(st)
        if not isinstance(phase_id, str) or not phase_id:
            return None
        from gridgit.scratchpad import reads

        last = reads.read_entries(layout, phase_id, agent_id=agent_id, category="heartbeat", limit=1)
        said = heartbeat.read_content(last[0].content) if last else {}
        touched = [f for f in files if "\n" not in f and "\r" not in f]
        shown = touched[:FILES_SHOWN] + (
            [f"... {len(touched) - FILES_SHOWN} more"] if len(touched) > FILES_SHOWN else []
        )
        block = str(me.get("block") or (st.get("position") or {}).get("block_id") or "")
        return heartbeat.write_heartbeat(
            layout, phase_id, agent_id, block, said.get("thread") or "", said.get("progress") or 0,
            action(commit), shown,
        )  # fmt: skip
    except GridError as exc:
        notices.warn("gridgit.coordination", f"gridgit: warning: no heartbeat for commit {commit} ({exc})")
        return None
