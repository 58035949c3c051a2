"""Heartbeats nobody has to write by hand: the scratchpad protocol's commit trigger (6.2, "Commit
made: after successful git commit").

A commit by an agent is a sign of its work (gridgit.coordination.activity), recorded by the
post-commit hook: no scratchpad entry (an explicit `gridgit heartbeat` writes one), STATE's
`last_heartbeat` at most every few minutes. Who committed is `GRID_AGENT_ID`, else `git config
grid.agent` (gridgit.model.permissions.attribute_agent), else the agent registered for the
worktree the commit was made in (an agent tool's session registers its worktree when it starts,
see gridgit.agents.handlers). A commit nobody can be named for records nothing.
"""

from __future__ import annotations

from gridgit.coordination import activity
from gridgit.errors import GridError
from gridgit.model import state
from gridgit.model.permissions import UNKNOWN_AGENT
from gridgit.store import notices
from gridgit.store.layout import Layout


def commit_heartbeat(layout: Layout, agent_id: str, commit: str) -> str:
    """The sign of work of the agent that made COMMIT (see the module); that agent, or `unknown`.

    A failure is a warning: the commit is recorded whatever its heartbeat does.
    """
    if agent_id == UNKNOWN_AGENT:  # the agent registered for this worktree, if any
        try:
            worktrees = state.agent_worktrees(layout, state.read(layout))
        except GridError as exc:
            notices.warn("gridgit.coordination", f"gridgit: warning: no heartbeat for commit {commit} ({exc})")
            return UNKNOWN_AGENT
        agent_id = worktrees.get(layout.root.resolve(), UNKNOWN_AGENT)
    activity.record(layout, agent_id, f"commit {commit}")
    return agent_id
