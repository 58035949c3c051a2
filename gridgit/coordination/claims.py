"""Advisory claims on paths (mcp_agent_mail's "file reservations"), in `.grid/claims.json`.

A claim says "agent X is working on these files until T". It never blocks a write: it is
read by conflict detection (`conflicts check`, the pre-commit hook) and the agent tools'
before-edit hook. An exclusive claim another agent **holds** makes any write to a matching
path a conflict; a shared claim only tells who else is there (a conflict then needs a real
modification by that agent, see conflicts.py). Of two agents' overlapping exclusive claims the
first in the claims' total order holds, and the later one waits behind it (gridgit.coordination.
claimfile: the order, and the merge of two clones' files).

The file is shared: it is in the Blackboard's history and travels between clones like a take
(gridgit.history.publish confirms a new exclusive claim on the remote first). Releases and
expiries travel with it: a released claim stays as a tombstone until it expires.
"""

from __future__ import annotations

import os

from gridgit.coordination import claimfile
from gridgit.coordination.claimfile import Claim
from gridgit.errors import BadInput, PermissionDenied
from gridgit.events import bus
from gridgit.model.permissions import agent_type, check_agent_id
from gridgit.store import clock, fileio, journal, locks, usertext
from gridgit.store import config as config_mod
from gridgit.store.layout import Layout
from gridgit.store.record import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

# About two years: a claim is advice for a mission, and its expiry must stay a four-digit year.
MAX_TTL_MINUTES = 1e6


class ClaimResult(Record):
    """The claims granted (always: claims are advisory), other agents' claims that overlap them, and what a
    withdrawal puts back (BEFORE: claim id -> its version before, None for a claim made here).

    A granted exclusive claim that waits behind another agent's has `behind` set (`held` is False);
    KEPT_EXCLUSIVE names the patterns renewed without `--exclusive` that stay exclusive.
    """

    FIELDS = ("granted", "conflicts", "kept_exclusive", "before", "pushed", "provisional", "reason")
    __slots__ = FIELDS

    def __init__(
        self,
        granted: list[Claim] | None = None,
        conflicts: list[Claim] | None = None,
        kept_exclusive: list[str] | None = None,
        before: dict[str, Claim | None] | None = None,
    ) -> None:
        self.granted = granted if granted is not None else []
        self.conflicts = conflicts if conflicts is not None else []
        self.kept_exclusive = kept_exclusive if kept_exclusive is not None else []
        self.before = before if before is not None else {}
        self.pushed = False  # the claim is on the remote, first there (set by the API)
        self.provisional = False  # a remote exists and has not confirmed it: settled at the next sync
        self.reason = ""

    @property
    def waiting(self) -> list[Claim]:
        return [c for c in self.granted if c.exclusive and c.behind is not None]

    def to_dict(self) -> dict[str, Any]:
        return {"granted": [c.to_dict() for c in self.granted], "conflicts": [c.to_dict() for c in self.conflicts],
                "kept_exclusive": self.kept_exclusive, "pushed": self.pushed, "provisional": self.provisional,
                "reason": self.reason}  # fmt: skip


def normalise_pattern(layout: Layout, pattern: str) -> str:
    """PATTERN as a repo-relative posix glob; an absolute one must lie inside the repository."""
    import posixpath

    text = usertext.check_path(pattern or "", "claim pattern").strip().replace("\\", "/")
    if not text:
        raise BadInput(f"invalid claim pattern {pattern!r}")
    if text.startswith("/"):
        for root in (layout.root, layout.main_root):
            prefix = root.as_posix().rstrip("/") + "/"
            if (text.rstrip("/") + "/").startswith(prefix):
                text = text[len(prefix) :] or "."
                break
        else:
            raise BadInput(f"{pattern}: outside the repository {layout.root}")
    text = posixpath.normpath(text)
    if text == ".." or text.startswith("../"):
        raise BadInput(f"{pattern}: outside the repository {layout.root}")
    if text == ".":
        raise BadInput(f"{pattern}: claim paths or globs inside the repository (`**` for all of it)")
    if text == ".git" or text.startswith(".git/"):
        raise BadInput(f"{pattern}: inside .git")
    return text


