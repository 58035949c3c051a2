"""`gridgit doctor --repair`: bring back every damaged or missing `.grid/` file.

The same library call as `gridgit restore --all` (gridgit.history.restore): each file from
the newest grid commit that holds a valid version, entries lost by hand merged back in, a
STATE.md no commit holds rebuilt with every phase the history knows.
"""

from __future__ import annotations

from typing import Any

from gridgit.errors import BadInput
from gridgit.store.layout import Layout


def repair(layout: Layout, ref: str | None = None) -> list[Any]:
    """What was brought back (gridgit.history.restore.Restored, one per file); BadInput when nothing was damaged."""
    from gridgit.history import restore

    done = restore.restore(layout, everything=True, ref=ref)
    if not [r for r in done if r.how != "skipped"]:
        left = "; ".join(str(r) for r in done)
        raise BadInput(f"nothing to repair: every .grid/ file is as its history has it{': ' + left if left else ''}")
    return done
