"""Advisory claims on paths (mcp_agent_mail's "file reservations"), in `.grid/claims.json`.

A claim says "agent X is working on these files until T". It never blocks a write: it is
read by conflict detection (`conflicts check`, the pre-commit hook). An exclusive claim by
another agent makes any write to a matching path a conflict; a shared claim only tells who
else is there (a conflict then needs a real modification by that agent, see conflicts.py).
The file is machine-local (gitignored) and shared by every worktree, like the event log.
"""

from __future__ import annotations

import functools
import json
import os
import posixpath
import re
from pathlib import Path

from gridgit.errors import BadInput, PermissionDenied
from gridgit.events import bus
from gridgit.model.permissions import agent_type, check_agent_id
from gridgit.store import clock, fileio, locks, usertext
from gridgit.store import config as config_mod
from gridgit.store.layout import Layout
from gridgit.store.record import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# About two years: a claim is advice for a mission, and its expiry must stay a four-digit year.
MAX_TTL_MINUTES = 1e6

_GLOB_CHARS = re.compile(r"[*?\[]")


class Claim(Record):
    FIELDS = ("id", "agent", "pattern", "exclusive", "created_at", "expires_at", "reason")
    __slots__ = FIELDS

    def __init__(
        self, id: str, agent: str, pattern: str, exclusive: bool, created_at: str, expires_at: str, reason: str = ""
    ) -> None:
        self.id = id
        self.agent = agent
        self.pattern = pattern
        self.exclusive = exclusive
        self.created_at = created_at
        self.expires_at = expires_at
        self.reason = reason

    def to_dict(self) -> dict[str, Any]:
        return self.fields()

    def live(self, now_iso: str) -> bool:
        return self.expires_at > now_iso

    def matches(self, path: str) -> bool:
        return matches(self.pattern, path)


class ClaimResult(Record):
    """The claims granted (always: claims are advisory) and other agents' claims that overlap them."""

    FIELDS = ("granted", "conflicts")
    __slots__ = FIELDS

    def __init__(self, granted: list[Claim] | None = None, conflicts: list[Claim] | None = None) -> None:
        self.granted = granted if granted is not None else []
        self.conflicts = conflicts if conflicts is not None else []

    def to_dict(self) -> dict[str, Any]:
        return {"granted": [c.to_dict() for c in self.granted], "conflicts": [c.to_dict() for c in self.conflicts]}


