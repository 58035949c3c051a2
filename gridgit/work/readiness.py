"""Which blocks are ready, in which order, and why each other one is not (`gridgit ready [--explain]`).

A block is ready when its phase is open (in progress, or the current phase), it waits for no
approval (a proposed block in `hands_on` mode does), every block it depends on is complete,
every block of an earlier wave of its phase is complete, nobody holds it (or its holder went
stale: no sign of life for `heartbeat.stale_minutes`, counted from its take at the earliest; or
finished, `agent done`, without completing it: offered again, saying from whom), it has every
label asked for, and **its files collide with no work in progress**: none of its `files`
overlaps the files of a block another agent holds (and works: a quiet holder's block is offered
itself), or a live exclusive claim of another agent (the block's quiet holder's own claims go
with the take, so they do not count). Such a block is not offered, not ranked last: offered, it
would hand out the collision this check is for, the two exclusive claims on one file `take`
could only report afterwards; it is ready again the moment that block completes or is released,
or that claim is released or expires. Overlap is globs.overlaps (git's glob pathspecs, erring
towards yes, as advice should).

The ready blocks are taken in the order (priority, phase, wave, number): beads' P0 first,
whatever phase or wave it is in, then the plan's own order.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from gridgit.coordination import claims, globs, heartbeat
from gridgit.coordination.claimfile import Claim
from gridgit.model import mode, state
from gridgit.store import clock
from gridgit.store import config as config_mod
from gridgit.store.layout import Layout
from gridgit.store.record import Record
from gridgit.work import blocks as blocks_mod
from gridgit.work.blockfile import Block, check_block_id, check_labels
from gridgit.work.place import check_phase_known


class Offer(Record):
    """A ready block; STALE_OWNER is who held it before going quiet (None for a block nobody held)."""

    FIELDS = ("block", "stale_owner")
    __slots__ = FIELDS

    def __init__(self, block: Block, stale_owner: str | None = None) -> None:
        self.block = block
        self.stale_owner = stale_owner

    def to_dict(self) -> dict[str, Any]:
        return {**self.block.to_dict(), "stale_owner": self.stale_owner}


class Verdict(Record):
    """Whether BLOCK is ready, and why (REASON a code, TEXT a sentence, DETAIL what it names; see to_dict)."""

    FIELDS = ("block", "ready", "reason", "text", "stale_owner", "detail")
    __slots__ = FIELDS

    def __init__(
        self,
        block: Block,
        ready: bool,
        reason: str,
        text: str,
        stale_owner: str | None = None,
        detail: dict[str, Any] | None = None,
    ) -> None:
        self.block = block
        self.ready = ready
        self.reason = reason
        self.text = text
        self.stale_owner = stale_owner
        self.detail = detail if detail is not None else {}

    def to_dict(self) -> dict[str, Any]:
        b = self.block
        head = {"block_id": b.block_id, "phase_id": b.phase_id, "name": b.name, "status": b.status,
                "priority": b.priority, "labels": b.labels, "ready": self.ready, "reason": self.reason}  # fmt: skip
        return {**head, "text": self.text, "stale_owner": self.stale_owner, **self.detail}


def _moment(text: Any) -> datetime:
    try:
        return clock.parse(str(text))
    except ValueError:
        return datetime.min.replace(tzinfo=clock.now().tzinfo)


def _holder(layout: Layout, block: Block, st: dict[str, Any], config: dict[str, Any], now: datetime) -> str | None:
    """How BLOCK's holder stopped working on it (finished, or quiet since its take); None while it works.

    A holder not registered (yet: a take registers its agent after the queue lock) has the
    grace of its take, like one that just sent a heartbeat.
    """
    agents = st.get("agents") or {}
    active = {str(a.get("id")): a for a in agents.get("active") or [] if isinstance(a, dict)}
    owner = str(block.owner)
    if owner not in active and owner in heartbeat.agent_ids(agents.get("completed")):
        return "finished (`agent done`) without completing it"
    me = active.get(owner) or {"id": owner}
    if not heartbeat.sends_heartbeats(owner):
        return None  # Master Control and planners send no heartbeats: their takes never go stale
    signs = [t for t in (me.get("last_heartbeat"), block.taken_at, block.started_at) if t]
    alive = max(signs, key=_moment) if signs else None
    report = heartbeat.registered_staleness(layout, {**me, "last_heartbeat": alive}, [block.phase_id], now, config)
    if not report["stale"]:
        return None
    quiet = report.get("minutes_since")
    return "went quiet" + (f" ({quiet} min without a sign of life)" if quiet is not None else "")


def _open_phases(st: dict[str, Any]) -> set[str]:
    definitions = [d for d in (st.get("phases") or {}).get("definitions") or [] if isinstance(d, dict)]
    done = {str(d.get("id")) for d in definitions if d.get("status") == "complete"}
    done |= {str(p) for p in (st.get("phases") or {}).get("completed") or []}
    opened = {str(d.get("id")) for d in definitions if d.get("status") == "in_progress"}
    current = state.current_phase(st)
    return (opened | ({current} if current else set())) - done


class _Overlaps:
    """What a ready block's files must not overlap: the blocks in progress, then other agents' exclusive claims.

    Each pattern of theirs is compared once per pattern of ours, whoever holds it (a holder's
    claims name its block's files again), so the cost follows the distinct patterns in progress.
    """

    def __init__(self, layout: Layout, busy: list[Block], agent_id: str | None) -> None:
        self.layout, self.agent_id = layout, agent_id
        self.theirs: dict[str, list[Block | Claim]] | None = None  # pattern -> who has it, read when asked
        self.busy = busy
        self.memo: dict[tuple[str, str], bool] = {}  # blocks share patterns (a folder's `**`): each pair once

    def _overlap(self, ours: str, theirs: str) -> bool:
        hit = self.memo.get((ours, theirs))
        if hit is None:
            hit = self.memo[(ours, theirs)] = globs.overlaps(ours, theirs)
        return hit

    def _load(self) -> dict[str, list[Block | Claim]]:
        found: dict[str, list[Block | Claim]] = {}
        for block in self.busy:
            for pattern in block.files:
                found.setdefault(pattern, []).append(block)
        for claim in claims.live_claims(self.layout):
            if claim.exclusive and claim.agent != self.agent_id:
                found.setdefault(claim.pattern, []).append(claim)
        return found

    def find(self, block: Block, stale_owner: str | None) -> tuple[str, dict[str, Any]] | None:
        """(why, detail) for the first collision of BLOCK's files; None when there is none.

        STALE_OWNER's claims do not count: the take moves them from the quiet holder to the new one.
        """
        if not block.files:
            return None
        if self.theirs is None:
            self.theirs = self._load()
        for theirs, sources in self.theirs.items():  # the blocks' patterns first, then the claims' own
            ours = next((a for a in block.files if self._overlap(a, theirs)), None)
            source = next((s for s in sources if isinstance(s, Block) or s.agent != stale_owner), None)
            if ours is None or source is None:
                continue
            if isinstance(source, Block):
                detail = {"kind": "block", "block_id": source.block_id, "agent": source.owner, "since": source.taken_at}
                why = f"its files overlap block {source.block_id}, held by {source.owner} ({ours} ~ {theirs})"
            else:
                detail = {"kind": "claim", "agent": source.agent, "claim_id": source.id, "until": source.expires_at}
                why = f"its files overlap {source.agent}'s exclusive claim on {theirs} (until {source.expires_at})"
            return why, {**detail, "ours": ours, "theirs": theirs}
        return None


def judge(
    layout: Layout,
    every: list[Block],
    st: dict[str, Any],
    config: dict[str, Any],
    now: datetime,
    agent_id: str | None = None,
    labels: list[str] | None = None,
    take: str | None = None,
) -> list[Verdict]:
    """One Verdict per block of EVERY, in EVERY's order, for AGENT_ID (whose own claims collide with nothing).

    LABELS: a block must carry every one of them (beads' `ready --label`), or it is filtered out.
    TAKE: what a take needs, no more: "" the first block it would take, a block id that block;
    the other ready blocks are left out (None: every block, as `ready` shows them).
    """
    complete = {b.block_id for b in every if b.complete}
    phases = _open_phases(st)
    proposals_wait = mode.proposals_wait(st)
    verdicts: list[Verdict] = []
    busy: list[Block] = []
    # A phase's blocks not complete, by wave; a proposal waiting for approval is not the phase's plan yet:
    # the waves after it do not wait for it.
    open_work: dict[str, list[Block]] = {}
    for block in every:
        if not block.complete and not (block.proposed and proposals_wait):
            open_work.setdefault(block.phase_id, []).append(block)
    for block in every:
        before = [b.block_id for b in open_work.get(block.phase_id, []) if b.wave < block.wave]
        missing = list(dict.fromkeys(d for d in [*block.depends_on, *before] if d not in complete))
        gone = _holder(layout, block, st, config, now) if block.held else None
        if block.held and gone is None:
            busy.append(block)  # work in progress, whatever else its block says
        if block.complete:
            verdict = Verdict(block, False, "complete", "complete")
        elif block.phase_id not in phases:
            verdict = Verdict(block, False, "phase", f"its phase {block.phase_id} is not in progress")
        elif block.proposed and proposals_wait:
            why = f"proposed: waits for approval (`gridgit approve block {block.block_id}`)"
            verdict = Verdict(block, False, "proposed", why)
        elif missing:
            verdict = Verdict(block, False, "depends", "waits for " + ", ".join(missing), detail={"waits_for": missing})
        elif block.held and gone is None:
            why = f"held by {block.owner} ({block.status}) since {block.taken_at}"
            verdict = Verdict(block, False, "held", why, detail={"agent": block.owner, "since": block.taken_at})
        elif labels and not set(labels) <= set(block.labels):
            lacks = [label for label in labels if label not in block.labels]
            why = "filtered out: it has no label " + ", ".join(lacks)
            verdict = Verdict(block, False, "label", why, detail={"lacks": lacks})
        else:
            stale = block.owner if block.held else None
            why = f"ready: offered again, {stale} {gone}" if stale else "ready"
            verdict = Verdict(block, True, "ready", why, stale)
        verdicts.append(verdict)
    # Collisions last (the costly test: each pattern against every one in progress), in the order a take goes,
    # so a take (TAKE) stops at its block: the ready blocks after it are left out of the answer.
    candidates = sorted((v for v in verdicts if v.ready), key=lambda v: order(v.block))
    if take:
        candidates = [v for v in candidates if v.block.block_id == take]
    collisions = _Overlaps(layout, busy, agent_id)
    judged: dict[str, Verdict] = {}
    for verdict in candidates:
        found = collisions.find(verdict.block, verdict.stale_owner)
        if found is not None:
            verdict = Verdict(verdict.block, False, "overlap", found[0], detail={"overlaps": found[1]})
        judged[verdict.block.block_id] = verdict
        if found is None and take is not None:
            break
    return [judged.get(v.block.block_id, v) for v in verdicts if not v.ready or v.block.block_id in judged]


def order(block: Block) -> tuple[int, str, int, int]:
    """The order ready blocks are taken in: priority, then phase, wave and number."""
    return block.priority, block.phase_id, block.wave, int(block.block_id[3:])


def offers(verdicts: list[Verdict]) -> tuple[list[Offer], dict[str, str]]:
    """(the ready blocks of VERDICTS in the order they are taken, block id -> why each other block waits)."""
    ready = sorted((Offer(v.block, v.stale_owner) for v in verdicts if v.ready), key=lambda o: order(o.block))
    return ready, {v.block.block_id: v.text for v in verdicts if not v.ready}


def ready(
    layout: Layout,
    phase: str | None = None,
    now: datetime | None = None,
    agent_id: str | None = None,
    labels: list[str] | None = None,
) -> list[Offer]:
    """The blocks AGENT_ID may take now (of PHASE, when given; with every one of LABELS), in the order `take` takes them."""
    return _offered(layout, phase, now, agent_id, labels)[0]


def explain(
    layout: Layout,
    block_id: str | None = None,
    phase: str | None = None,
    now: datetime | None = None,
    agent_id: str | None = None,
    labels: list[str] | None = None,
) -> list[Verdict]:
    """Why each block (of PHASE; BLOCK_ID alone when given) is or is not ready for AGENT_ID: the ready ones first,
    in the order `take` takes them, then the others in the plan's order."""
    if block_id is not None:
        check_block_id(block_id)
    _, verdicts = _offered(layout, phase, now, agent_id, labels)
    if block_id is not None:
        blocks_mod.find([v.block for v in verdicts], block_id)
        return [v for v in verdicts if v.block.block_id == block_id]
    return sorted(verdicts, key=lambda v: (not v.ready, order(v.block) if v.ready else (0, "", 0, 0)))


def _offered(
    layout: Layout, phase: str | None, now: datetime | None, agent_id: str | None, labels: list[str] | None
) -> tuple[list[Offer], list[Verdict]]:
    layout.require()
    wanted = check_labels(labels)
    st = state.read(layout)
    if phase:
        check_phase_known(layout, phase, st)
    every = blocks_mod.load_all(layout)
    verdicts = judge(layout, every, st, config_mod.load(layout), now or clock.now(), agent_id, wanted)
    verdicts = [v for v in verdicts if phase is None or v.block.phase_id == phase]
    return offers(verdicts)[0], verdicts
