"""`.grid/budget.json`: what the mission costs, by agent, session, phase and model, and its limit.

Usage lands in buckets keyed `agent|session|phase|model`, each with its tokens (in, out,
cache read, cache write), messages and cost in USD; `spawns` counts registrations per
`agent|phase`; `transcripts` holds how far each agent session's transcript has been counted
(gridgit.work.transcript), in the same file, so counting and moving on are one atomic write.
Usage comes from the agent-tool hooks (their transcripts) or `gridgit budget add`; a cost not
given is the model's price (config.json `budget.prices`, USD per million tokens) times the
tokens. STATE's `budget.total_cost_usd` and `session_cost_usd` follow every change, and
`budget.mission_limit_usd` (0: none) is warned about by `status` at 80 % and told to every
agent's inbox at 100 % (`budget_limit_reached`, once per limit).

Clones merge the file bucket by bucket, each counter base + what each side added, so no
clone's usage is lost or counted twice (gridgit.history.work_merge).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from gridgit.errors import BadInput
from gridgit.events import bus
from gridgit.model import permissions, state
from gridgit.store import clock, fileio, journal, locks, redaction
from gridgit.store import config as config_mod
from gridgit.store.layout import Layout
from gridgit.store.lazyre import lazy

VERSION = 1
TOKENS = ("tokens_in", "tokens_out", "cache_read", "cache_write")
COUNTERS = (*TOKENS, "messages")
SECTIONS = ("usage", "spawns", "transcripts")
MAX_TOKENS = 1_000_000_000  # in one report: more is a mistake, not a session
MAX_COST = 100_000.0
WARN_SHARE = 0.8
NONE = "-"  # no session, phase or model named
_MODEL_RE = lazy(r"^[A-Za-z0-9<][A-Za-z0-9._:/@\[\]+<>-]{0,99}$")
SESSION_RE = lazy(r"^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$")
_PRICE_KEYS = ("input", "output", "cache_read", "cache_write")


@dataclass
class Usage:
    """Tokens one agent used in one session, phase and model; COST_USD None: priced from config.json."""

    agent: str
    session: str
    phase: str
    model: str
    tokens_in: int = 0
    tokens_out: int = 0
    cache_read: int = 0
    cache_write: int = 0
    cost_usd: float | None = None
    messages: int = 1

    def key(self) -> str:
        return "|".join((self.agent, self.session, self.phase, self.model))

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Recorded:
    """What one report added (USAGE, priced), the mission's total before and after, and its limit (0: none)."""

    usage: list[Usage] = field(default_factory=list)
    before_usd: float = 0.0
    total_usd: float = 0.0
    limit_usd: float = 0.0
    limit_reached: bool = False  # this report took the total to the limit

    def to_dict(self) -> dict[str, Any]:
        return {"usage": [u.to_dict() for u in self.usage], "cost_usd": round(self.total_usd - self.before_usd, 6),
                "total_usd": self.total_usd, "limit_usd": self.limit_usd,
                "limit_reached": self.limit_reached}  # fmt: skip


# ---- the file --------------------------------------------------------------------------------


def empty() -> dict[str, Any]:
    return {"version": VERSION, "usage": {}, "spawns": {}, "transcripts": {}, "limit_reached": None}


def _count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _amount(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value) and value >= 0


def _section(data: dict[str, Any], name: str) -> dict[str, Any]:
    value = data.get(name)
    return value if isinstance(value, dict) else {}


def problems(data: dict[str, Any]) -> list[tuple[str, str]]:
    """(key, what is wrong) for every way DATA breaks budget.json's shape."""
    found = [(k, f"unknown key {k!r}") for k in data if k not in (*empty(), "version")]
    if data.get("version", VERSION) != VERSION:
        found.append(("version", f"version must be {VERSION}"))
    for section in SECTIONS:
        if not isinstance(data.get(section, {}), dict):
            found.append((section, f"{section} must be an object"))
    usage, spawns, transcripts = (_section(data, s) for s in SECTIONS)
    for key, bucket in usage.items():
        if not isinstance(bucket, dict):
            found.append((key, f"usage {key!r} must be an object"))
            continue
        bad = [c for c in COUNTERS if not _count(bucket.get(c, 0))]
        bad += [] if _amount(bucket.get("cost_usd", 0)) else ["cost_usd"]
        if bad:
            found.append((key, f"usage {key!r}: {', '.join(bad)} must be 0 or more"))
    for key, number in spawns.items():
        if not _count(number):
            found.append((key, f"spawns {key!r} must be a whole number, 0 or more"))
    for key, cursor in transcripts.items():
        if not isinstance(cursor, dict) or not _count(cursor.get("offset", 0)):
            found.append((key, f"transcripts {key!r} must be an object with an offset of 0 or more"))
    return found