@functools.lru_cache(maxsize=512)
def _glob_regex(pattern: str) -> re.Pattern[str]:
    """Git's `:(glob)` pathspec as a regex (wildmatch with WM_PATHNAME): `*`, `?` and `[...]` never match
    `/`, `**/` after a slash (or first) and a final `**` cross folders, `\\` makes the next character literal.
    Kept for the last patterns asked: the queue's collision check compares every pair (benchmarks/queue.py)."""
    out, i = [], 0
    while i < len(pattern):
        char = pattern[i]
        if pattern.startswith("**", i) and i + 2 == len(pattern):
            out.append(".*")  # a final `**` matches everything from there, folders too
            break
        if pattern.startswith("**/", i) and (i == 0 or pattern[i - 1] == "/"):
            out.append("(?:.*/)?")  # `**/` matches any number of folders, none too
            i += 3
            continue
        if char == "\\" and i + 1 < len(pattern):
            out.append(re.escape(pattern[i + 1]))
            i += 2
            continue
        if char == "*":
            while pattern.startswith("*", i + 1):  # `**` not between slashes is one `*`
                i += 1
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[":
            close = pattern.find("]", i + 2 if pattern[i + 1 : i + 2] in ("!", "^", "]") else i + 1)
            if close < 0:
                out.append(re.escape(char))
            else:
                body = pattern[i + 1 : close].replace("\\", "\\\\")
                negated = body[:1] in ("!", "^")
                out.append("(?!/)[" + ("^" + body[1:] if negated else body) + "]")
                i = close
        else:
            out.append(re.escape(char))
        i += 1
    return re.compile("".join(out) + r"\Z")


def matches(pattern: str, path: str) -> bool:
    """PATH (repo-relative) falls under PATTERN as git's `:(glob)` pathspec has it: the pattern as a literal
    path (the path itself or a directory above it), else as a glob (proven against `git ls-files` in tests)."""
    literal = pattern.rstrip("/")
    if path == literal or path.startswith(literal + "/"):
        return True
    return bool(_GLOB_CHARS.search(pattern)) and bool(_glob_regex(pattern).match(path))


def _literal_prefix(pattern: str) -> str:
    found = _GLOB_CHARS.search(pattern)
    return pattern[: found.start()] if found else pattern


def overlaps(a: str, b: str) -> bool:
    """Whether two patterns may name a common path; erring towards yes, as advice should."""
    if a == b or matches(a, b) or matches(b, a):
        return True
    if _GLOB_CHARS.search(a) and _GLOB_CHARS.search(b):
        pa, pb = _literal_prefix(a), _literal_prefix(b)
        return pa.startswith(pb) or pb.startswith(pa)
    return False


def normalise_pattern(layout: Layout, pattern: str) -> str:
    """PATTERN as a repo-relative posix glob; an absolute one must lie inside the repository."""
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


def _load(path: Path) -> list[Claim]:
    if not path.exists():
        return []
    text = fileio.read_text(path)
    try:
        data = json.loads(text) if text.strip() else {}
        return [Claim(**item) for item in data.get("claims", [])]
    except (json.JSONDecodeError, TypeError, AttributeError) as exc:
        raise BadInput(f"{path}: not a claims file ({exc}); delete it to drop every claim") from None


def _store(path: Path, claims: list[Claim]) -> None:
    data = {"version": 1, "claims": [c.to_dict() for c in claims]}
    fileio.atomic_write(path, json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def live_claims(layout: Layout, agent_id: str | None = None) -> list[Claim]:
    """Claims that have not expired (of AGENT_ID), oldest first."""
    now = clock.now_iso()
    return [c for c in _load(layout.claims) if c.live(now) and (agent_id is None or c.agent == agent_id)]


def claims_on(live: list[Claim], paths: set[str], exclude_agent: str | None = None) -> list[Claim]:
    """The claims of LIVE (live_claims, read once for a batch) of other agents that cover any of PATHS."""
    return [c for c in live if c.agent != exclude_agent and any(c.matches(p) for p in paths)]


def claim(
    layout: Layout,
    patterns: list[str],
    agent_id: str,
    ttl_minutes: float | None = None,
    exclusive: bool = False,
    reason: str = "",
) -> ClaimResult:
    """Claim PATTERNS for AGENT_ID; claiming a pattern again renews it. Expired claims are pruned."""
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
    now = clock.now_seconds()
    now_iso, expires = clock.iso(now), clock.iso(now + ttl_minutes * 60)
    result = ClaimResult()
    with locks.locked(layout.claims):
        kept = [c for c in _load(layout.claims) if c.live(now_iso)]
        for pattern in wanted:
            mine = next((c for c in kept if c.agent == agent_id and c.pattern == pattern), None)
            if mine is None:
                mine = Claim(f"claim-{os.urandom(4).hex()}", agent_id, pattern, exclusive, now_iso, expires, reason)
                kept.append(mine)
            else:
                mine.exclusive, mine.expires_at, mine.reason = exclusive, expires, reason or mine.reason
            result.granted.append(mine)
            for other in kept:
                clash = other.exclusive or exclusive
                if (
                    other.agent != agent_id
                    and clash
                    and overlaps(other.pattern, pattern)
                    and other not in result.conflicts
                ):
                    result.conflicts.append(other)
        _store(layout.claims, kept)
    bus.notify(
        layout,
        "claim_added",
        {
            "agent": agent_id,
            "patterns": wanted,
            "exclusive": exclusive,
            "expires_at": expires,
            "reason": reason,
            "conflicting_agents": sorted({c.agent for c in result.conflicts}),
        },
    )
    return result


def release(layout: Layout, agent_id: str, patterns: list[str] | None = None, by: str | None = None) -> list[Claim]:
    """Drop AGENT_ID's claims on PATTERNS (all of them when None); returns the claims released.

    BY is who releases them when it is not their holder: Master Control only, and the holder
    hears of it (`claim_released` names the `holder`; its inbox says who released what).
    """
    layout.require()
    check_agent_id(agent_id)
    actor = check_agent_id(by) if by else agent_id
    if actor != agent_id and agent_type(actor) not in ("mc", "system"):
        raise PermissionDenied(f"only Master Control releases another agent's claims ({actor} is {agent_type(actor)})")
    wanted = {normalise_pattern(layout, p) for p in patterns} if patterns else None
    now_iso = clock.now_iso()
    with locks.locked(layout.claims):
        current = _load(layout.claims)
        released = [c for c in current if c.agent == agent_id and (wanted is None or c.pattern in wanted)]
        kept = [c for c in current if c not in released and c.live(now_iso)]
        if kept != current:
            _store(layout.claims, kept)
    live = [c for c in released if c.live(now_iso)]
    if live:
        payload = {"agent": actor, "holder": agent_id, "patterns": [c.pattern for c in live]}
        bus.notify(layout, "claim_released", {**payload, "forced": actor != agent_id})
    return live
