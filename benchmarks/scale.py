"""Scale: does a cost stay flat as the scratchpad or the event log grows, and how fast does it grow?"""

from __future__ import annotations

import itertools
from datetime import datetime, timedelta, timezone
from pathlib import Path

from benchmarks import api, fixtures
from benchmarks.fixtures import PHASE
from benchmarks.harness import Config, Row, Unavailable, Workspace, measure, percentile
from benchmarks.suite import benchmark

_unique = itertools.count(50_000)
MAX_ENTRIES = 100_000


def big_scratchpad(ws: Workspace, entries: int) -> Path:
    """A scratchpad of ENTRIES entries with max_entries raised (config and frontmatter).

    The first 10 go through the write API; the rest are appended with the document model
    (parse, add entries, render once), since 5,000 single writes would take minutes.
    """
    from gridgit.scratchpad import store
    from gridgit.scratchpad.entry import Entry

    path = ws.grid_repo(f"scale-{entries}")
    fixtures.set_max_entries(path, MAX_ENTRIES)
    fixtures.fill_scratchpad(path, min(entries, 10))
    if entries > 10:
        pad_path = path / ".grid" / "phases" / PHASE / "scratchpad.md"
        pad = store.load_path(pad_path)
        pad.meta["index"]["max_entries"] = MAX_ENTRIES
        start = datetime.now(timezone.utc) - timedelta(days=2)
        next_id = pad.next_id()
        for i in range(10, entries):
            agent, category, topic, text = fixtures.entry_args(i)
            stamp = (start + timedelta(seconds=20 * i)).strftime("%Y-%m-%dT%H:%M:%SZ")
            pad.entries.append(Entry(next_id, stamp, agent, category, topic, [], "MEDIUM", "", text))
            next_id += 1
        pad_path.write_text(pad.render(), encoding="utf-8")
    return path


def _growth_rows(bench: str, what: str, sizes: list[int], p50s: list[float]) -> list[Row]:
    return [
        Row(bench, f"{what}: growth {a:,} -> {b:,}", "x", [pb / pa])
        for (a, pa), (b, pb) in itertools.pairwise(zip(sizes, p50s, strict=True))
    ]


@benchmark("scale_scratchpad", "scale", "scratchpad write and lookup at 50/500/5,000 entries")
def scale_scratchpad(cfg: Config, ws: Workspace) -> list[Row]:
    sizes = [50, 500, 5000] if not cfg.quick else [50, 100, 200]
    rows: list[Row] = []
    write_p50: list[float] = []
    lookup_p50: list[float] = []
    for size in sizes:
        writes, lookups = _scratchpad_at(cfg, ws, size)
        rows.append(Row("scale_scratchpad", f"scratchpad write @ {size:,} entries", "ms", writes))
        rows.append(
            Row("scale_scratchpad", f"lookup by topic @ {size:,} entries", "ms", lookups, note=f"{size // 10} match")
        )
        write_p50.append(percentile(writes, 50))
        lookup_p50.append(percentile(lookups, 50))
    rows += _growth_rows("scale_scratchpad", "scratchpad write", sizes, write_p50)
    rows += _growth_rows("scale_scratchpad", "lookup by topic", sizes, lookup_p50)
    return rows


def _scratchpad_at(cfg: Config, ws: Workspace, size: int) -> tuple[list[float], list[float]]:
    """(write samples, lookup samples) on a scratchpad of SIZE entries, restored before each write."""
    path = big_scratchpad(ws, size)
    pad = path / ".grid" / "phases" / PHASE / "scratchpad.md"
    saved = pad.read_bytes()
    board = api.board(path)
    write = api.writer(board)
    lookup = api.topic_lookup(board)

    def one_write() -> None:
        write(PHASE, "executor-002", "discovery", f"scale-{next(_unique)}", fixtures.content(3))

    def restore() -> None:
        pad.write_bytes(saved)

    writes = measure(one_write, cfg.repeats(30 if size >= 5000 else 50, 3), cfg.warmup(2, 1), setup=restore)
    restore()
    lookups = measure(lambda: lookup(PHASE, fixtures.HOT_TOPIC), cfg.repeats(50, 3), cfg.warmup(3, 1))
    return writes, lookups


