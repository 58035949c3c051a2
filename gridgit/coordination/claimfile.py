"""`.grid/claims.json` as text: its claims, their total order, and two clones' versions merged (pure functions).

```json
{"version": 2, "seq": 7, "claims": [{"id": "claim-1a2b3c4d", "agent": "executor-001", "pattern": "src/api/**",
  "exclusive": true, "created_at": "...", "expires_at": "...", "reason": "block 01-02", "clone": "c-3f9a0b1c2d4e",
  "seq": 7, "released_at": null, "released_by": null}]}
```

The file is part of the Blackboard's history: it travels between clones like a take. **The total
order** of claims is `seq`, a counter every new claim takes one past the highest its clone knows
(the file's `seq`), then (created_at, clone, id) for two claims of one `seq`. A claim is made once its
clone holds everything the remote had (gridgit.history.publish), so it sorts after every claim the
remote held; a claim made offline (provisional) is moved after everything the remote holds when its
clone next merges the remote (`sequence_after`): the remote's claims come first whatever the clocks
said, as a take the remote holds wins. A clock that is off only orders two claims that meet with
neither on the remote first, and `seq` decides those before any time does.

**Who holds a path exclusively**: the first exclusive claim in that order that covers it, of those in
force (not expired, not released); a later exclusive claim of another agent that overlaps it **waits
behind it** (`waiting`), and holds once the ones before it are released or expired. Claims of one
agent never wait behind each other; a shared claim holds nothing and waits for nothing.

A release leaves the claim as a tombstone (`released_at`, `released_by`) until it expires, so a merge
with a clone that still has it in force releases it there too; a claim past its expiry is pruned.
"""

from __future__ import annotations

import json
import posixpath
import re

from gridgit.coordination.globs import matches, overlaps
from gridgit.errors import BadInput
from gridgit.store.record import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

VERSION = 2
_ID_RE = re.compile(r"claim-[0-9a-f]{8,32}")
_CLONE_RE = re.compile(r"c-[0-9a-f]{12}")
_TIME_RE = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ")


class Claim(Record):
    """One claim as the file holds it; BEHIND (not stored) is the claim it waits behind, once `waiting` ran."""

    FIELDS = ("id", "agent", "pattern", "exclusive", "created_at", "expires_at", "reason", "clone", "seq",
              "released_at", "released_by")  # fmt: skip
    __slots__ = (*FIELDS, "behind")

    def __init__(
        self,
        id: str,
        agent: str,
        pattern: str,
        exclusive: bool,
        created_at: str,
        expires_at: str,
        reason: str = "",
        clone: str | None = None,
        seq: int = 0,
        released_at: str | None = None,
        released_by: str | None = None,
    ) -> None:
        self.id = id
        self.agent = agent
        self.pattern = pattern
        self.exclusive = exclusive
        self.created_at = created_at
        self.expires_at = expires_at
        self.reason = reason
        self.clone = clone
        self.seq = seq
        self.released_at = released_at
        self.released_by = released_by
        self.behind: Claim | None = None

    def replace(self, **changes: Any) -> Claim:
        copy = super().replace(**changes)
        copy.behind = None
        return copy

    def live(self, now_iso: str) -> bool:
        """In force at NOW_ISO: not expired, not released."""
        return self.expires_at > now_iso and not self.released_at

    def matches(self, path: str) -> bool:
        return matches(self.pattern, path)

    def overlaps(self, pattern: str) -> bool:
        return overlaps(self.pattern, pattern)

    @property
    def held(self) -> bool:
        """An exclusive claim that waits behind no other (meaningful after `waiting`)."""
        return self.exclusive and self.behind is None

    def order(self) -> tuple[int, str, str, str]:
        return self.seq, self.created_at, self.clone or "", self.id

    def to_dict(self) -> dict[str, Any]:
        data = self.fields()
        data["held"] = self.held
        behind = self.behind
        data["waits_behind"] = None if behind is None else {"id": behind.id, "agent": behind.agent,
                                                             "pattern": behind.pattern, "clone": behind.clone}  # fmt: skip
        return data


