"""The MCP resources: STATE.md, LEARNINGS.md and CHECKPOINT.md as the files say them (secrets redacted), and the
blocks; read-only."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from mcp.server.mcpserver.exceptions import ResourceError

from gridgit.errors import GridError, permission_denied
from gridgit.mcp.results import error_text
from gridgit.store import fileio, redaction
from gridgit.store.layout import Layout

NO_CHECKPOINT = "(no CHECKPOINT.md: no open write conflicts)"


def _read(root: Path, pick: Callable[[Layout], Path], missing: str | None = None) -> str:
    """The text of one .grid/ file; a GridError becomes a ResourceError carrying the CLI's code and message."""

    def text(layout: Layout) -> str:
        path = pick(layout)
        if missing is not None and not path.exists() and not path.is_symlink():
            return missing
        # What a person typed into the file by hand was never redacted by a write path.
        return redaction.redact(fileio.read_text(path))

    return _answer(root, text)


def _blocks(layout: Layout) -> str:
    from gridgit.work import blocks

    return blocks.table(blocks.listing(layout))


def _answer(root: Path, read: Callable[[Layout], str]) -> str:
    """READ of the Blackboard around ROOT; a GridError becomes a ResourceError carrying the CLI's code and message."""
    try:
        return read(Layout.find(root).require())
    except GridError as exc:
        raise ResourceError(error_text(exc.code, exc.exit_code, str(exc))) from None
    except PermissionError as exc:
        denied = permission_denied(exc)
        raise ResourceError(error_text(denied.code, denied.exit_code, str(denied))) from None


def resources(root: Path) -> list[tuple[str, str, str, Callable[[], str]]]:
    """(uri, name, description, read) of each resource."""
    return [
        (
            "grid://state",
            "STATE.md",
            "Mission state (L3): position, agents, blockers, progress",
            lambda: _read(root, lambda lay: lay.state),
        ),
        (
            "grid://learnings",
            "LEARNINGS.md",
            "Learnings kept across phases (L4)",
            lambda: _read(root, lambda lay: lay.learnings),
        ),
        (
            "grid://checkpoint",
            "CHECKPOINT.md",
            "Open write conflicts between agents",
            lambda: _read(root, lambda lay: lay.checkpoint, NO_CHECKPOINT),
        ),
        (
            "grid://blocks",
            "Blocks",
            "Every phase's blocks (the work queue): status, wave, owner",
            lambda: _answer(root, _blocks),
        ),
    ]
