"""The MCP tools: each is one call of the Python API, made as `gridgit` makes it, with a compact answer.

Few tools with short descriptions: every schema is context each agent pays for on every
turn. Paths and globs are relative to the repository root. `agent` is offered where the
CLI offers `--agent`; without it the server's GRID_AGENT_ID acts, as for the CLI. How a tool
is declared (its argument types, its output TypedDict, `@tool`): gridgit.mcp.schema.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import Field
from typing_extensions import NotRequired, TypedDict

from gridgit.mcp.schema import (
    Action,
    Agent,
    Block,
    Category,
    CategoryFilter,
    Content,
    EntryId,
    FilePath,
    Limit,
    MessageId,
    Operation,
    Paths,
    Phase,
    Relevance,
    To,
    Topic,
    tool,
)

if TYPE_CHECKING:
    from gridgit.blackboard import Blackboard


class Text(TypedDict):
    text: str  # markdown, as the CLI prints it


class Session(TypedDict):
    agent: str
    action: str  # registered, updated, unchanged
    text: str  # the context pack


class Written(TypedDict):
    entry: int
    id: str
    relevance: str
    merged_into: NotRequired[str]


class Beat(TypedDict):
    entry: int
    agent: str


# `with` (the agents in conflict) is a Python keyword: the functional form.
Touched = TypedDict(
    "Touched", {"path": str, "conflict": bool, "with": NotRequired[list[str]], "claims": NotRequired[list[str]]}
)


class Claimed(TypedDict):
    granted: list[str]
    until: str
    overlaps: list[str]
    waiting: NotRequired[list[str]]


class Released(TypedDict):
    released: list[str]


class Inbox(TypedDict):
    count: int
    text: str


class Sent(TypedDict):
    sent: str
    to: str
    thread: str | None
    held: bool


class Acked(TypedDict):
    acked: str
    already: bool


class Resolved(TypedDict):
    resolved: str
    category: str
    already: bool


class Confirmed(TypedDict):
    confirmed: str
    validations: int
    already: bool


class Found(TypedDict):
    hits: int
    text: str


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

    @tool("Start a session", idempotent=True)
    def start_session(
        self,
        task: Annotated[str | None, Field(description="What you work on")] = None,
        block: Block = None,
        query: Annotated[str | None, Field(description="What you will do; ranks entries")] = None,
        agent: Agent = None,
    ) -> Session:
        """Call first: registers you; returns your context pack (state, open work, entries, learnings)."""
        board = self.board()
        registered = board.register_agent(None, task, block, None, agent)
        pack = board.context(agent, None, query, None)
        who = registered.agent["id"]
        return {"agent": who, "action": registered.action, "text": f"{who}: {registered.action}\n\n{pack.render()}"}

    @tool("Write an entry")
    def write_entry(
        self,
        category: Category,
        topic: Topic,
        content: Content,
        tags: Annotated[list[str] | None, Field(description="Keywords")] = None,
        relevance: Relevance = None,
        title: Annotated[str | None, Field(description="One line heading")] = None,
        block: Block = None,
        phase: Phase = None,
        agent: Agent = None,
    ) -> Written:
        """Write to the phase scratchpad."""
        board = self.board()
        entry = board.write(category, topic, content, tags, relevance, block, phase, agent, title)
        written: Written = {"entry": entry.id, "id": entry.uid, "relevance": entry.relevance}
        if entry.contributors and entry.agent_id != board.agent(agent):
            written["merged_into"] = entry.agent_id
        return written

    @tool("Read entries", read_only=True)
    def read_entries(
        self,
        topic: Annotated[str | None, Field(description="Only this topic")] = None,
        category: CategoryFilter = None,
        by: Annotated[str | None, Field(description="Only this author's")] = None,
        relevance: Relevance = None,
        limit: Limit = 20,
        archived: Annotated[bool, Field(description="Archived entries too")] = False,
        phase: Phase = None,
    ) -> Text:
        """Read scratchpad entries, newest first."""
        from gridgit.scratchpad.entry_markdown import format_listing

        return {"text": format_listing(self.board().read(phase, topic, category, relevance, by, limit, archived))}

    @tool("Heartbeat")
    def heartbeat(
        self,
        progress: Annotated[int, Field(ge=0, le=100, description="Percent done")],
        action: Action,
        files: Annotated[list[str] | None, Field(description="Files you are working on")] = None,
        thread: Annotated[str | None, Field(description="Thread of work, e.g. 1/3")] = None,
        block: Block = None,
        phase: Phase = None,
        agent: Agent = None,
    ) -> Beat:
        """Say you are alive, every ~5 minutes (silent 10 minutes: stale)."""
        entry = self.board().heartbeat(progress, action, thread, files, block, phase, agent)
        return {"entry": entry.id, "agent": entry.agent_id}

    @tool("Touch a file")
    def touch_file(
        self,
        path: FilePath,
        operation: Operation = "modified",
        old_path: Annotated[str | None, Field(description="Where a moved file was")] = None,
        agent: Agent = None,
    ) -> Touched:
        """Record a file you changed; answers a conflict with another agent."""
        result = self.board().touch(path, operation, agent, old_path)
        touched: Touched = {"path": result.event["payload"]["path"], "conflict": False}
        conflict = result.conflict
        if conflict is not None and (conflict.has_conflict or conflict.claims):
            touched["conflict"] = conflict.has_conflict
            touched["with"] = conflict.conflicting_agents
            touched["claims"] = [_claim(c) for c in conflict.claims]
        return touched

    @tool("Claim paths", idempotent=True, flags={"--ttl": "ttl_minutes"})
    def claim_paths(
        self,
        patterns: Paths,
        exclusive: Annotated[
            bool | None, Field(description="Others' writes there are conflicts; false: shared (default: as it was)")
        ] = None,
        ttl_minutes: Annotated[
            float | None, Field(gt=0, le=1e6, description="Minutes (default: config claims.ttl_minutes)")
        ] = None,
        reason: Annotated[str, Field(description="Why, for the others")] = "",
        agent: Agent = None,
    ) -> Claimed:
        """Claim paths you will change; answers others' overlapping claims."""
        result = self.board().claim(patterns, agent, ttl_minutes, exclusive, reason)
        answer: Claimed = {
            "granted": [c.pattern for c in result.granted],
            "until": result.granted[0].expires_at,
            "overlaps": [_claim(c.to_dict()) for c in result.conflicts],
        }
        if result.waiting:  # another agent's exclusive claim came first: these wait behind it
            answer["waiting"] = [c.pattern for c in result.waiting]
        return answer

    @tool("Release paths", idempotent=True)
    def release_paths(
        self,
        patterns: Annotated[list[str] | None, Field(description="Your claimed patterns (default: all)")] = None,
        agent: Agent = None,
    ) -> Released:
        """Release your claims."""
        return {"released": [c.pattern for c in self.board().release(patterns or None, agent)]}

    @tool("Read the inbox")
    def read_inbox(
        self,
        peek: Annotated[bool, Field(description="Do not mark as seen")] = False,
        limit: Annotated[int | None, Field(ge=1, description="Most items")] = None,
        agent: Agent = None,
    ) -> Inbox:
        """What is new for you: messages (until acked), conflicts, handoffs, resolutions."""
        board = self.board()
        items = board.inbox(agent, peek, limit)
        lines = "\n".join(f"- {i.summary}" for i in items) or f"nothing new for {board.agent(agent)}"
        return {"count": len(items), "text": lines}

    @tool("Send a message")
    def send(
        self,
        to: To,
        content: Content,
        thread: Annotated[str | None, Field(description="A message id to answer")] = None,
        agent: Agent = None,
    ) -> Sent:
        """Message an agent, a block or @all: in their inbox until acked."""
        sent = self.board().send(to, content, thread, agent)
        message = sent.message
        return {"sent": message.id, "to": message.to, "thread": message.thread, "held": sent.held}

    @tool("Acknowledge a message", idempotent=True)
    def ack(self, message_id: MessageId, agent: Agent = None) -> Acked:
        """Acknowledge a message to you: it leaves your inbox."""
        acked = self.board().ack(message_id, agent)
        return {"acked": acked.message.id, "already": acked.already}

    @tool("Resolve", idempotent=True)
    def resolve(
        self,
        entry_id: EntryId,
        note: Annotated[str, Field(description="How it was resolved")] = "",
        answer: Annotated[str, Field(description="The answer to a question")] = "",
        phase: Phase = None,
        agent: Agent = None,
    ) -> Resolved:
        """Resolve a blocker, question or warning, or take a handoff; its author hears of it."""
        result = self.board().resolve(entry_id, phase, note, answer, agent)
        where = result.entry_ref or str(result.id)
        return {"resolved": where, "category": result.category, "already": result.already}

    @tool("Confirm an entry", idempotent=True)
    def confirm(
        self,
        entry_id: EntryId,
        note: Annotated[str, Field(description="What you checked")] = "",
        agent: Agent = None,
    ) -> Confirmed:
        """Confirm another agent's entry: a HIGH finding is a learning once enough agents did."""
        result = self.board().confirm(entry_id, None, note, agent)
        return {"confirmed": result.entry_ref, "validations": len(result.validations), "already": result.already}

    @tool("Where to resume", read_only=True)
    def resume(self) -> Text:
        """Where the mission picks up after a restart, and what to run next."""
        from gridgit.views import resume as resume_mod

        return {"text": resume_mod.render(self.board().resume())}

    @tool("Search", read_only=True)
    def search(
        self,
        query: Annotated[str, Field(description='Words (all must occur), "a phrase", prefix*, OR, -word')] = "",
        category: CategoryFilter = None,
        by: Annotated[str | None, Field(description="Only what this agent wrote")] = None,
        phase: Annotated[str | None, Field(description="Only this phase")] = None,
        file: Annotated[str | None, Field(description="Only what cites this file")] = None,
        since: Annotated[str | None, Field(description="A date, or 2h, 7d")] = None,
        limit: Limit = 10,
    ) -> Found:
        """Search all the team wrote, best first."""
        found = self.board().search(query, category, by, phase, file, since, limit)
        return {"hits": len(found.hits), "text": found.render()}


def _claim(claim: dict[str, Any]) -> str:
    kind = "exclusive" if claim["exclusive"] else "shared"
    return f"{claim['pattern']} ({claim['agent']}, {kind}, until {claim['expires_at']})"