def parse(text: str, source: str) -> dict[str, Any]:
    """budget.json's TEXT, checked; a problem is an error naming SOURCE."""
    data = config_mod.json_object(text, source)
    found = problems(data)
    if found:
        raise BadInput(f"{source}: {found[0][1]}")
    return {**empty(), **data}


def render(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False, sort_keys=True) + "\n"


def load(layout: Layout) -> dict[str, Any]:
    path = layout.grid / "budget.json"
    return parse(fileio.read_text(path), str(path)) if path.exists() else empty()


def merge(base: dict[str, Any], ours: dict[str, Any], theirs: dict[str, Any]) -> dict[str, Any]:
    """Three-way: buckets united, each counter base + both sides' additions; the furthest transcript cursor."""
    merged = empty()
    for key in sorted(set(ours["usage"]) | set(theirs["usage"])):
        b, o, t = (side["usage"].get(key) or {} for side in (base, ours, theirs))
        bucket = {**t, **o} if o else dict(t)
        for counter in (*COUNTERS, "cost_usd"):
            added = o.get(counter, 0) + t.get(counter, 0) - b.get(counter, 0)
            bucket[counter] = max(added, o.get(counter, 0), t.get(counter, 0))
        bucket["cost_usd"] = round(bucket["cost_usd"], 6)
        times = [x for x in (o.get("first_at"), t.get("first_at")) if x]
        bucket.update(first_at=min(times, default=None), last_at=max((o.get("last_at") or "", t.get("last_at") or "")))
        merged["usage"][key] = bucket
    for key in sorted(set(ours["spawns"]) | set(theirs["spawns"])):
        b, o, t = (side["spawns"].get(key, 0) for side in (base, ours, theirs))
        merged["spawns"][key] = max(o + t - b, o, t)
    for key in sorted(set(ours["transcripts"]) | set(theirs["transcripts"])):
        sides = [c for c in (ours["transcripts"].get(key), theirs["transcripts"].get(key)) if c]
        merged["transcripts"][key] = max(sides, key=lambda c: (c.get("offset", 0), render(c)))
    reached = [r for r in (ours.get("limit_reached"), theirs.get("limit_reached")) if r]
    merged["limit_reached"] = min(reached, key=render) if reached else None
    return merged


# ---- prices -----------------------------------------------------------------------------------


def price_of(prices: dict[str, Any], model: str) -> dict[str, Any] | None:
    """The price of MODEL: the longest key of PRICES that is MODEL or its prefix up to a separator.

    `claude-sonnet-4-5-20250929` is priced as `claude-sonnet-4-5` if listed, else `claude-sonnet-4`;
    a provider's prefix (`us.anthropic.claude-...`) is looked past.
    """
    names = [model] + ([model[model.index("claude-") :]] if "claude-" in model[1:] else [])
    best: tuple[int, dict[str, Any]] | None = None
    for key, price in prices.items():
        for name in names:
            fits = name == key or (name.startswith(key) and name[len(key)] in "-@:.[/")
            if fits and isinstance(price, dict) and (best is None or len(key) > best[0]):
                best = (len(key), price)
    return best[1] if best else None


def cost_of(prices: dict[str, Any], usage: Usage) -> float | None:
    """USAGE's cost from PRICES (USD per million tokens), None when its model has no price."""
    price = price_of(prices, usage.model)
    if price is None:
        return None
    total = sum(
        getattr(usage, counter) * float(price.get(key, 0)) for counter, key in zip(TOKENS, _PRICE_KEYS, strict=True)
    )
    return round(float(total) / 1_000_000, 6)


# ---- adding ------------------------------------------------------------------------------------


