"""The MCP tools: each is one call of the Python API, made as `gridgit` makes it, with a compact answer.

Few tools with short descriptions: every schema is context each agent pays for on every
turn. Paths and globs are relative to the repository root. `agent` is offered where the
CLI offers `--agent`; without it the server's GRID_AGENT_ID acts, as for the CLI.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import Field

from gridgit.mcp.results import answer

if TYPE_CHECKING:
    from gridgit.blackboard import Blackboard

Agent = Annotated[str | None, Field(description="Acting agent id (default: the server's GRID_AGENT_ID)")]
Phase = Annotated[str | None, Field(description="Phase id (default: STATE's current phase)")]
Block = Annotated[str | None, Field(description="Block id, e.g. 01-02 (default: STATE's position)")]
Paths = Annotated[list[str], Field(description="Paths or globs (** crosses folders), relative to the repository")]

CATEGORIES = "discovery, decision, gotcha, pattern, warning, question, blocker, handoff"


class Tools:
    """The tools of one server: each call opens the Blackboard of ROOT afresh, like one `gridgit` run."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def board(self) -> Blackboard:
        from gridgit.blackboard import Blackboard

        return Blackboard(self.root)

    def all(self) -> list[Any]:
        from gridgit.mcp.work import WorkTools

        return [
            self.start_session,
            self.write_entry,
            self.read_entries,
            self.heartbeat,
            self.touch_file,
            self.claim_paths,
            self.release_paths,
            self.read_inbox,
            self.send,
            self.ack,
            self.resolve,
            self.confirm,
            self.resume,
            self.search,
            *WorkTools(self.board).all(),
        ]

    @answer
    def start_session(
        self,
        task: Annotated[str | None, Field(description="What you work on")] = None,
        block: Block = None,
        query: Annotated[str | None, Field(description="What you are about to do; ranks the entries")] = None,
        agent: Agent = None,
    ) -> str:
        """Call first: registers you as an active agent and returns your context pack (state, blockers, handoffs, entries, learnings)."""
        board = self.board()
        registered = board.register_agent(None, task, block, None, agent)
        pack = board.context(agent, None, query, None)
        return f"{registered.agent['id']}: {registered.action}\n\n{pack.render()}"

    @answer
    def write_entry(
        self,
        category: Annotated[str, Field(description=CATEGORIES)],
        topic: Annotated[str, Field(description="Topic keyword, e.g. auth")],
        content: str,
        tags: list[str] | None = None,
        relevance: Annotated[
            str | None, Field(description="HIGH, MEDIUM or LOW (default: from category and tags)")
        ] = None,
        title: str | None = None,
        block: Block = None,
        phase: Phase = None,
        agent: Agent = None,
    ) -> dict[str, Any]:
        """Write an entry to the phase scratchpad (secrets redacted; merged into another agent's recent entry of the same category and topic)."""
        board = self.board()
        entry = board.write(category, topic, content, tags, relevance, block, phase, agent, title)
        written: dict[str, Any] = {"entry": entry.id, "id": entry.uid, "relevance": entry.relevance}
        if entry.contributors and entry.agent_id != board.agent(agent):
            written["merged_into"] = entry.agent_id
        return written

    @answer
    def read_entries(
        self,
        topic: str | None = None,
        category: str | None = None,
        by: Annotated[str | None, Field(description="Only entries written or merged into by this agent")] = None,
        relevance: Annotated[str | None, Field(description="Minimum: HIGH, MEDIUM or LOW")] = None,
        limit: Annotated[int, Field(ge=1, description="At most this many, newest first")] = 20,
        archived: bool = False,
        phase: Phase = None,
    ) -> str:
        """Read scratchpad entries, newest first, filtered by topic, category, author, relevance."""
        from gridgit.scratchpad.entry_markdown import format_listing

        return format_listing(self.board().read(phase, topic, category, relevance, by, limit, archived))

    @answer
    def heartbeat(
        self,
        progress: Annotated[int, Field(description="Percent done, 0-100")],
        action: Annotated[str, Field(description="What you are doing now")],
        files: list[str] | None = None,
        thread: str | None = None,
        block: Block = None,
        phase: Phase = None,
        agent: Agent = None,
    ) -> dict[str, Any]:
        """Say you are alive (every ~5 minutes): agents silent for 10 minutes are reported stale."""
        entry = self.board().heartbeat(progress, action, thread, files, block, phase, agent)
        return {"entry": entry.id, "agent": entry.agent_id}

    @answer
    def touch_file(
        self,
        path: str,
        operation: Literal["created", "modified", "deleted", "moved"] = "modified",
        old_path: Annotated[str | None, Field(description="Where a moved file was")] = None,
        agent: Agent = None,
    ) -> dict[str, Any]:
        """Record that you changed a file; answers whether another agent changed it recently or holds it (a write conflict)."""
        result = self.board().touch(path, operation, agent, old_path)
        touched: dict[str, Any] = {"path": result.event["payload"]["path"], "conflict": False}
        conflict = result.conflict
        if conflict is not None and (conflict.has_conflict or conflict.claims):
            touched["conflict"] = conflict.has_conflict
            touched["with"] = conflict.conflicting_agents
            touched["claims"] = [_claim(c) for c in conflict.claims]
        return touched

    @answer
    def claim_paths(
        self,
        patterns: Paths,
        exclusive: Annotated[bool, Field(description="Others' writes there are conflicts")] = False,
        ttl_minutes: Annotated[float | None, Field(description="Default: config claims.ttl_minutes")] = None,
        reason: str = "",
        agent: Agent = None,
    ) -> dict[str, Any]:
        """Claim paths you are about to change (advisory; renews your claim); answers other agents' overlapping claims."""
        result = self.board().claim(patterns, agent, ttl_minutes, exclusive, reason)
        return {
            "granted": [c.pattern for c in result.granted],
            "until": result.granted[0].expires_at,
            "overlaps": [_claim(c.to_dict()) for c in result.conflicts],
        }

    @answer
    def release_paths(
        self,
        patterns: Annotated[list[str] | None, Field(description="Your claimed patterns (default: all)")] = None,
        agent: Agent = None,
    ) -> dict[str, Any]:
        """Release your claims."""
        return {"released": [c.pattern for c in self.board().release(patterns or None, agent)]}

    @answer
    def read_inbox(
        self,
        peek: Annotated[bool, Field(description="Do not mark as seen")] = False,
        limit: Annotated[int | None, Field(ge=1)] = None,
        agent: Agent = None,
    ) -> str:
        """What is new for you: messages (until acked), then each thing once: conflicts, claims, handoffs, resolutions, topics."""
        board = self.board()
        items = board.inbox(agent, peek, limit)
        return "\n".join(f"- {i.summary}" for i in items) or f"nothing new for {board.agent(agent)}"

    @answer
    def send(
        self,
        to: Annotated[str, Field(description="Agent id, block (01-02) or @all")],
        content: str,
        thread: Annotated[str | None, Field(description="A message id to answer")] = None,
        agent: Agent = None,
    ) -> dict[str, Any]:
        """Message an agent, a block or @all: in their inbox until acked."""
        sent = self.board().send(to, content, thread, agent)
        message = sent.message
        return {"sent": message.id, "to": message.to, "thread": message.thread, "held": sent.held}

    @answer
    def ack(self, message_id: str, agent: Agent = None) -> dict[str, Any]:
        """Acknowledge a message to you: it leaves your inbox."""
        acked = self.board().ack(message_id, agent)
        return {"acked": acked.message.id, "already": acked.already}

    @answer
    def resolve(
        self,
        entry_id: Annotated[str, Field(description="Entry number (5, 02-core#5) or id, or a STATE blocker id")],
        note: str = "",
        answer: Annotated[str, Field(description="The answer to a question")] = "",
        phase: Phase = None,
        agent: Agent = None,
    ) -> dict[str, Any]:
        """Resolve a blocker, question or warning, or take a handoff (archived ones by id); its author hears of it."""
        result = self.board().resolve(entry_id, phase, note, answer, agent)
        where = result.entry_ref or str(result.id)
        return {"resolved": where, "category": result.category, "already": result.already}

    @answer
    def confirm(
        self,
        entry_id: Annotated[str, Field(description="5, 02-core#5 or an entry id")],
        note: str = "",
        agent: Agent = None,
    ) -> dict[str, Any]:
        """Confirm another agent's entry: a HIGH finding is a learning once 3 agents did."""
        result = self.board().confirm(entry_id, None, note, agent)
        return {"confirmed": result.entry_ref, "validations": len(result.validations), "already": result.already}

    @answer
    def resume(self) -> str:
        """Where the mission picks up after a restart, and what to run next."""
        from gridgit.views import resume as resume_mod

        return resume_mod.render(self.board().resume())

    @answer
    def search(
        self,
        query: Annotated[str, Field(description='Words (all must occur), "a phrase", prefix*, OR, -word')] = "",
        category: str | None = None,
        by: Annotated[str | None, Field(description="Only what this agent wrote")] = None,
        phase: Annotated[str | None, Field(description="Only this phase")] = None,
        file: Annotated[str | None, Field(description="Only what cites this file")] = None,
        since: Annotated[str | None, Field(description="A date, or 2h, 7d")] = None,
        limit: Annotated[int, Field(ge=1, le=1000)] = 10,
    ) -> str:
        """Search everything the team ever wrote (scratchpads, archives of past phases, learnings, memory/), best first."""
        return self.board().search(query, category, by, phase, file, since, limit).render()


def _claim(claim: dict[str, Any]) -> str:
    kind = "exclusive" if claim["exclusive"] else "shared"
    return f"{claim['pattern']} ({claim['agent']}, {kind}, until {claim['expires_at']})"
