"""The work agents take: blocks and their queue, the budget, debug sessions (gridgit.work)."""

from __future__ import annotations

from typing import Any

from gridgit.api.base import BoardBase


class WorkAPI(BoardBase):
    """The work agents take: blocks and their queue, the budget, debug sessions (gridgit.work)."""

    # ---- blocks ----------------------------------------------------------------------------------

    def plan_block(
        self,
        block_id: str,
        content: str = "",
        name: str | None = None,
        depends_on: list[str] | None = None,
        wave: int | None = None,
        files: list[str] | None = None,
        phase: str | None = None,
        agent: str | None = None,
        priority: int | None = None,
        labels: list[str] | None = None,
        discovered_from: str | None = None,
    ) -> Any:
        """Write BLOCK_ID's plan: a gridgit.work.blockfile.Block; None keeps what was there.

        Planners and mc plan and edit (name, plan, dependencies, wave, files, PRIORITY 0-4, LABELS);
        any other working agent files a new block it found while working on DISCOVERED_FROM. In
        `hands_on` mode a new block anyone but mc plans is proposed, waiting for `approve_block`.
        """
        from gridgit.work import planning

        actor = self.agent(agent)
        return planning.plan(self.layout, block_id, actor, name, content, depends_on, wave, files, phase, priority,
                             labels, discovered_from)[0]  # fmt: skip

    def approve_block(self, block_id: str, phase: str | None = None, agent: str | None = None) -> Any:
        """Approve a proposed block (Master Control): it joins the queue. The Block."""
        from gridgit.work import planning

        return planning.approve(self.layout, block_id, self._master_control(agent), phase)

    def assign_block(
        self,
        block_id: str,
        to: str,
        expected_owner: str | None = None,
        phase: str | None = None,
        agent: str | None = None,
    ) -> Any:
        """Give a block to agent TO (Master Control): a ready one nobody holds, or a held one, from its holder.

        EXPECTED_OWNER (None: no check, "": nobody) must hold it now, else nothing changes (BadInput).
        A gridgit.work.queue.TakeResult; `reoffered_from` is the previous holder.
        """
        from gridgit.work import assign

        return assign.assign(self.layout, block_id, to, self._master_control(agent), expected_owner, phase)

    def approvals(self) -> dict[str, Any]:
        """What waits for Master Control: {"mode", "blocks": proposed Blocks, "phases": completion requests}."""
        from gridgit.model import mode, state
        from gridgit.phases import approval
        from gridgit.work import blocks

        st = state.read(self.layout)
        proposed = [b for b in blocks.listing(self.layout) if b.proposed]
        return {"mode": mode.mode_of(st), "blocks": proposed, "phases": approval.waiting(st)}

    def start_block(self, block_id: str, phase: str | None = None, agent: str | None = None) -> Any:
        """Mark the block you hold in progress: the Block."""
        from gridgit.work import blocks

        return blocks.start(self.layout, block_id, self.agent(agent), phase)[0]

    def complete_block(
        self,
        block_id: str,
        summary: str,
        commits: list[str] | None = None,
        phase: str | None = None,
        agent: str | None = None,
    ) -> Any:
        """Complete the block you hold with its SUMMARY (written to MM-SUMMARY.md): the Block."""
        from gridgit.work import blocks

        return blocks.complete(self.layout, block_id, self.agent(agent), summary, commits, phase)

    def release_block(self, block_id: str, phase: str | None = None, agent: str | None = None) -> Any:
        """Give the block you hold back to the queue: the Block."""
        from gridgit.work import blocks

        return blocks.release(self.layout, block_id, self.agent(agent), phase)

    def blocks(self, phase: str | None = None) -> list[Any]:
        """The blocks of PHASE (every phase when None), in order: gridgit.work.blockfile.Blocks."""
        from gridgit.work import blocks

        return blocks.listing(self.layout, phase)

    def block(self, block_id: str, phase: str | None = None) -> Any:
        """One block: a gridgit.work.blockfile.Block (errors.NotFound when it has no plan)."""
        from gridgit.work import blocks

        return blocks.get(self.layout, block_id, phase)

    def ready(self, phase: str | None = None, labels: list[str] | None = None, agent: str | None = None) -> list[Any]:
        """The blocks AGENT (default: the board's, else anyone) may take now, with every one of LABELS, in the
        order `take` takes them: gridgit.work.readiness.Offers. Another agent's exclusive claim on a block's
        files keeps it waiting; AGENT's own do not."""
        from gridgit.work import readiness

        return readiness.ready(self.layout, phase, None, self._maybe_agent(agent), labels)

    def explain_ready(
        self,
        block_id: str | None = None,
        phase: str | None = None,
        labels: list[str] | None = None,
        agent: str | None = None,
    ) -> list[Any]:
        """Why each block (BLOCK_ID alone when given) is or is not ready: gridgit.work.readiness.Verdicts."""
        from gridgit.work import readiness

        return readiness.explain(self.layout, block_id, phase, None, self._maybe_agent(agent), labels)

    def _maybe_agent(self, agent: str | None) -> str | None:
        from gridgit.model import permissions

        return permissions.declared_agent(self.layout.require(), agent or self.default_agent)

    def take(self, block_id: str | None = None, agent: str | None = None, labels: list[str] | None = None) -> Any:
        """Take BLOCK_ID or the next ready block with every one of LABELS (errors.NothingReady when there is
        none): a TakeResult.

        With a remote, the take is a compare-and-swap on the remote's grid ref (gridgit.history.publish):
        it stands once it is on the remote before any other take of the block (`pushed`). A remote
        that cannot be reached, or `blocks.push_on_take: false`, leaves it `provisional`: settled at
        the next sync, where a take the remote already holds wins. Without a remote, this clone's
        lock alone decides.
        """
        from gridgit.history import publish
        from gridgit.work import queue

        actor = self.agent(agent)
        published = publish.publish(
            self.layout,
            lambda: queue.take_local(self.layout, actor, block_id, labels=labels),
            lambda taken: queue.withdraw(self.layout, taken),
            self._attributed(actor),
            self.config["sync"]["ref"],
            push=self.config["blocks"]["push_on_take"],
        )
        result = published.record
        result.pushed, result.provisional, result.reason = published.confirmed, published.provisional, published.reason
        result.attempts = published.attempts
        return result if result.already else queue.after_take(self.layout, actor, result)

    # ---- budget ----------------------------------------------------------------------------------

    def budget(self) -> dict[str, Any]:
        """The mission's usage and cost: totals, by agent, phase and model, spawns, the limit (gridgit.work.budget)."""
        from gridgit.work import budget

        return budget.report(self.layout, self.config)

    def add_usage(
        self,
        tokens_in: int,
        tokens_out: int,
        cache_read: int = 0,
        cache_write: int = 0,
        cost: float | None = None,
        model: str | None = None,
        session: str | None = None,
        phase: str | None = None,
        agent: str | None = None,
    ) -> Any:
        """Report usage (an agent without a transcript gridgit reads); COST defaults to the model's price: a Recorded."""
        from gridgit.work import budget

        phase_id = self.phase(phase) if phase else None
        return budget.add(self.layout, self.agent(agent), tokens_in, tokens_out, cache_read, cache_write, cost, model,
                          session, phase_id)  # fmt: skip

    def count_transcript(self, path: str, session: str | None = None, agent: str | None = None) -> Any:
        """Count the usage new in an agent tool's transcript (what the Stop hook does): a Counted."""
        from gridgit.work import transcript

        return transcript.count(self.layout, self.agent(agent), path, session)

    # ---- debug sessions --------------------------------------------------------------------------

    def start_debug(self, title: str, hypothesis: str | None = None, agent: str | None = None) -> Any:
        """Open a debug session (`.grid/debug/<id>/investigation.md`): its Investigation."""
        from gridgit.work import debug

        return debug.start(self.layout, self.agent(agent), title, hypothesis)

    def note_debug(self, session_id: str, text: str, section: str = "tried", agent: str | None = None) -> Any:
        """Add a note to a session's hypothesis, tried or result section: its Investigation."""
        from gridgit.work import debug

        return debug.note(self.layout, session_id, self.agent(agent), text, section)

    def close_debug(
        self,
        session_id: str,
        root_cause: str,
        fix: str | None = None,
        evidence: list[str] | None = None,
        agent: str | None = None,
    ) -> tuple[Any, Any]:
        """Close a session: its root cause becomes a gotcha entry of the current phase; (Investigation, Entry)."""
        from gridgit.work import debug

        return debug.close(self.layout, session_id, self.agent(agent), root_cause, fix, evidence)

    def debug_sessions(self, status: str | None = None) -> list[dict[str, Any]]:
        """Every debug session (open or closed), newest first."""
        from gridgit.work import debug

        return debug.sessions(self.layout, status)

    def debug_session(self, session_id: str) -> Any:
        """One debug session with its sections: an Investigation."""
        from gridgit.work import debug

        return debug.read(self.layout.require(), session_id)
