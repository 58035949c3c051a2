"""What a merge brought from other clones that this clone's agents must hear of: claims and edits.

The event log is machine-local: another clone's claims and edits reach this clone as files
(`claims.json`, `clones/<clone id>.json`), with no event. After a merge rewrote `.grid/` from OLD to
NEW ({path inside .grid/: bytes}), `after_merge` puts on this clone's bus what its agents' inboxes
read:

- another clone's new claim: `claim_added` (with its `clone`), so an agent whose files it covers hears of it;
- a claim of this clone's that held a path exclusively and now waits behind another clone's, which
  reached the remote first: `claim_lost`, so its holder hears that the other agent holds the files;
- a claim of this clone's that another clone released (Master Control's hand): `claim_released`;
- another clone's edit of a file an agent of this clone edited within the conflict window of it: the
  write conflict, here too (`write_conflict` for the local agent, CHECKPOINT.md; the scratchpad's
  warning once, by the clone that recorded the conflict first), so each agent is told on its own machine.
"""

from __future__ import annotations

from gridgit.coordination import claimfile, conflicts
from gridgit.coordination.presence import FOLDER, as_event
from gridgit.coordination.recent import RecentChanges
from gridgit.errors import BadInput, GridError
from gridgit.events import bus, scan
from gridgit.store import clock, notices
from gridgit.store.clone import clone_id
from gridgit.store.layout import Layout

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from gridgit.coordination.claimfile import Claim

CLAIMS = "claims.json"


def after_merge(layout: Layout, old: dict[str, bytes], new: dict[str, bytes]) -> bool:
    """Tell this clone's agents what the merge from OLD to NEW brought (see the module docstring); True when a
    conflict was recorded (CHECKPOINT.md changed)."""
    mine = clone_id(layout)
    try:
        if old.get(CLAIMS) != new.get(CLAIMS) and CLAIMS in new:
            _claims_arrived(layout, mine, old.get(CLAIMS, b""), new[CLAIMS])
        arrived = _edits_arrived(mine, old, new)
        return bool(arrived) and _conflicts_arrived(layout, arrived, old.get("CHECKPOINT.md"))
    except (GridError, OSError, ValueError) as exc:  # the merge is written: what it tells waits for the next one
        notices.warn("gridgit.coordination.crossing", f"gridgit: warning: what the sync brought not told ({exc})")
        return False


def _in_force(data: bytes) -> list[Claim]:
    now = clock.now_iso()
    try:
        found = claimfile.parse(data.decode("utf-8"), CLAIMS)
    except (BadInput, UnicodeDecodeError):
        return []
    return claimfile.waiting([c for c in found.claims if c.live(now)])


def _released(data: bytes) -> dict[str, Claim]:
    try:
        return {c.id: c for c in claimfile.parse(data.decode("utf-8"), CLAIMS).claims if c.released_at}
    except (BadInput, UnicodeDecodeError):
        return {}


def _claims_arrived(layout: Layout, mine: str, old: bytes, new: bytes) -> None:
    before = {c.id: c for c in _in_force(old)}
    after = _in_force(new)
    known = {c.id for c in claimfile.parse(old.decode("utf-8"), CLAIMS).claims} if old else set()
    for claim in after:
        if claim.id not in known and claim.clone != mine:
            payload = {"agent": claim.agent, "patterns": [claim.pattern], "exclusive": claim.exclusive,
                       "expires_at": claim.expires_at, "reason": claim.reason, "clone": claim.clone,
                       "waiting": [claim.pattern] if claim.behind else [], "conflicting_agents": []}  # fmt: skip
            bus.notify(layout, "claim_added", payload)
        was = before.get(claim.id)
        if claim.clone == mine and claim.behind is not None and was is not None and was.held:
            winner = claim.behind
            payload = {"agent": "system", "holder": claim.agent, "pattern": claim.pattern, "claim_id": claim.id,
                       "winner": winner.agent, "winner_pattern": winner.pattern, "winner_clone": winner.clone}  # fmt: skip
            bus.notify(layout, "claim_lost", payload)
    gone = _released(old)
    for claim in _released(new).values():
        if claim.id not in gone and claim.clone == mine and claim.id in before and claim.released_by != claim.agent:
            payload = {"agent": claim.released_by, "holder": claim.agent, "patterns": [claim.pattern], "forced": True}
            bus.notify(layout, "claim_released", payload)


