"""STATE's `persistent.artifacts`: the files the mission's blocks made, and the phases that use them.

The spec's shared artifacts (`{id, type, path, created_phase, used_by_phases}`), from blocks'
summaries and commits: when a block completes, each file its commits (its owner's since the
take, and any `--commit` given) added is an artifact of the block's phase: `id: art-<digest of
the path>` (the same in every clone), its `type` from its path (schema, migration, config,
test, doc, code), `path`, `created_phase`, `block` and `used_by_phases`. A commit recorded later
that changes an artifact adds its phase to `used_by_phases`. At most MAX_ARTIFACTS, the oldest
leaving first: every command reads STATE.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from pathlib import PurePosixPath
from typing import Any

from gridgit.errors import GridError
from gridgit.model import state, state_schema
from gridgit.store import gitcmd, notices
from gridgit.store.layout import Layout, grid_prefix

MAX_ARTIFACTS = 200
ARTIFACTS = "persistent.artifacts"
_CONFIG_SUFFIXES = (".json", ".yaml", ".yml", ".toml", ".ini", ".cfg", ".env")


def artifact_id(path: str) -> str:
    return "art-" + hashlib.sha256(path.encode("utf-8")).hexdigest()[:12]


def kind(path: str) -> str:
    """What a file is, from its path: schema, migration, test, doc, config or code."""
    low = path.lower()
    name = PurePosixPath(low).name
    parts = PurePosixPath(low).parts
    if "migrations" in parts or "migration" in parts:
        return "migration"
    if "schema" in name or name.endswith((".prisma", ".graphql", ".proto", ".sql")):
        return "schema"
    if any(p in ("test", "tests", "__tests__", "spec") for p in parts) or name.startswith("test_") or ".test." in name \
            or ".spec." in name or name.endswith("_test.go"):  # fmt: skip
        return "test"
    if name.endswith((".md", ".rst", ".txt")) or "docs" in parts:
        return "doc"
    if name.endswith(_CONFIG_SUFFIXES) or name.startswith("."):
        return "config"
    return "code"


def added_files(layout: Layout, commits: Iterable[str]) -> list[str]:
    """The files COMMITS added (each once, in commit order), the Blackboard's own left out."""
    shas = [c for c in commits if c and all(ch in "0123456789abcdef" for ch in c.lower())]
    if not shas:
        return []
    out = gitcmd.run(layout.root, "log", "--no-walk=sorted", "--reverse", "--format=", "--name-only",
                     "--diff-filter=A", "-z", "--ignore-missing", *shas, "--")  # fmt: skip
    own = grid_prefix(layout)
    files = [f.strip("\n") for f in out.split("\0") if f.strip("\n")]
    return list(dict.fromkeys(f for f in files if not own or not f.startswith(own + "/")))


def _update(layout: Layout, change: Any, action: str) -> None:
    try:
        state.update_with(layout, change, "system", action, check_permission=False)
    except GridError as exc:  # the block or the commit stands: artifacts are a record of them
        notices.warn("gridgit.memory", f"gridgit: warning: artifacts not recorded ({exc})")


def created(layout: Layout, block_id: str, phase_id: str, commits: list[str]) -> None:
    """Record the files BLOCK_ID's COMMITS added as artifacts of PHASE_ID (those known already keep their record)."""
    try:
        files = added_files(layout, commits)
    except GridError as exc:
        notices.warn("gridgit.memory", f"gridgit: warning: artifacts of block {block_id} not read ({exc})")
        return
    if not files:
        return

    def change(st: dict[str, Any]) -> dict[str, Any]:
        found, items = state_schema.lookup(st, ARTIFACTS)
        items = list(items) if found and isinstance(items, list) else []
        known = {i.get("id") for i in items if isinstance(i, dict)}
        new = [{"id": artifact_id(f), "type": kind(f), "path": f, "created_phase": phase_id, "block": block_id,
                "used_by_phases": [phase_id]} for f in files if artifact_id(f) not in known]  # fmt: skip
        if not new:
            return {}
        return {"persistent": {"artifacts": (items + new)[-MAX_ARTIFACTS:]}}

    _update(layout, change, f"artifacts of block {block_id}")


def used(layout: Layout, files: Iterable[str]) -> None:
    """A commit changed FILES: each artifact among them is used by STATE's current phase too."""
    paths = set(files)

    def change(st: dict[str, Any]) -> dict[str, Any]:
        phase_id = state.current_phase(st)
        found, items = state_schema.lookup(st, ARTIFACTS)
        if not phase_id or not found or not isinstance(items, list):
            return {}
        touched = [i for i in items if isinstance(i, dict) and i.get("path") in paths
                   and phase_id not in (i.get("used_by_phases") or [])]  # fmt: skip
        if not touched:
            return {}
        updated = [
            {**i, "used_by_phases": [*(i.get("used_by_phases") or []), phase_id]} if i in touched else i for i in items
        ]
        return {"persistent": {"artifacts": updated}}

    _update(layout, change, "artifacts used")