def _load(path: Path) -> claimfile.ClaimFile:
    if not path.exists():
        return claimfile.ClaimFile()
    return claimfile.parse(fileio.read_text(path), str(path))


def _store(layout: Layout, found: claimfile.ClaimFile) -> None:
    journal.write(layout, layout.claims, found.render())


def in_force(layout: Layout) -> list[Claim]:
    """Every claim not expired nor released, in the claims' total order, each one's `behind` known."""
    now = clock.now_iso()
    return claimfile.waiting([c for c in _load(layout.claims).claims if c.live(now)])


def live_claims(layout: Layout, agent_id: str | None = None) -> list[Claim]:
    """Claims in force (of AGENT_ID), in their total order (`behind` set on one that waits)."""
    return [c for c in in_force(layout) if agent_id is None or c.agent == agent_id]


def claims_on(live: list[Claim], paths: set[str], exclude_agent: str | None = None) -> list[Claim]:
    """The claims of LIVE (live_claims, read once for a batch) of other agents that cover any of PATHS."""
    return [c for c in live if c.agent != exclude_agent and any(c.matches(p) for p in paths)]


def claim(
    layout: Layout,
    patterns: list[str],
    agent_id: str,
    ttl_minutes: float | None = None,
    exclusive: bool | None = None,
    reason: str = "",
    tell: bool = True,
) -> ClaimResult:
    """Claim PATTERNS for AGENT_ID; claiming a pattern again renews it. Expired claims are pruned.

    EXCLUSIVE None: a new claim is shared, a renewed one stays what it was (an exclusive claim
    renewed is never made shared but by EXCLUSIVE False, `--shared`). TELL False leaves the
    `claim_added` event to the caller (`announce`), which may still withdraw the claim.
    """
    layout.require()
    check_agent_id(agent_id)
    if not patterns:
        raise BadInput("claim at least one path or glob")
    reason = usertext.clean(reason or "", "reason", "a claim's reason", one_line=True)
    patterns = [usertext.check_size(p, "path", "a claimed path") for p in patterns]
    if ttl_minutes is None:
        ttl_minutes = float(config_mod.value(layout, "claims.ttl_minutes"))
    if not 0 < ttl_minutes <= MAX_TTL_MINUTES:  # also refuses nan
        raise BadInput(f"--ttl {ttl_minutes:g}: must be more than 0 and at most {MAX_TTL_MINUTES:g} minutes")
    wanted = list(dict.fromkeys(normalise_pattern(layout, p) for p in patterns))
    from gridgit.store.clone import clone_id

    clone = clone_id(layout)
    now = clock.now_seconds()
    now_iso, expires = clock.iso(now), clock.iso(now + ttl_minutes * 60)
    result = ClaimResult()
    with locks.locked(layout.claims):
        found = _load(layout.claims)
        found.claims = [c for c in found.claims if c.expires_at > now_iso]  # expired: pruned (tombstones too)
        for pattern in wanted:
            mine = next((c for c in found.claims if c.agent == agent_id and c.pattern == pattern and c.live(now_iso)),
                        None)  # fmt: skip
            if mine is None:
                mine = Claim(f"claim-{os.urandom(4).hex()}", agent_id, pattern, bool(exclusive), now_iso, expires,
                             reason, clone, found.next_seq())  # fmt: skip
                result.before[mine.id] = None
                found.claims.append(mine)
            else:
                result.before.setdefault(mine.id, mine.replace())
                if exclusive is None and mine.exclusive:
                    result.kept_exclusive.append(pattern)
                if mine.exclusive is False and exclusive:  # made exclusive now: it queues from now on
                    mine.seq = found.next_seq()
                mine.exclusive = mine.exclusive if exclusive is None else exclusive
                mine.expires_at, mine.reason = expires, reason or mine.reason
            result.granted.append(mine)
        standing = claimfile.waiting([c for c in found.claims if c.live(now_iso)])
        for pattern, mine in zip(wanted, result.granted, strict=True):
            for other in standing:
                clash = other.exclusive or mine.exclusive
                if other.agent != agent_id and clash and other.overlaps(pattern) and other not in result.conflicts:
                    result.conflicts.append(other)
        _store(layout, found)
    if tell:
        announce(layout, agent_id, result)
    return result


