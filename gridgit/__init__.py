"""gridgit: a git repository as the shared memory (Blackboard) of parallel coding agents."""

from __future__ import annotations

__version__ = "0.1.0"
__all__ = ["Blackboard", "__version__"]

# Not typing.TYPE_CHECKING: importing typing costs every hook ~4 ms, and mypy reads this name alike.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from gridgit.blackboard import Blackboard


def __getattr__(name: str) -> Any:
    # Imported on first use so `gridgit --version` and the hook shims load neither yaml nor git.
    if name == "Blackboard":
        from gridgit.blackboard import Blackboard

        return Blackboard
    raise AttributeError(f"module 'gridgit' has no attribute {name!r}")
