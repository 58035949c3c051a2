"""The MCP tools of the work queue and the budget: `ready`, `take`, `complete_block`, `report_usage`, `approve`.

Each is one Python API call, as `gridgit ready|take|block complete|budget add|approve` make it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

from pydantic import Field
from typing_extensions import TypedDict

from gridgit.mcp.schema import Agent, BlockId, Labels, Summary, Tokens, tool

if TYPE_CHECKING:
    from gridgit.blackboard import Blackboard


class Ready(TypedDict):
    blocks: list[str]
    text: str


class Taken(TypedDict):
    block: str
    name: str | None
    status: str
    files: list[str]
    plan: str
    already: bool
    pushed: bool
    provisional: bool


class Completed(TypedDict):
    block: str
    status: str
    commits: list[str]


class Usage(TypedDict):
    cost_usd: float
    total_usd: float
    limit_usd: float | None
    limit_reached: bool


class Approved(TypedDict, total=False):
    block: str
    status: str
    approved_by: str | None
    phase: str
    next_phase: str | None
    already_complete: bool


class WorkTools:
    """The work tools of one server (see gridgit.mcp.tools.Tools, which lists them with its own)."""

    def __init__(self, board: Any) -> None:
        self.board: Any = board  # a callable giving the Blackboard afresh, like one `gridgit` run

    def all(self) -> list[Any]:
        return [self.ready, self.take, self.complete_block, self.report_usage, self.approve]

    @tool("Ready blocks", read_only=True)
    def ready(
        self,
        phase: Annotated[str | None, Field(description="Only this phase")] = None,
        labels: Labels = None,
    ) -> Ready:
        """Blocks you may take now, in the order take takes them."""
        board: Blackboard = self.board()
        found = board.ready(phase, labels)
        lines = [
            f"{o.block.block_id} wave {o.block.wave} P{o.block.priority}: {o.block.name or '-'}"
            + (f" (was {o.stale_owner}'s, gone quiet)" if o.stale_owner else "")
            for o in found
        ]
        return {"blocks": [o.block.block_id for o in found], "text": "\n".join(lines) or "nothing ready"}

    @tool("Take a block", idempotent=True)
    def take(
        self,
        block: Annotated[str | None, Field(description="Block id, e.g. 01-02 (default: the next ready)")] = None,
        labels: Labels = None,
        agent: Agent = None,
    ) -> Taken:
        """Take a block: it is yours, its files claimed; error nothing_ready if none is."""
        result = self.board().take(block, agent, labels)
        taken = result.block
        return {"block": taken.block_id, "name": taken.name, "status": taken.status, "files": taken.files,
                "plan": taken.plan, "already": result.already, "pushed": result.pushed,
                "provisional": result.provisional}  # fmt: skip

    @tool("Complete a block")
    def complete_block(self, block: BlockId, summary: Summary, agent: Agent = None) -> Completed:
        """Complete your block with a summary of what was done."""
        done = self.board().complete_block(block, summary, None, None, agent)
        return {"block": done.block_id, "status": done.status, "commits": done.commits}

    @tool("Report token usage", flags={"--cost": "cost_usd"})
    def report_usage(
        self,
        tokens_in: Tokens,
        tokens_out: Tokens,
        cache_read: Tokens = 0,
        cache_write: Tokens = 0,
        model: Annotated[str | None, Field(description="e.g. claude-sonnet-4-5")] = None,
        cost_usd: Annotated[float | None, Field(ge=0, description="Default: the model's price")] = None,
        agent: Agent = None,
    ) -> Usage:
        """Report tokens used, when gridgit does not read your transcript."""
        board: Blackboard = self.board()
        done = board.add_usage(tokens_in, tokens_out, cache_read, cache_write, cost_usd, model, None, None, agent)
        return {"cost_usd": round(done.total_usd - done.before_usd, 6), "total_usd": done.total_usd,
                "limit_usd": done.limit_usd, "limit_reached": done.limit_reached}  # fmt: skip

    @tool("Approve a block or a phase", idempotent=True)
    def approve(
        self, id: Annotated[str, Field(description="A block (01-02) or a phase (01-foundation)")], agent: Agent = None
    ) -> Approved:
        """Master Control approves a proposed block, or a phase's completion."""
        from gridgit.work.blockfile import BLOCK_ID_RE

        board: Blackboard = self.board()
        if BLOCK_ID_RE.match(id):  # NN-NN names a block (a phase's slug starts after its NN-)
            found = board.approve_block(id, None, agent)
            return {"block": found.block_id, "status": found.status, "approved_by": found.approved_by}
        done = board.approve_phase(id, None, agent)
        return {"phase": done.phase_id, "next_phase": done.next_phase_id, "already_complete": done.already_complete}
