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


def _take_of(data: bytes | None) -> dict[str, Any] | None:
    """The take fields of a PLAN file's bytes (None when there is no such file or it does not parse)."""
    from gridgit.store import frontmatter
    from gridgit.work.blockfile import TAKE_FIELDS

    if data is None:
        return None
    try:
        meta, _ = frontmatter.parse(data.decode("utf-8"), "PLAN")
    except (BadInput, UnicodeDecodeError):
        return None
    return {k: meta.get(k) for k in TAKE_FIELDS}


def published_first(
    base: dict[str, bytes], ours: dict[str, bytes], theirs: dict[str, bytes], merged: dict[str, bytes]
) -> None:
    """MERGED's PLAN files where THEIRS is the remote's grid ref: a take the remote holds beats one it does not.

    The total order of takes is the order in which they reached the remote (docs/sync.md): a take
    on the remote may have been confirmed to its agent already (`gridgit take` exits 0 only then),
    so a take of this clone's that the remote has not seen (a provisional one, made offline) loses
    to it whatever their times say, and is kept in `contested`.
    """
    from gridgit.store import frontmatter

    for path, data in merged.items():
        if _block(path, data) is None or ours.get(path) == theirs.get(path):
            continue
        was, mine, remote = _take_of(base.get(path)), _take_of(ours.get(path)), _take_of(theirs.get(path))
        if mine is None or remote is None or not mine.get("owner") or not remote.get("owner"):
            continue
        if (was is not None and (mine == was or remote == was)) or _same_take(mine, remote):
            continue  # one side left the take alone, or both hold one take: the merge's own rule stands
        meta, body = frontmatter.parse(data.decode("utf-8"), path)
        if _same_take(meta, remote):
            continue
        lost = {"agent": mine.get("owner"), "clone": mine.get("clone"), "taken_at": mine.get("taken_at"),
                "status": mine.get("status"), "lost_to": remote.get("owner")}  # fmt: skip
        kept = [c for c in meta.get("contested") or [] if contest_key(c) != contest_key({"agent": remote.get("owner"),
                "clone": remote.get("clone"), "taken_at": remote.get("taken_at")})]  # fmt: skip
        meta.update(remote)
        meta["contested"] = sorted([*kept, lost], key=contest_key)
        merged[path] = frontmatter.render(meta, body).encode("utf-8")


def after_merge(layout: Layout, old: dict[str, bytes], new: dict[str, bytes]) -> bool:
    """After a merge rewrote .grid/ from OLD to NEW ({path: bytes}): what the work files need told or recounted.

    A take that lost is announced, and its claims released when it was made in this clone (True: the
    files changed); usage that arrived is summed into STATE's budget summary.
    """
    released = announce(layout, old, new)
    if old.get("budget.json") != new.get("budget.json") and "budget.json" in new:
        from gridgit.work import budget

        budget.sync_state(layout, "system")
    return released


def announce(layout: Layout, old: dict[str, bytes], new: dict[str, bytes]) -> bool:
    """One `block_take_lost` per contested take that NEW holds and OLD did not; a lost take of this clone's gives
    up its claims on the block's files (the loser's inbox says so). True when a claim was released."""
    from gridgit.store.clone import clone_id

    mine, released = clone_id(layout), False
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
            if record.get("clone") == mine and block.files and record.get("agent"):
                released = bool(_let_go(layout, str(record["agent"]), block)) or released
    return released


def _let_go(layout: Layout, loser: str, block: Block) -> list[Any]:
    """LOSER's claims on BLOCK's files, taken with a take that lost: released (gridgit's own doing)."""
    from gridgit.coordination import claims
    from gridgit.errors import GridError

    try:
        return claims.release(layout, loser, block.files, by="system", tell=False)
    except GridError as exc:  # the take is settled; a claim left expires with its time
        import logging

        logging.getLogger("gridgit.work").warning("gridgit: warning: claims of %s's lost take kept (%s)", loser, exc)
        return []
