"""How an MCP tool is declared: the one place that makes its schemas, title and annotations.

A tool is a method whose arguments are annotated with the types below (each described; a
closed set of values an `enum` taken from the library's own constants; numbers bounded) and
whose return type is a TypedDict, its `outputSchema`. `@tool(...)` adds its title, its
annotations (what it changes) and the error boundary (gridgit.mcp.results.answer). The server
(gridgit.mcp.server) registers every such tool with structured output; see docs/mcp.md,
"Adding a tool".
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any, NamedTuple, TypeVar

from pydantic import AfterValidator, Field

from gridgit.events.bus import OPERATIONS
from gridgit.mcp.results import answer
from gridgit.model.categories import WRITTEN
from gridgit.scratchpad.entry import CATEGORIES, RELEVANCES

F = TypeVar("F", bound=Callable[..., Any])


class ToolSpec(NamedTuple):
    """What `@tool` says of a tool besides its signature: its title, hints and CLI flags' argument names."""

    title: str
    read_only: bool
    destructive: bool
    idempotent: bool
    flags: dict[str, str]

    def annotations(self) -> dict[str, bool]:
        """The MCP ToolAnnotations hints that differ from the spec's defaults (the defaults cost bytes every turn).

        Spec 2025-11-25, ToolAnnotations: readOnlyHint false, destructiveHint true and idempotentHint
        false unless said. openWorldHint (default true) is left out: no tool reaches past the
        repository, but 16 times `"openWorldHint":false` is 350 bytes of every turn's context.
        """
        if self.read_only:
            return {"readOnlyHint": True}
        hints: dict[str, bool] = {}
        if not self.destructive:
            hints["destructiveHint"] = False
        if self.idempotent:
            hints["idempotentHint"] = True
        return hints


def tool(
    title: str,
    *,
    read_only: bool = False,
    destructive: bool = False,
    idempotent: bool = False,
    flags: dict[str, str] | None = None,
) -> Callable[[F], F]:
    """Declare a tool: TITLE for people, READ_ONLY (changes nothing), DESTRUCTIVE (may remove or overwrite what
    others wrote), IDEMPOTENT (a second identical call changes nothing more).

    FLAGS maps a CLI flag the library's messages name (`--ttl`) to this tool's argument (`ttl_minutes`); a flag
    spelled like an argument (`--tokens-in`, `tokens_in`) needs no entry.
    """

    def decorate(func: F) -> F:
        wrapped = answer(func, dict(flags or {}))
        wrapped.mcp_tool = ToolSpec(title, read_only, destructive, idempotent, dict(flags or {}))  # type: ignore[attr-defined]
        return wrapped

    return decorate


def spec(function: Any) -> ToolSpec:
    """The ToolSpec `@tool` gave FUNCTION (a method of the tools' classes)."""
    found: ToolSpec = function.mcp_tool
    return found


def one_of(values: tuple[str, ...], description: str, optional: bool = False) -> Any:
    """A string argument that must be one of VALUES (or, OPTIONAL, left out): an `enum` in its schema, checked on
    every call, so a model sees the choices and a wrong one is an error it can correct."""

    def check(value: str | None) -> str | None:
        if value is not None and value not in values:
            raise ValueError(f"must be one of {', '.join(values)}, not {value!r}")
        return value

    kind: Any = str | None if optional else str
    return Annotated[
        kind, Field(description=description, json_schema_extra={"enum": list(values)}), AfterValidator(check)
    ]


def text(description: str) -> Any:
    """A required, described string argument."""
    return Annotated[str, Field(description=description)]


# The arguments the tools share, described once; their defaults (GRID_AGENT_ID, the current phase, the agent's
# block) are said once, in the server's instructions, not in every tool's schema. The type checker sees plain strings: what
# one_of and text make is built at run time.
Agent = Annotated[str | None, Field(description="Acting agent id")]
Phase = Annotated[str | None, Field(description="Phase id")]
Block = Annotated[str | None, Field(description="Block id, e.g. 01-02")]
BlockId = Annotated[str, Field(description="Block id, e.g. 01-02")]
Paths = Annotated[list[str], Field(description="Paths or globs (**: any folders)")]
Labels = Annotated[list[str] | None, Field(description="Only blocks with all these labels")]
Limit = Annotated[int, Field(ge=1, le=1000, description="Most results")]
Tokens = Annotated[int, Field(ge=0, description="Tokens")]
if TYPE_CHECKING:
    from typing import TypeAlias

    Category: TypeAlias = str
    Operation: TypeAlias = str
    Content: TypeAlias = str
    Topic: TypeAlias = str
    Action: TypeAlias = str
    FilePath: TypeAlias = str
    To: TypeAlias = str
    MessageId: TypeAlias = str
    EntryId: TypeAlias = str
    Summary: TypeAlias = str
    CategoryFilter: TypeAlias = str | None
    Relevance: TypeAlias = str | None
else:
    Category = one_of(WRITTEN, "Entry category")
    CategoryFilter = one_of(CATEGORIES, "Only this category", optional=True)
    Relevance = one_of(RELEVANCES, "Default: from category and tags", optional=True)
    Operation = one_of(OPERATIONS, "What happened to the file")
    Content = text("Markdown; secrets are redacted")
    Topic = text("Topic keyword, e.g. auth")
    Action = text("What you are doing now")
    FilePath = text("The file, relative to the repository")
    To = text("Agent id, block (01-02) or @all")
    MessageId = text("The message's id")
    EntryId = text("Entry number (5, 02-core#5) or id, or a STATE blocker id")
    Summary = text("What was done")
