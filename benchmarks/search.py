"""Search: the FTS5 index over 10^4 and 10^5 entries across 50 phases, cold and warm, against `git grep`;
what a write costs the next search; and `gridgit write` with this branch against a base checkout."""

from __future__ import annotations

import itertools
from datetime import datetime, timedelta, timezone
from pathlib import Path

from benchmarks import base, fixtures
from benchmarks.harness import (
    GRIDGIT,
    Config,
    Row,
    Target,
    Workspace,
    fmt,
    interleaved,
    measure,
    percentile,
    ratios,
    runner,
)
from benchmarks.suite import benchmark

PHASES = 50
RARE = "zeppelin"  # in one entry of every 1,000
WARM_TARGET_MS = 20.0


def mission(ws: Workspace, entries: int, live: int = 50) -> Path:
    """A Blackboard whose ENTRIES entries lie in the archives of 50 phases (the last one's scratchpad has LIVE).

    Written with the document model (one render per archive): a million writes through the CLI
    would take hours and measure the write path, not the search.
    """
    from gridgit.scratchpad import store
    from gridgit.scratchpad.archive import Archive
    from gridgit.scratchpad.entry import Entry
    from gridgit.store import ids

    path = ws.grid_repo(f"search-{entries}")
    per_phase = entries // PHASES
    start = datetime.now(timezone.utc) - timedelta(days=60)
    number = itertools.count()
    for p in range(1, PHASES + 1):
        phase_id = f"{p:02d}-phase{p}"
        archived = Archive(phase_id, f"Phase {p}")
        for n in range(per_phase):
            i = next(number)
            agent, category, topic, text = fixtures.entry_args(i)
            if i % 1000 == 7:
                text += f"\n\nGotcha: the {RARE} importer rewrites timestamps."
            stamp = (start + timedelta(seconds=50 * i)).strftime("%Y-%m-%dT%H:%M:%SZ")
            archived.entries.append(Entry(n + 1, stamp, agent, category, topic, [], "MEDIUM", "", text,
                                          uid=ids.derived_id(stamp, str(i))))  # fmt: skip
        folder = path / ".grid" / "phases" / phase_id
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "scratchpad_archived.md").write_text(archived.render(), encoding="utf-8")
    last = f"{PHASES:02d}-phase{PHASES}"
    store.create(_layout(path), last, f"Phase {PHASES}")
    fixtures.fill_scratchpad(path, live, phase=last)
    fixtures.raise_pad_limit(path, 100_000, phase=last)  # later writes never auto-archive
    return path


def _layout(path: Path) -> object:
    from gridgit.store.layout import Layout

    return Layout.find(path)


def _search(path: Path, query: str, **filters: str) -> object:
    from gridgit.search import query as query_mod

    return query_mod.search(_layout(path), query, **filters)  # type: ignore[arg-type]


def _cold(path: Path) -> None:
    from gridgit.search import index

    index.connect(_layout(path), fresh=True).close()  # type: ignore[arg-type]
    _search(path, RARE)


@benchmark("search_scale", "search", "search over 10^4 / 10^5 entries in 50 phases, cold and warm, and git grep")
def search_scale(cfg: Config, ws: Workspace) -> list[Row]:
    rows: list[Row] = []
    for entries in [10_000, 100_000] if not cfg.quick else [200, 1_000]:
        path = mission(ws, entries, cfg.size(50, 5))
        label = f"{entries:,} entries"
        cold = measure(lambda path=path: _cold(path), cfg.repeats(5 if entries < 50_000 else 3, 1), 0)
        size = (path / ".grid/.cache/search.sqlite3").stat().st_size / 1e6
        rows.append(
            Row("search_scale", f"search, cold (index built) @ {label}", "ms", cold, note=f"index {size:.0f} MB")
        )
        for what, query, filters in (
            (f"a rare word ({max(1, entries // 1000)} hits)", RARE, {}),
            ("a common word (every entry), best 20", "session", {}),
            ("a phrase", '"round trip per call"', {}),
            ("entries citing a file (--file)", "", {"file": "src/auth/session_3.py"}),
        ):
            warm = measure(lambda q=query, f=filters, p=path: _search(p, q, **f), cfg.repeats(30, 3), cfg.warmup(3, 1))
            target = [Target("p50", "<=", WARM_TARGET_MS)] if query == RARE and entries >= 100_000 else []
            rows.append(Row("search_scale", f"search, warm: {what} @ {label}", "ms", warm, target))
        rows += _against_grep(cfg, ws, path, label)
    return rows


def _against_grep(cfg: Config, ws: Workspace, path: Path, label: str) -> list[Row]:
    """The `gridgit search` process against `git grep` over the same files, round by round."""
    search = runner([GRIDGIT, "search", RARE, "--limit", "20"], path, ws.env)
    sources = [".grid/phases", ".grid/LEARNINGS.md", ".grid/memory"]  # what the search holds, its index aside
    grep = runner(["git", "grep", "--no-index", "-i", "-n", "-e", RARE, "--", *sources], path, ws.env, ok=(0, 1))
    mine, theirs = interleaved([search, grep], cfg.repeats(20, 2), cfg.warmup(2, 0))
    note = f"abs p50 {fmt(percentile(mine, 50), 'ms')} vs git grep {fmt(percentile(theirs, 50), 'ms')}"
    return [
        Row("search_scale", f"gridgit search / git grep (processes) @ {label}", "x", ratios(mine, theirs), note=note)
    ]


@benchmark("search_update", "search", "what one write costs the next search (10^4 entries)")
def search_update(cfg: Config, ws: Workspace) -> list[Row]:
    from gridgit import Blackboard

    path = mission(ws, cfg.size(10_000, 200), cfg.size(50, 5))
    last = f"{PHASES:02d}-phase{PHASES}"
    board = Blackboard(path)
    counter = itertools.count()
    _search(path, RARE)

    def write() -> None:
        i = next(counter)
        board.write("discovery", f"upd-{i}", fixtures.content(i), phase=last, agent="executor-001")

    after_write = measure(lambda: _search(path, RARE), cfg.repeats(30, 3), cfg.warmup(2, 1), setup=write)
    unchanged = measure(lambda: _search(path, RARE), cfg.repeats(30, 3), cfg.warmup(2, 1))
    cost = [a - b for a, b in zip(after_write, unchanged, strict=True)]
    note = f"warm search {fmt(percentile(unchanged, 50), 'ms')}, after a write {fmt(percentile(after_write, 50), 'ms')}"
    return [
        Row("search_update", "search after one write into a 50-entry scratchpad (its file re-read)", "ms", after_write),
        Row("search_update", "index update per write (difference to a warm search)", "ms", cost, note=note),
    ]


@benchmark("search_write_cost", "search", "gridgit write: this checkout / the base ($GRIDGIT_BENCH_BASE)")
def search_write_cost(cfg: Config, ws: Workspace) -> list[Row]:
    """`gridgit write` of this checkout against the same command of a base (main before the search),
    interleaved round by round into two 50-entry phases: what the search added to a write."""
    this, before, named = base.write_against_base(cfg, ws)
    note = f"abs p50 {fmt(percentile(this, 50), 'ms')} vs base {fmt(percentile(before, 50), 'ms')}; base: {named}"
    return [Row("search_write_cost", "gridgit write (50-entry phase): this / base", "x", ratios(this, before),
                [Target("p50", "<=", 1.05)], note)]  # fmt: skip