def _edits(files: dict[str, bytes], mine: str) -> dict[str, dict[str, Any]]:
    """Event id -> event of every other clone's edits FILES (a tree of .grid/) tells."""
    import json

    found: dict[str, dict[str, Any]] = {}
    for path, data in files.items():
        parts = path.split("/")
        if len(parts) != 2 or parts[0] != FOLDER or parts[1] == f"{mine}.json":
            continue
        try:
            record = json.loads(data)
        except ValueError:
            continue
        for item in record.get("files") or [] if isinstance(record, dict) else []:
            if isinstance(item, dict) and isinstance(item.get("id"), str):
                found[item["id"]] = as_event(item, str(record.get("clone")))
    return found


def _edits_arrived(mine: str, old: dict[str, bytes], new: dict[str, bytes]) -> list[dict[str, Any]]:
    if all(old.get(p) == d for p, d in new.items() if p.startswith(FOLDER + "/")):
        return []
    known = _edits(old, mine)
    return [e for event_id, e in _edits(new, mine).items() if event_id not in known]


def _conflicts_arrived(layout: Layout, arrived: list[dict[str, Any]], checkpoint: bytes | None) -> bool:
    """Each local agent's edit within the conflict window of an edit ARRIVED from another clone: a conflict here."""
    window = conflicts.window_of(layout, None)
    times = {e["id"]: _seconds(e["timestamp"]) for e in arrived}
    since = min(times.values()) - window * 60
    local = list(scan.read_backwards(layout, since=since, types=("file_modified",)))
    recent = RecentChanges([*local, *sorted(arrived, key=lambda e: str(e["timestamp"]), reverse=True)])
    pairs: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for event in arrived:
        payload = event["payload"]
        names = recent.names(str(payload.get("path")))
        for other in local:
            theirs, ours = payload.get("agent"), other["payload"].get("agent")
            if other["payload"].get("path") not in names or ours in (theirs, "unknown", "system", None):
                continue
            if abs(_seconds(other["timestamp"]) - times[event["id"]]) <= window * 60:
                item = {"conflicting_agent": theirs, "operation": payload.get("operation", "modified"),
                        "timestamp": event["timestamp"], "path": payload.get("path"), "event_id": event["id"],
                        "source": "file_modified", "clone": payload.get("clone")}  # fmt: skip
                found = pairs.setdefault((str(other["payload"]["path"]), str(ours)), [])
                if item not in found:
                    found.append(item)
    listed = _listed(checkpoint)
    for (path, agent), items in sorted(pairs.items()):
        result = conflicts.ConflictResult(path, agent, window, items, paths=sorted(recent.names(path)))
        conflicts.handle_conflict(layout, result, known=listed.get(path, set()))
    return bool(pairs)


def _listed(checkpoint: bytes | None) -> dict[str, set[str]]:
    """Path -> the agents the CHECKPOINT.md before the merge listed in its open conflict (told here already)."""
    if not checkpoint:
        return {}
    from gridgit.store import frontmatter

    try:
        meta, _ = frontmatter.parse(checkpoint.decode("utf-8"), "CHECKPOINT.md")
    except (BadInput, UnicodeDecodeError):
        return {}
    return {str(c.get("path")): set(c.get("agents") or []) for c in meta.get("conflicts") or [] if isinstance(c, dict)}


def _seconds(text: Any) -> float:
    try:
        return clock.parse(str(text)).timestamp()
    except ValueError:
        return 0.0
