"""The JSON API's routes: query parameters in, one read of the library the CLI uses, data out.

Each route names the parameters it takes; anything else is bad input, like an unknown CLI
option. Nothing here writes: these are the reads behind `status`, `read`, `learnings`,
`claims`, `conflicts list`, `events tail`, `phase list`, `thread`, `search`, `block list`,
`ready` and `approve list`. (What acts is gridgit.serve.actions.)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from gridgit.errors import BadInput

if TYPE_CHECKING:
    from gridgit.blackboard import Blackboard

Query = dict[str, list[str]]
MAX_EVENTS = 500


def _one(query: Query, name: str) -> str | None:
    """The value of parameter NAME (given at most once); empty means not given."""
    values = query.get(name) or [""]
    if len(values) > 1:
        raise BadInput(f"parameter {name!r} given {len(values)} times")
    return values[0] or None


def _count(query: Query, name: str, default: int | None, most: int) -> int | None:
    text = _one(query, name)
    if text is None:
        return default
    if not text.isdigit() or not 1 <= int(text) <= most:
        raise BadInput(f"parameter {name!r}: expected a whole number from 1 to {most}, not {text!r}")
    return int(text)


def status(board: Blackboard, query: Query) -> Any:
    """The mission dashboard (what `gridgit status --json` prints)."""
    return board.status()


def agents(board: Blackboard, query: Query) -> Any:
    """Registered and recently seen agents with their last heartbeat, the finished ones, and the staleness thresholds."""
    from gridgit.views import roster

    return {
        "agents": board.roster(),
        "completed": board.agents()["completed"],
        "warning_minutes": board.config["heartbeat"]["warning_minutes"],
        "stale_minutes": board.config["heartbeat"]["stale_minutes"],
        "seen_minutes": roster.SEEN_MINUTES,
    }


def entries(board: Blackboard, query: Query) -> Any:
    """A phase's entries (default: the current one), open work first, then newest first.

    Filters as `gridgit read`: category, agent (author or contributor), topic, relevance (a
    minimum), limit (the newest N), archived (the phase's archive instead).
    """
    from gridgit.git import evidence
    from gridgit.scratchpad.citations import cited_files
    from gridgit.scratchpad.entry import CATEGORIES, RELEVANCES

    phase = board.phase(_one(query, "phase"))
    archived = _one(query, "archived") in ("1", "true", "yes")
    filters: dict[str, Any] = {
        "topic": _one(query, "topic"),
        "category": _one(query, "category"),
        "relevance": _one(query, "relevance"),
        "by": _one(query, "agent"),
        "limit": _count(query, "limit", None, 100_000),
    }
    found = board.read(phase, archived=archived, **filters)
    every = board.read(phase, archived=archived) if any(v is not None for v in filters.values()) else found
    rows = [
        {
            **e.to_dict(),
            "open": e.is_open,
            "commits": evidence.commit_hashes(e.content),
            "files": cited_files(e.content),
        }
        for e in found
    ]
    rows.sort(key=lambda row: not row["open"])  # stable: newest first within each group
    return {
        "phase_id": phase,
        "archived": archived,
        "entries": rows,
        "total": len(every),
        "facets": {
            "categories": list(CATEGORIES),
            "relevances": list(RELEVANCES),
            "agents": sorted({a for e in every for a in (e.agent_id, *e.contributors)}),
            "topics": sorted({e.topic for e in every}),
        },
    }


def conflicts(board: Blackboard, query: Query) -> Any:
    """Open write conflicts (CHECKPOINT.md) and live claims; recent write_conflict events are in status."""
    return {"open": board.open_conflicts(), "claims": board.claims()}


def messages(board: Blackboard, query: Query) -> Any:
    """The last `limit` messages (default 50), newest first, with who acknowledged each; `agent`: the ones
    waiting for that agent (not acknowledged by it)."""
    found = board.messages(_one(query, "agent"))
    limit = _count(query, "limit", 50, MAX_EVENTS) or 50
    return {"messages": found[::-1][:limit], "total": len(found)}


def learnings(board: Blackboard, query: Query) -> Any:
    """LEARNINGS.md by section: the spec's sections in order (empty ones too), then any others."""
    from gridgit.model.learnings import SECTIONS

    found = board.learnings(_one(query, "section"))
    names = [*SECTIONS, *dict.fromkeys(item.category for item in found if item.category not in SECTIONS)]
    return {"sections": [{"name": n, "learnings": [item for item in found if item.category == n]} for n in names]}


def events(board: Blackboard, query: Query) -> Any:
    """The last `limit` events (default 50), oldest first, optionally of some `type`s."""
    from gridgit.events.bus import check_type

    types = [check_type(t) for t in query.get("type", []) if t] or None
    return board.tail(_count(query, "limit", 50, MAX_EVENTS) or 50, types)


def search(board: Blackboard, query: Query) -> Any:
    """`gridgit search`: `q` (the query), filters as its options (category, agent, phase, file, since, kind), limit."""
    from gridgit.search.query import DEFAULT_LIMIT, MAX_LIMIT

    kinds = [k for k in query.get("kind", []) if k]
    limit = _count(query, "limit", DEFAULT_LIMIT, MAX_LIMIT) or DEFAULT_LIMIT
    filters = {name: _one(query, name) for name in ("category", "agent", "phase", "file", "since")}
    return board.search(_one(query, "q"), limit=limit, kinds=kinds, **filters)


def phases(board: Blackboard, query: Query) -> Any:
    """Every phase (what `gridgit phase list --json` prints)."""
    return board.phases()


def blocks(board: Blackboard, query: Query) -> Any:
    """The board: a phase's blocks (default: the current one) with `ready` and why each other one waits,
    the mission's mode and what waits for approval (`gridgit approve list`)."""
    from gridgit.model import state
    from gridgit.store import clock
    from gridgit.work import readiness

    phase = board.phase(_one(query, "phase"))
    every = board.blocks()
    verdicts = readiness.judge(board.layout, every, state.read(board.layout), board.config, clock.now())
    offered, waiting = readiness.offers(verdicts)
    ready = {o.block.block_id: o.stale_owner for o in offered}
    rows = [
        {
            **b.to_dict(),
            "ready": b.block_id in ready,
            "stale_owner": ready.get(b.block_id),
            "waits": waiting.get(b.block_id),
        }
        for b in every
        if b.phase_id == phase
    ]
    return {"phase_id": phase, "blocks": rows, "approvals": board.approvals()}


def repository(board: Blackboard, query: Query) -> Any:
    """How the page links commits and files: the repository's web host (GitHub, GitLab, Gitea), else `/show`."""
    from gridgit.serve import links

    return links.repository(board.layout)


@dataclass(frozen=True)
class Route:
    read: Callable[[Blackboard, Query], Any]
    parameters: frozenset[str] = frozenset()

    def __call__(self, board: Blackboard, query: Query) -> Any:
        unknown = sorted(set(query) - self.parameters)
        if unknown:
            known = ", ".join(sorted(self.parameters)) or "none"
            raise BadInput(f"unknown parameter {unknown[0]!r} (this route takes: {known})")
        return self.read(board, query)


ROUTES: dict[str, Route] = {
    "/api/status": Route(status),
    "/api/agents": Route(agents),
    "/api/entries": Route(
        entries, frozenset({"phase", "category", "agent", "topic", "relevance", "limit", "archived"})
    ),
    "/api/conflicts": Route(conflicts),
    "/api/messages": Route(messages, frozenset({"agent", "limit"})),
    "/api/learnings": Route(learnings, frozenset({"section"})),
    "/api/events": Route(events, frozenset({"limit", "type"})),
    "/api/phases": Route(phases),
    "/api/blocks": Route(blocks, frozenset({"phase"})),
    "/api/repo": Route(repository),
    "/api/search": Route(search, frozenset({"q", "category", "agent", "phase", "file", "since", "kind", "limit"})),
}
