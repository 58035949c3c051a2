"""One block taken in two clones: the rule that settles it, and telling both agents after a sync.

Each clone takes under its own lock, so two clones that have not synced can both take a
block. When their Blackboards merge (`gridgit sync`), the first take wins: the one whose
(taken_at, clone id) sorts first, the same answer in every clone and whichever side merges.
The other take is kept in the PLAN file's `contested` list, and each clone, when a merge
first brings that record into its files, emits `block_take_lost`: the loser's inbox tells it
the block is not its own, the winner's that someone else also took it. (After a merge, usage
that arrived is also summed into STATE's budget summary: `after_merge`.)
"""

from __future__ import annotations

import json
from pathlib import PurePosixPath
from typing import Any

from gridgit.errors import BadInput
from gridgit.events import bus
from gridgit.store.layout import PHASE_ID_RE, Layout
from gridgit.work.blockfile import PLAN_RE, STATUSES, Block

_RANK = {status: n for n, status in enumerate(STATUSES)}


def _first(take: dict[str, Any]) -> tuple[str, str, str]:
    return str(take.get("taken_at") or "~"), str(take.get("clone") or ""), str(take.get("owner") or "")


def _same_take(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return all(a.get(k) == b.get(k) for k in ("owner", "clone", "taken_at"))


def _canonical(values: list[dict[str, Any]]) -> dict[str, Any]:
    """One of VALUES chosen by content alone, so the merge does not depend on which side is ours."""
    return min(values, key=lambda v: json.dumps(v, sort_keys=True, default=str))


def settle(
    base: dict[str, Any], ours: dict[str, Any], theirs: dict[str, Any]
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The take of a block both sides changed (blockfile.TAKE_FIELDS), and the takes that lost to it.

    One take that moved on (started, completed) keeps its furthest state; a release and a
    take give the take; two different takes give the first, and the other is returned as lost.
    """
    if ours == theirs or theirs == base:
        return ours, []
    if ours == base:
        return theirs, []
    if _same_take(ours, theirs):
        furthest = max(_RANK.get(str(ours.get("status")), 0), _RANK.get(str(theirs.get("status")), 0))
        return _canonical([t for t in (ours, theirs) if _RANK.get(str(t.get("status")), 0) == furthest]), []
    takes = [t for t in (ours, theirs) if t.get("owner")]
    if len(takes) < 2:
        return takes[0] if takes else _canonical([ours, theirs]), []
    winner, loser = sorted(takes, key=_first)
    lost = {"agent": loser.get("owner"), "clone": loser.get("clone"), "taken_at": loser.get("taken_at"),
            "status": loser.get("status"), "lost_to": winner.get("owner")}  # fmt: skip
    return winner, [lost]


def contest_key(record: Any) -> tuple[str, str, str]:
    item = record if isinstance(record, dict) else {}
    return str(item.get("agent")), str(item.get("clone")), str(item.get("taken_at"))


def _block(path: str, data: bytes | None) -> Block | None:
    parts = PurePosixPath(path).parts
    if data is None or len(parts) != 3 or parts[0] != "phases" or not PHASE_ID_RE.match(parts[1]):
        return None
    if not PLAN_RE.match(parts[2]):
        return None
    try:
        return Block.parse(data.decode("utf-8"), path, parts[1], parts[2])
    except (BadInput, UnicodeDecodeError, TypeError):
        return None


def after_merge(layout: Layout, old: dict[str, bytes], new: dict[str, bytes]) -> None:
    """After a merge rewrote .grid/ from OLD to NEW ({path: bytes}): what the work files need told or recounted.

    A take that lost is announced; usage that arrived is summed into STATE's budget summary.
    """
    announce(layout, old, new)
    if old.get("budget.json") != new.get("budget.json") and "budget.json" in new:
        from gridgit.work import budget

        budget.sync_state(layout, "system")


def announce(layout: Layout, old: dict[str, bytes], new: dict[str, bytes]) -> None:
    """One `block_take_lost` per contested take that NEW holds and OLD did not."""
    for path, data in new.items():
        if old.get(path) == data:
            continue
        block = _block(path, data)
        if block is None or not block.contested:
            continue
        before = _block(path, old.get(path))
        known = {contest_key(c) for c in (before.contested if before else [])}
        for record in block.contested:
            if contest_key(record) in known:
                continue
            payload = {"block_id": block.block_id, "phase_id": block.phase_id, "name": block.name,
                       "winner": block.owner, "winner_clone": block.clone, "winner_taken_at": block.taken_at,
                       "loser": record.get("agent"), "loser_clone": record.get("clone"),
                       "loser_taken_at": record.get("taken_at"), "agent": "system"}  # fmt: skip
            bus.notify(layout, "block_take_lost", payload)