def _check_tokens(name: str, value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= MAX_TOKENS:
        raise BadInput(f"{name} {value!r}: expected a whole number of tokens from 0 to {MAX_TOKENS:,}")
    return value


def check_usage(usage: Usage) -> Usage:
    """USAGE when every field is sane: token counts from 0 to a billion, a cost from 0 to 100,000 USD, plain names."""
    permissions.agent_type(permissions.check_agent_id(usage.agent))
    for counter in TOKENS:
        _check_tokens("--" + counter.replace("_", "-"), getattr(usage, counter))
    if usage.cost_usd is not None and not (_amount(usage.cost_usd) and usage.cost_usd <= MAX_COST):
        raise BadInput(f"--cost {usage.cost_usd!r}: expected US dollars from 0 to {MAX_COST:,.0f}")
    if usage.model != NONE and not _MODEL_RE.match(usage.model):
        raise BadInput(f"invalid model {usage.model[:60]!r}: letters, digits and ._:/@[]+- (at most 100)")
    if not SESSION_RE.match(usage.session):
        raise BadInput(f"invalid session {usage.session[:60]!r}: letters, digits and ._:- (at most 128)")
    return usage


def _apply(data: dict[str, Any], usage: Usage, mission_session: str | None, now: str) -> None:
    # The way every report enters budget.json: a secret in a session or model name (`--session`, MCP's
    # `report_usage`, a transcript) is never written, and two such names stay two buckets.
    usage.session, usage.model = redaction.distinct_name(usage.session), redaction.distinct_name(usage.model)
    bucket = data["usage"].setdefault(usage.key(), {})
    if not bucket:
        bucket.update(agent=usage.agent, session=usage.session, phase=usage.phase, model=usage.model,
                      mission_session=mission_session, first_at=now)  # fmt: skip
    for counter in COUNTERS:
        bucket[counter] = bucket.get(counter, 0) + getattr(usage, counter)
    bucket["cost_usd"] = round(bucket.get("cost_usd", 0) + (usage.cost_usd or 0.0), 6)
    bucket["last_at"] = now


def total_cost(data: dict[str, Any]) -> float:
    return round(sum(float(b.get("cost_usd", 0)) for b in data["usage"].values() if isinstance(b, dict)), 6)


def record(
    layout: Layout, compute: Callable[[dict[str, Any]], list[Usage]], actor: str, st: dict[str, Any] | None = None
) -> Recorded:
    """Add what COMPUTE(budget.json's data, under its lock) returns; COMPUTE may move a transcript cursor too.

    The file is written once (usage and cursor together) and only when it changed; then STATE's
    budget summary follows and the events are sent. ST is STATE as the caller read it.
    """
    layout.require()
    config = config_mod.current(layout)
    prices, limit = config["budget"]["prices"], float(config["budget"]["mission_limit_usd"])
    mission_session = (state.read(layout) if st is None else st).get("session_id")
    path = layout.grid / "budget.json"
    with locks.locked(path):
        data = load(layout)
        old = render(data)
        usages = compute(data)
        now = clock.now_iso()
        result = Recorded(before_usd=total_cost(data), limit_usd=limit)
        for usage in usages:
            usage.cost_usd = cost_of(prices, usage) if usage.cost_usd is None else usage.cost_usd
            _apply(data, usage, mission_session, now)
        result.usage, result.total_usd = usages, total_cost(data)
        reached = data["limit_reached"] if isinstance(data.get("limit_reached"), dict) else {}
        if limit > 0 and result.total_usd >= limit and reached.get("limit_usd") != limit:
            data["limit_reached"] = {"limit_usd": limit, "total_usd": result.total_usd, "at": now, "by": actor}
            result.limit_reached = True
        if render(data) != old:
            journal.write(layout, path, render(data))
    if usages:
        _follow(layout, actor, result)
    return result


def sync_state(layout: Layout, actor: str) -> None:
    """STATE's `budget.total_cost_usd` and `session_cost_usd` from budget.json (after a report, or a merge)."""

    def change(st: dict[str, Any]) -> dict[str, Any]:
        data = load(layout)  # read inside the STATE lock: the last writer sums what is on disk
        session = st.get("session_id")
        summary = {"total_cost_usd": total_cost(data),
                   "session_cost_usd": round(sum(float(b.get("cost_usd", 0)) for b in data["usage"].values()
                                                 if b.get("mission_session") == session), 6)}  # fmt: skip
        old = _section(st, "budget")
        return {} if all(old.get(k) == v for k, v in summary.items()) else {"budget": summary}

    state.update_with(layout, change, actor, "budget", check_permission=False)


def _follow(layout: Layout, actor: str, result: Recorded) -> None:
    """STATE's budget summary, then the events: `budget_added`, and `budget_limit_reached` when this crossed it."""
    sync_state(layout, actor)
    first = result.usage[0]
    payload = {"agent": actor, "session": first.session, "phase": first.phase,
               "models": sorted({u.model for u in result.usage}),
               **{c: sum(getattr(u, c) for u in result.usage) for c in COUNTERS},
               "cost_usd": round(result.total_usd - result.before_usd, 6), "total_usd": result.total_usd}  # fmt: skip
    bus.notify(layout, "budget_added", payload)
    if result.limit_reached:
        bus.notify(layout, "budget_limit_reached",
                   {"total_usd": result.total_usd, "limit_usd": result.limit_usd, "agent": actor})  # fmt: skip


def add(
    layout: Layout,
    agent: str,
    tokens_in: int,
    tokens_out: int,
    cache_read: int = 0,
    cache_write: int = 0,
    cost_usd: float | None = None,
    model: str | None = None,
    session: str | None = None,
    phase: str | None = None,
) -> Recorded:
    """`gridgit budget add`: usage an agent reports itself (one without a transcript gridgit reads)."""
    from gridgit.work.place import check_phase_known

    st = state.read(layout)
    phase_id = check_phase_known(layout, phase, st) if phase else state.current_phase(st) or NONE
    usage = Usage(agent, session or "manual", phase_id, model or NONE, tokens_in, tokens_out, cache_read, cache_write,
                  cost_usd)  # fmt: skip
    check_usage(usage)
    return record(layout, lambda data: [usage], agent, st)


def record_spawn(layout: Layout, agent: str, phase: str | None) -> None:
    """Count one registration of AGENT in PHASE (STATE's `spawns_this_session` counts the mission's)."""

    def compute(data: dict[str, Any]) -> list[Usage]:
        key = f"{agent}|{phase or NONE}"
        data["spawns"][key] = data["spawns"].get(key, 0) + 1
        return []

    record(layout, compute, agent)


# ---- reports ------------------------------------------------------------------------------------


def _sum(buckets: list[dict[str, Any]]) -> dict[str, Any]:
    total = {c: sum(int(b.get(c, 0)) for b in buckets) for c in COUNTERS}
    return {**total, "cost_usd": round(sum(float(b.get("cost_usd", 0)) for b in buckets), 6)}


def limit_state(total: float, limit: float) -> tuple[float | None, str | None]:
    """(percent of the mission limit spent, the warning `status` shows at 80 % and more); (None, None) without a limit."""
    if limit <= 0:
        return None, None
    share = total / limit
    if share < WARN_SHARE:
        return round(100 * share, 1), None
    said = "reached" if share >= 1 else "near"
    return round(100 * share, 1), f"mission budget {said}: ${total:,.2f} of ${limit:,.2f} ({100 * share:.0f}%)"


def report(layout: Layout, config: dict[str, Any] | None = None) -> dict[str, Any]:
    """Totals: the whole mission, by agent, by phase, by model, spawns per agent; the limit and its warning."""
    layout.require()
    config = config or config_mod.current(layout)
    data = load(layout)
    buckets = [b for b in data["usage"].values() if isinstance(b, dict)]
    limit = float(config["budget"]["mission_limit_usd"])
    total = _sum(buckets)
    percent, warning = limit_state(total["cost_usd"], limit)

    def by(name: str) -> dict[str, Any]:
        keys = sorted({str(b.get(name, NONE)) for b in buckets})
        return {k: _sum([b for b in buckets if str(b.get(name, NONE)) == k]) for k in keys}

    spawns: dict[str, int] = {}
    for key, number in data["spawns"].items():
        agent = key.split("|", 1)[0]
        spawns[agent] = spawns.get(agent, 0) + int(number)
    prices = config["budget"]["prices"]
    unpriced = sorted({str(b.get("model")) for b in buckets if price_of(prices, str(b.get("model"))) is None})
    return {"total": total, "by_agent": by("agent"), "by_phase": by("phase"), "by_model": by("model"),
            "spawns": spawns, "limit_usd": limit, "percent": percent, "warning": warning,
            "unpriced_models": [m for m in unpriced if m != NONE]}  # fmt: skip
