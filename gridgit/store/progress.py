"""Progress of work that can take more than a second (a cold search index, a restore): the library says how far
it is; the CLI shows it on stderr when stderr is a terminal, and nobody else (--json, hooks, the MCP server, a
pipe) ever sees it.

The library calls `step(what, done, total)` as it goes; without a sink installed it is one attribute test.
"""

from __future__ import annotations

import os

from gridgit.errors import BadInput

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

_sink: Callable[[str, int, int], None] | None = None


def install(sink: Callable[[str, int, int], None] | None) -> None:
    """Show progress through SINK(what, done, total) from now on (None: show none)."""
    global _sink
    _sink = sink


def step(what: str, done: int, total: int) -> None:
    """DONE of TOTAL items of WHAT are done (DONE == TOTAL: the work is over)."""
    if _sink is not None:
        _sink(what, done, total)


def shown_after() -> float:
    """GRIDGIT_PROGRESS_AFTER: seconds of work before progress is shown (default 1; 0 shows it at once)."""
    value = os.environ.get("GRIDGIT_PROGRESS_AFTER", "").strip()
    if not value:
        return 1.0
    try:
        seconds = float(value)
    except ValueError:
        seconds = -1.0
    if not 0 <= seconds <= 3600:
        raise BadInput(f"GRIDGIT_PROGRESS_AFTER={value[:40]!r}: expected a number of seconds from 0 to 3600")
    return seconds
