"""What every git hook body shares: the refusal, the warning line, settings, and where git is.

A hook refuses (exit 1) only for a real finding (Refused); everything else is a warning line
and git proceeds (DESIGN.md "Git integration").
"""

from __future__ import annotations

import sys
from typing import Any

from gridgit.store import gitcmd
from gridgit.store.layout import Layout

NULL_SHA = "0" * 40


class Refused(Exception):
    """A real finding: the lines to print, and git's command must stop."""

    def __init__(self, lines: list[str]) -> None:
        super().__init__("\n".join(lines))
        self.lines = lines


def warn(message: str) -> None:
    sys.stderr.write(f"gridgit: {message}\n")


def read_config(layout: Layout) -> dict[str, Any]:
    """config.json as read for hooks; missing keys fall back in `setting`.

    Read directly rather than through gridgit.store.config (importlib.resources) to keep the
    hook's start-up short; a broken config.json is a validation finding, never a block.
    """
    import json

    try:
        data = json.loads(layout.config.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def setting(cfg: dict[str, Any], dotted: str, default: Any) -> Any:
    node: Any = cfg
    for part in dotted.split("."):
        if not isinstance(node, dict) or part not in node:
            return default
        node = node[part]
    return node


def grid_in_worktree(layout: Layout) -> str | None:
    """The .grid/ prefix when this work tree's commits carry the Blackboard gridgit writes."""
    try:
        return layout.grid.relative_to(layout.root).as_posix()
    except ValueError:
        return None


def git_dir_has(layout: Layout, *markers: str) -> bool:
    git_dir = gitcmd.git_dir(layout.root)
    return any((git_dir / m).exists() for m in markers)


def in_rebase(layout: Layout) -> bool:
    """A rebase replays commits (post-commit per pick); its post-rewrite sees them all at the end."""
    return git_dir_has(layout, "rebase-merge", "rebase-apply")


def in_sequence(layout: Layout) -> bool:
    """A rebase, merge, cherry-pick or revert under way: never make a commit of our own then."""
    return git_dir_has(
        layout, "rebase-merge", "rebase-apply", "MERGE_HEAD", "CHERRY_PICK_HEAD", "REVERT_HEAD", "sequencer"
    )