class ClaimFile(Record):
    """The file: its claims (in file order) and SEQ, the highest `seq` any claim of it was given."""

    FIELDS = ("claims", "seq")
    __slots__ = FIELDS

    def __init__(self, claims: list[Claim] | None = None, seq: int = 0) -> None:
        self.claims = claims if claims is not None else []
        self.seq = seq

    def next_seq(self) -> int:
        self.seq = max(self.seq, *(c.seq for c in self.claims), 0) + 1
        return self.seq

    def render(self) -> str:
        data = {"version": VERSION, "seq": self.seq, "claims": [c.fields() for c in self.claims]}
        return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def parse(text: str, source: str) -> ClaimFile:
    """The claims of TEXT (a version 1 file's claims have `seq` 0 and no clone); BadInput naming SOURCE."""
    try:
        data = json.loads(text) if text.strip() else {}
        if not isinstance(data, dict):
            raise TypeError("not a JSON object")
        items = data.get("claims") or []
        found = ClaimFile([Claim(**item) for item in items], int(data.get("seq") or 0))
    except (ValueError, TypeError, AttributeError) as exc:
        raise BadInput(
            f"{source}: not a claims file ({exc}); `gridgit restore claims.json` brings back the last good one"
        ) from None
    return found


def is_time(value: Any) -> bool:
    """VALUE is a UTC time as gridgit writes one (`2026-01-24T14:30:00Z`)."""
    return isinstance(value, str) and _TIME_RE.fullmatch(value) is not None


def is_clone_id(value: Any) -> bool:
    return isinstance(value, str) and _CLONE_RE.fullmatch(value) is not None


def relative_problem(value: Any, label: str) -> str | None:
    """Why VALUE is not a repository-relative path or glob as gridgit stores one (None: it is): one line of
    text (store.usertext.check_path), normalised, neither the repository itself, outside it, nor in `.git`.
    What a peer's claim or edit names passes the check a local one does (claims.normalise_pattern)."""
    from gridgit.store.usertext import check_path

    try:
        check_path(value, label)
    except BadInput as exc:
        return str(exc)
    if value.startswith("/") or "\\" in value:
        return f"{label} {value[:100]!r} is not a repository-relative posix path"
    if posixpath.normpath(value) != value or value in (".", "..") or value.startswith("../"):
        return f"{label} {value[:100]!r} leaves the repository or is not normalised"
    if value == ".git" or value.startswith(".git/"):
        return f"{label} {value[:100]!r} is inside .git"
    return None


def problems(item: Any) -> list[str]:
    """Why one claim of a file (a JSON value) is not one gridgit would have written: [] when it is.

    The checks of a local claim: its pattern one line of text, repository-relative, normalised,
    neither the repository itself nor inside `.git` (what claims.normalise_pattern makes of a claim
    given); a valid agent, clone and times. A peer's claim that fails is left out of the merge.
    """
    from gridgit.model.permissions import check_agent_token
    from gridgit.store.usertext import check_size

    if not isinstance(item, dict):
        return ["a claim must be a JSON object"]
    unknown = sorted(set(item) - set(Claim.FIELDS))
    found = [f"unknown field {unknown[0]!r}"] if unknown else []
    missing = [k for k in ("id", "agent", "pattern", "exclusive", "created_at", "expires_at") if k not in item]
    found += [f"missing field {k!r}" for k in missing]
    if found:
        return found
    try:
        check_agent_token(item["agent"])
        if item.get("released_by") is not None:
            check_agent_token(item["released_by"])
        check_size(str(item.get("reason") or ""), "reason", "a claim's reason")
    except BadInput as exc:
        return [str(exc)]
    if why := relative_problem(item["pattern"], "claim pattern"):
        found.append(why)
    if not isinstance(item["id"], str) or not _ID_RE.fullmatch(item["id"]):
        found.append(f"claim id {item['id']!r} is not claim-<hex>")
    if not isinstance(item["exclusive"], bool):
        found.append("`exclusive` must be true or false")
    for key in ("created_at", "expires_at", "released_at"):
        value = item.get(key)
        if (value is not None or key != "released_at") and not is_time(value):
            found.append(f"`{key}` must be a UTC time such as 2026-01-24T14:30:00Z")
    clone, seq = item.get("clone"), item.get("seq", 0)
    if clone is not None and not is_clone_id(clone):
        found.append(f"clone {str(clone)[:40]!r} is not c-<12 hex digits>")
    if not isinstance(seq, int) or isinstance(seq, bool) or not 0 <= seq < 2**53:
        found.append("`seq` must be a whole number from 0")
    return found


