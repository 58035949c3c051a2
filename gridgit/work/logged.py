"""What a grid commit did to the work files, for `gridgit log`: blocks planned (or proposed), approved, replanned,
taken, started, completed and released, usage added, debug sessions opened and closed (pure: two versions of a
file in)."""

from __future__ import annotations

import json
from pathlib import PurePosixPath
from typing import Any

from gridgit.errors import BadInput
from gridgit.store import frontmatter
from gridgit.work.blockfile import PLAN_RE, Block

# (kind, agent, what, phase): the fields of gridgit.history.log.Change
Found = tuple[str, str, str, str]
_VERBS = {"taken": "took", "in_progress": "started", "complete": "completed", "planned": "released"}
_PLANNED = ("name", "wave", "priority", "labels", "depends_on", "files")  # what planning a block again may edit


def _plan(path: str, data: bytes) -> Block | None:
    parts = PurePosixPath(path).parts
    try:
        return Block.parse(data.decode("utf-8"), path, parts[1], parts[2]) if data else None
    except (BadInput, UnicodeDecodeError, TypeError):
        return None


def _block_changes(path: str, before: bytes, after: bytes) -> list[Found]:
    old, new = _plan(path, before), _plan(path, after)
    if new is None:
        return []
    what = f"block {new.block_id}" + (f": {new.name}" if new.name else "")
    if old is None:
        found = [("proposed" if new.proposed else "planned", str(new.planned_by or ""), what, new.phase_id)]
        if new.status in ("planned", "proposed"):
            return found
        return [*found, (_VERBS[new.status], str(new.owner), what, new.phase_id)]
    if old.proposed and not new.proposed:
        return [("approved", str(new.approved_by or ""), what, new.phase_id)]
    if (old.status, old.owner) == (new.status, new.owner):
        edited = old.body != new.body or any(getattr(old, f) != getattr(new, f) for f in _PLANNED)
        return [("replanned", str(new.planned_by or ""), what, new.phase_id)] if edited else []
    who = new.owner if new.owner else old.owner
    return [(_VERBS[new.status], str(who or ""), what, new.phase_id)]


def _json(data: bytes) -> dict[str, Any]:
    try:
        value = json.loads(data) if data else {}
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _usage_changes(before: bytes, after: bytes) -> list[Found]:
    old, new = _json(before).get("usage") or {}, _json(after).get("usage") or {}
    found = []
    for key, bucket in sorted(new.items()) if isinstance(new, dict) else []:
        was = old.get(key) or {} if isinstance(old, dict) else {}
        if not isinstance(bucket, dict) or not isinstance(was, dict):
            continue
        cost = float(bucket.get("cost_usd", 0)) - float(was.get("cost_usd", 0))
        tokens = sum(int(bucket.get(k, 0)) - int(was.get(k, 0)) for k in ("tokens_in", "tokens_out"))
        if tokens or cost:
            what = f"${cost:,.4f}, {tokens:,} tokens ({bucket.get('model')})"
            found.append(("usage", str(bucket.get("agent", "")), what, str(bucket.get("phase", ""))))
    return found


def _debug_changes(path: str, before: bytes, after: bytes) -> list[Found]:
    def meta(data: bytes) -> dict[str, Any]:
        try:
            return frontmatter.parse(data.decode("utf-8"), path)[0] if data else {}
        except (BadInput, UnicodeDecodeError):
            return {}

    old, new = meta(before), meta(after)
    if not new:
        return []
    phase = str(new.get("phase_id") or "")
    found: list[Found] = [] if old else [("debug opened", str(new.get("agent", "")), str(new.get("title", "")), phase)]
    if new.get("status") == "closed" and old.get("status") != "closed":
        what = f"{new.get('title')}: {new.get('root_cause')}"
        found.append(("debug closed", str(new.get("closed_by", "")), what, phase))
    return found


def changes(path: str, before: bytes, after: bytes) -> list[Found] | None:
    """What the commit did to PATH (inside .grid/) from BEFORE to AFTER; None when PATH is no work file."""
    parts = PurePosixPath(path).parts
    if len(parts) == 3 and parts[0] == "phases" and PLAN_RE.match(parts[2]):
        return _block_changes(path, before, after)
    if parts == ("budget.json",):
        return _usage_changes(before, after)
    if len(parts) == 3 and parts[0] == "debug" and parts[2] == "investigation.md":
        return _debug_changes(path, before, after)
    return None
