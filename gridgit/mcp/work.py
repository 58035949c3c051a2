"""The MCP tools of the work queue and the budget: `ready`, `take`, `complete_block`, `report_usage`.

Each is one Python API call, as `gridgit ready|take|block complete|budget add` make it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

from pydantic import Field

from gridgit.mcp.results import answer

if TYPE_CHECKING:
    from gridgit.blackboard import Blackboard

Agent = Annotated[str | None, Field(description="Acting agent id (default: the server's GRID_AGENT_ID)")]
BlockId = Annotated[str, Field(description="Block id, e.g. 01-02")]


class WorkTools:
    """The work tools of one server (see gridgit.mcp.tools.Tools, which lists them with its own)."""

    def __init__(self, board: Any) -> None:
        self.board: Any = board  # a callable giving the Blackboard afresh, like one `gridgit` run

    def all(self) -> list[Any]:
        return [self.ready, self.take, self.complete_block, self.report_usage]

    @answer
    def ready(self, phase: Annotated[str | None, Field(description="Only this phase")] = None) -> str:
        """Blocks you may take now, in the order take takes them."""
        board: Blackboard = self.board()
        lines = [
            f"{o.block.block_id} wave {o.block.wave}: {o.block.name or '-'}"
            + (f" (was {o.stale_owner}'s, gone quiet)" if o.stale_owner else "")
            for o in board.ready(phase)
        ]
        return "\n".join(lines) or "nothing ready"

    @answer
    def take(
        self,
        block: Annotated[str | None, Field(description="Default: the next ready")] = None,
        agent: Agent = None,
    ) -> dict[str, Any]:
        """Take a block (default: the next ready one): it is yours, its files claimed; error nothing_ready if none."""
        result = self.board().take(block, agent)
        taken = result.block
        return {"block": taken.block_id, "name": taken.name, "status": taken.status, "files": taken.files,
                "plan": taken.plan, "already": result.already, "pushed": result.pushed,
                "provisional": result.provisional}  # fmt: skip

    @answer
    def complete_block(self, block: BlockId, summary: str, agent: Agent = None) -> dict[str, Any]:
        """Complete your block with a summary of what was done."""
        done = self.board().complete_block(block, summary, None, None, agent)
        return {"block": done.block_id, "status": done.status, "commits": done.commits}

    @answer
    def report_usage(
        self,
        tokens_in: int,
        tokens_out: int,
        cache_read: int = 0,
        cache_write: int = 0,
        model: Annotated[str | None, Field(description="e.g. claude-sonnet-4-5")] = None,
        cost_usd: Annotated[float | None, Field(description="Default: the model's price")] = None,
        agent: Agent = None,
    ) -> dict[str, Any]:
        """Report tokens you used, when gridgit does not read your tool's transcript."""
        board: Blackboard = self.board()
        done = board.add_usage(tokens_in, tokens_out, cache_read, cache_write, cost_usd, model, None, None, agent)
        return {"cost_usd": round(done.total_usd - done.before_usd, 6), "total_usd": done.total_usd,
                "limit_usd": done.limit_usd, "limit_reached": done.limit_reached}  # fmt: skip