def file_problems(text: str) -> list[str]:
    """Every problem of a claims file's TEXT: its shape, then each claim's (`problems`)."""
    try:
        data = json.loads(text) if text.strip() else {}
    except ValueError as exc:
        return [f"not JSON ({exc})"]
    if not isinstance(data, dict) or not isinstance(data.get("claims", []), list):
        return ["not a claims file: a JSON object whose `claims` is a list"]
    seq = data.get("seq", 0)
    found = [] if isinstance(seq, int) and not isinstance(seq, bool) and seq >= 0 else ["`seq` must be a whole number"]
    return found + [
        f"claim {n + 1}: {why}" for n, item in enumerate(data.get("claims") or []) for why in problems(item)
    ]


def keep_valid(text: str) -> tuple[str, list[str]]:
    """TEXT (a peer's claims file) without the claims that fail `problems`, and why each was left out."""
    data = json.loads(text)
    kept, reasons = [], []
    for item in data.get("claims") or []:
        why = problems(item)
        if why:
            shown = str(item.get("id") if isinstance(item, dict) else "?")[:40]
            reasons.append(f"claim {shown}: {why[0]}; this claim is left out")
        else:
            kept.append(item)
    if not reasons:
        return text, []
    return json.dumps({**data, "claims": kept}, indent=2, ensure_ascii=False) + "\n", reasons


# ---- the order, and who waits behind whom -------------------------------------------------------


def waiting(in_force: list[Claim]) -> list[Claim]:
    """IN_FORCE (claims not expired nor released) in their total order, each exclusive one's `behind` set:
    the first earlier exclusive claim of another agent that overlaps it (one that holds, when there is one)."""
    ordered = sorted(in_force, key=Claim.order)
    exclusive: list[Claim] = []
    for claim in ordered:
        claim.behind = None
        if not claim.exclusive:
            continue
        before = [e for e in exclusive if e.agent != claim.agent and overlaps(e.pattern, claim.pattern)]
        claim.behind = next((e for e in before if e.behind is None), before[0] if before else None)
        exclusive.append(claim)
    return ordered


# ---- two clones' versions ----------------------------------------------------------------------


def _settle(a: Claim, b: Claim) -> Claim:
    """One claim both sides changed: released on either side is released (the earlier release); else the later
    expiry (a renewal); the later `seq` of the two (a claim moved after the remote's stays after it)."""
    released = [c for c in (a, b) if c.released_at]
    if released:
        chosen = min(released, key=lambda c: (c.released_at, json.dumps(c.fields(), sort_keys=True)))
    else:
        chosen = max((a, b), key=lambda c: (c.expires_at, json.dumps(c.fields(), sort_keys=True)))
    return chosen.replace(seq=max(a.seq, b.seq))


def merge(base: str, ours: str, theirs: str, source: str) -> str:
    """Three-way, by claim id: a claim one side changed takes that side's version, one both changed is settled
    (`_settle`), one a side pruned (expired) and the other left alone goes; the order is the total order."""
    b, o, t = (parse(text, source) for text in (base, ours, theirs))
    old, mine, other = ({c.id: c for c in f.claims} for f in (b, o, t))
    merged = []
    for claim_id in dict.fromkeys([*mine, *other]):
        was, x, y = old.get(claim_id), mine.get(claim_id), other.get(claim_id)
        if x == y or y == was:
            chosen = x
        elif x == was:
            chosen = y
        elif x is None or y is None:
            chosen = x or y  # pruned on one side, changed on the other: the change (expired anyway, or released)
        else:
            chosen = _settle(x, y)
        if chosen is not None:
            merged.append(chosen)
    merged.sort(key=Claim.order)
    return ClaimFile(merged, max(o.seq, t.seq)).render()


def sequence_after(merged: str, base: str, theirs: str, source: str) -> str | None:
    """MERGED with every claim the remote (THEIRS) never saw in its place (in neither THEIRS nor BASE, or given a
    later `seq` here since, a shared claim made exclusive) moved after all of the remote's, in their order: a
    claim the remote holds is first whatever the clocks said. None when nothing moves."""
    m, b, t = (parse(text, source) for text in (merged, base, theirs))
    seen = {**{c.id: c.seq for c in b.claims}, **{c.id: c.seq for c in t.claims}}
    after = max(t.seq, *(c.seq for c in t.claims), 0)
    moved = False
    # Unseen: a claim the remote never held, or one this clone put in a later place (made exclusive) since.
    unseen = [c for c in m.claims if c.id not in seen or c.seq > seen[c.id]]
    for claim in sorted(unseen, key=Claim.order):
        if claim.seq <= after:
            claim.seq, moved = after + 1, True
        after = claim.seq
    if not moved:
        return None
    m.seq = max(m.seq, after)
    m.claims.sort(key=Claim.order)
    return m.render()