@benchmark("scale_events", "scale", "event log operations at 10^4/10^5/10^6 lines")
def scale_events(cfg: Config, ws: Workspace) -> list[Row]:
    sizes = [10_000, 100_000, 1_000_000] if not cfg.quick else [1_000, 3_000, 10_000]
    rows: list[Row] = []
    p50s: dict[str, list[float]] = {"emit": [], "conflict check": [], "poll 100 new": []}
    for size in sizes:
        for what, samples in _events_at(cfg, ws, size).items():
            label = f"events {what} @ {size:,} lines"
            if isinstance(samples, str):
                rows.append(Row("scale_events", label, "ms", error=samples))
                continue
            rows.append(Row("scale_events", label, "ms", samples))
            p50s[what].append(percentile(samples, 50))
    for what, values in p50s.items():
        if len(values) != len(sizes):
            continue
        rows += _growth_rows("scale_events", f"events {what}", sizes, values)
    return rows


def _events_at(cfg: Config, ws: Workspace, size: int) -> dict[str, list[float] | str]:
    """Samples of each event-log operation on a log of SIZE lines (or why it could not run)."""
    path = fixtures.event_log_repo(ws, size)
    board = api.board(path)

    def emit_samples() -> list[float]:
        emit = api.emitter(board)
        payload = {"agent_id": "executor-003", "task": "scale"}
        return measure(lambda: emit("agent_spawned", payload), cfg.repeats(200, 5), cfg.warmup(10, 1))

    def check_samples() -> list[float]:
        check = api.conflict_check(board)
        return measure(lambda: check("src/recent_3.py", "executor-001"), cfg.repeats(30, 3), cfg.warmup(2, 1))

    def poll_samples() -> list[float]:
        poll = api.poller(board)
        api.cursor_to_end(board, "executor-007")
        return measure(
            lambda: poll("executor-007"),
            cfg.repeats(30, 3),
            cfg.warmup(2, 1),
            setup=lambda: fixtures.append_filler_events(path, 100, age_minutes=1),
        )

    found: dict[str, list[float] | str] = {}
    for what, func in (("emit", emit_samples), ("conflict check", check_samples), ("poll 100 new", poll_samples)):
        try:
            found[what] = func()
        except Unavailable as exc:
            found[what] = str(exc)
    return found


def _grid_tree(path: Path) -> dict[str, bytes]:
    grid = path / ".grid"
    return {p.relative_to(grid).as_posix(): p.read_bytes() for p in grid.rglob("*") if p.is_file()}


def _diverged(base: dict[str, bytes], new: int, side: str) -> dict[str, bytes]:
    """BASE with NEW entries (scratchpad) and NEW events (log) written on one SIDE, each with its own id."""
    import json

    from gridgit.scratchpad.document import Scratchpad
    from gridgit.scratchpad.entry import Entry
    from gridgit.store import ids

    rel = f"phases/{PHASE}/scratchpad.md"
    pad = Scratchpad.parse(base[rel].decode("utf-8"), rel)
    start = datetime.now(timezone.utc)
    next_id = pad.next_id()
    for i in range(new):
        agent, category, topic, text = fixtures.entry_args(i)
        stamp = (start + timedelta(seconds=i)).strftime("%Y-%m-%dT%H:%M:%SZ")
        pad.entries.append(Entry(next_id + i, stamp, agent, category, topic, [], "MEDIUM", "", f"{side}: {text}"))
        pad.entries[-1].uid = ids.new_id()
    events = b"".join(
        json.dumps({"id": f"{i:016x}-{side}", "type": "file_modified", "timestamp": "x", "payload": {"i": i}}).encode()
        + b"\n"
        for i in range(new)
    )
    return {
        **base,
        rel: pad.render().encode("utf-8"),
        "events/current.jsonl": base.get("events/current.jsonl", b"") + events,
    }


@benchmark("scale_merge", "scale", "merge_grid (sync's merge) with 100/1,000 new entries and events on each side")
def scale_merge(cfg: Config, ws: Workspace) -> list[Row]:
    from gridgit.history.grid_merge import merge_grid

    base = _grid_tree(ws.grid_repo("merge"))
    rows = []
    for new in [100, 1000] if not cfg.quick else [20, 100]:
        ours, theirs = _diverged(base, new, "ours"), _diverged(base, new, "theirs")
        samples = measure(lambda o=ours, t=theirs: merge_grid(base, o, t), cfg.repeats(10, 3), cfg.warmup(1, 1))
        rows.append(Row("scale_merge", f"merge_grid, {new:,} new entries + events each side", "ms", samples))
    return rows