def announce(layout: Layout, agent_id: str, result: ClaimResult) -> None:
    """`claim_added` for the claims RESULT granted AGENT_ID (once they stand: a withdrawn claim never happened)."""
    granted = result.granted
    bus.notify(
        layout,
        "claim_added",
        {
            "agent": agent_id,
            "patterns": [c.pattern for c in granted],
            "exclusive": any(c.exclusive for c in granted),
            "expires_at": max((c.expires_at for c in granted), default=None),
            "reason": next((c.reason for c in granted if c.reason), ""),
            "clone": next((c.clone for c in granted), None),
            "waiting": [c.pattern for c in result.waiting],
            "conflicting_agents": sorted({c.agent for c in result.conflicts}),
        },
    )


def undo(layout: Layout, before: dict[str, Claim | None], made: list[Claim]) -> None:
    """Put the claims MADE (a claim's or a take's) back as BEFORE had them, each only while it is still as MADE
    left it: another clone's claim reached the remote first, and this one never happened there."""
    now = {c.id: c for c in made}
    with locks.locked(layout.claims):
        found = _load(layout.claims)
        kept = []
        for current in found.claims:
            if current.id in before and current == now.get(current.id):
                was = before[current.id]
                if was is not None:
                    kept.append(was)
                continue
            kept.append(current)
        if kept != found.claims:
            found.claims = kept
            _store(layout, found)


def release(
    layout: Layout, agent_id: str | None, patterns: list[str] | None = None, by: str | None = None, tell: bool = True
) -> list[Claim]:
    """Release AGENT_ID's claims on PATTERNS (all of them when None); returns the claims released.

    BY is who releases them when it is not their holder: Master Control only (or gridgit's own
    `system`, for a take that lost), and each holder hears of it (`claim_released` names the
    `holder`; its inbox says who released what). AGENT_ID None: every agent's claims on PATTERNS
    (Master Control's `gridgit release GLOB`). TELL False leaves the events to the caller
    (`announce_release`), which may still withdraw the release.
    """
    layout.require()
    actor = check_agent_id(by or agent_id or "")
    if agent_id is not None:
        check_agent_id(agent_id)
    if actor != agent_id and agent_type(actor) not in ("mc", "system"):
        raise PermissionDenied(f"only Master Control releases another agent's claims ({actor} is {agent_type(actor)})")
    if agent_id is None and not patterns:
        raise BadInput("name the paths or globs whose claims to release (or --holder ID for all of one agent's)")
    wanted = {normalise_pattern(layout, p) for p in patterns} if patterns else None
    now_iso = clock.now_iso()
    with locks.locked(layout.claims):
        found = _load(layout.claims)
        before = list(found.claims)
        found.claims = [c for c in found.claims if c.expires_at > now_iso]
        released = [c for c in found.claims if agent_id in (None, c.agent) and c.live(now_iso)
                    and (wanted is None or c.pattern in wanted)]  # fmt: skip
        for claim in released:
            claim.released_at, claim.released_by = now_iso, actor
        if released or found.claims != before:
            _store(layout, found)
    if tell:
        for holder in dict.fromkeys(c.agent for c in released):
            announce_release(layout, actor, holder, [c for c in released if c.agent == holder])
    return released


def announce_release(layout: Layout, actor: str, holder: str, released: list[Claim]) -> None:
    """`claim_released` for HOLDER's claims RELEASED by ACTOR (nothing when none was)."""
    if released:
        payload = {"agent": actor, "holder": holder, "patterns": [c.pattern for c in released]}
        bus.notify(layout, "claim_released", {**payload, "forced": actor != holder})
