"""Agents working together: their lifecycle, each one's inbox, resolving blockers and questions."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gridgit.api.base import BoardBase


class CoordinationAPI(BoardBase):
    """Agents working together: their lifecycle, each one's inbox, resolving blockers and questions."""

    def register_agent(
        self,
        agent_id: str | None = None,
        task: str | None = None,
        block: str | None = None,
        worktree: str | Path | None = None,
        agent: str | None = None,
    ) -> Any:
        """Register AGENT_ID (default: the acting agent itself) in STATE agents.active: an AgentResult.

        AGENT is who registers it: the agent itself, or Master Control (`mc`).
        """
        from gridgit.coordination import agents

        target, actor = self._target_and_actor(agent_id, agent)
        if block is not None:
            from gridgit.work import blocks

            blocks.check_named(self.layout.require(), block.strip())  # a block that does not exist: 7
        return agents.register(self.layout, target, actor, task, block, worktree)

    def finish_agent(
        self,
        agent_id: str | None = None,
        summary: str | None = None,
        result: str = "success",
        agent: str | None = None,
    ) -> Any:
        """Move AGENT_ID to agents.completed with its RESULT and SUMMARY (`gridgit agent done`): an AgentResult."""
        from gridgit.coordination import agents

        target, actor = self._target_and_actor(agent_id, agent)
        return agents.done(self.layout, target, actor, summary, result)

    def _target_and_actor(self, agent_id: str | None, agent: str | None) -> tuple[str, str]:
        """The agent acted on (AGENT_ID, else the acting agent) and who acts (AGENT, else the default, else the target)."""
        if agent_id is None:
            return self.agent(agent), self.agent(agent)
        target = self.agent(agent_id)
        return target, self.agent(agent) if agent or self.default_agent else target

    def agents(self) -> dict[str, list[dict[str, Any]]]:
        """{active: registered agents with their heartbeat health, completed: finished agents}."""
        from gridgit.coordination import agents

        return agents.list_agents(self.layout.require())

    def inbox(self, agent: str | None = None, peek: bool = False, limit: int | None = None) -> list[Any]:
        """What is new for AGENT since its last look, each event once: InboxItems (type, summary, event, entry)."""
        from gridgit.coordination import inbox

        return inbox.fetch(self.layout, self.agent(agent), peek, limit)

    def resolve(
        self,
        entry_id: str | int,
        phase: str | None = None,
        note: str = "",
        answer: str = "",
        agent: str | None = None,
    ) -> Any:
        """Resolve a blocker, question or warning entry (its number in PHASE) or a STATE blocker (its id).

        ANSWER answers a question. A ResolutionResult; `already` when it was resolved before.
        """
        from gridgit.coordination import resolution

        resolved = resolution.resolve(self.layout, str(entry_id), self.agent(agent), phase, note, answer)
        if not resolved.already:
            self._push_soon()
        return resolved

    def confirm(self, entry_id: str | int, phase: str | None = None, note: str = "", agent: str | None = None) -> Any:
        """Confirm another agent's entry (its number in PHASE, or its stable id): a validation promotion counts.

        A ConfirmResult; `already` when this agent had confirmed it.
        """
        from gridgit.coordination import confirmation

        confirmed = confirmation.confirm(self.layout, str(entry_id), self.agent(agent), phase, note)
        if not confirmed.already:
            self._push_soon()
        return confirmed
