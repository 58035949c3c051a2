"""In-process figures: one Python API call at a time, in this interpreter."""

from __future__ import annotations

import itertools
from pathlib import Path

from benchmarks import api, fixtures
from benchmarks.fixtures import NEXT_PHASE, PHASE
from benchmarks.harness import Config, Row, Target, Workspace, measure, restore_dir, snapshot_dir
from benchmarks.suite import benchmark

_unique = itertools.count(10_000)


def _pad_repo(ws: Workspace, entries: int, name: str, limit: int | None = None) -> tuple[Path, bytes]:
    """A Blackboard whose phase-01 scratchpad holds ENTRIES entries (archived past LIMIT settled
    ones, when given); returns its bytes to restore."""
    path = ws.grid_repo(name)
    fixtures.fill_scratchpad(path, entries)
    if limit is not None:
        fixtures.raise_pad_limit(path, limit)
    pad = path / ".grid" / "phases" / PHASE / "scratchpad.md"
    return path, pad.read_bytes()


@benchmark("state_read", "inprocess", "STATE read")
def state_read(cfg: Config, ws: Workspace) -> list[Row]:
    path = ws.grid_repo("state")
    read = api.state_read(api.board(path))
    samples = measure(read, cfg.repeats(200, 5), cfg.warmup(20, 1))
    return [Row("state_read", "STATE read (board.state())", "ms", samples, [Target("p50", "<=", 2.0)])]


@benchmark("state_update", "inprocess", "STATE update")
def state_update(cfg: Config, ws: Workspace) -> list[Row]:
    path = ws.grid_repo("state-update")
    update = api.state_update(api.board(path), "mc")
    counter = itertools.count()
    samples = measure(
        lambda: update({"progress": {"percent": next(counter) % 100}}), cfg.repeats(100, 5), cfg.warmup(5, 1)
    )
    return [Row("state_update", "STATE update (one field, locked, + event)", "ms", samples)]


def _write_at(
    cfg: Config,
    ws: Workspace,
    before: int,
    bench: str,
    label: str,
    target: Target,
    expect_archive: bool = False,
    limit: int | None = None,
) -> list[Row]:
    """Write one entry into a scratchpad restored to BEFORE entries before every timed write."""
    path, saved = _pad_repo(ws, before, bench, limit)
    pad = path / ".grid" / "phases" / PHASE / "scratchpad.md"
    archive = pad.with_name("scratchpad_archived.md")
    write = api.writer(api.board(path))

    def restore() -> None:
        # Both files back as they were, so every sample writes (and archives) the same amount.
        pad.write_bytes(saved)
        archive.unlink(missing_ok=True)

    def one() -> None:
        write(PHASE, "executor-002", "discovery", f"bench-{next(_unique)}", fixtures.content(7))

    samples = measure(one, cfg.repeats(100, 5), cfg.warmup(5, 1), setup=restore)
    if archive.exists() != expect_archive:
        # Every sample must do the work its label names: archive exactly when expected.
        did = "archived" if archive.exists() else "did not archive"
        raise RuntimeError(f"the write into {before} entries {did}")
    return [Row(bench, label, "ms", samples, [target])]


@benchmark("write_10", "inprocess", "scratchpad write, 10 entries")
def write_10(cfg: Config, ws: Workspace) -> list[Row]:
    return _write_at(cfg, ws, 9, "write_10", "scratchpad write (10th entry)", Target("p50", "<=", 5.0))


@benchmark("write_50", "inprocess", "scratchpad write, 50 entries")
def write_50(cfg: Config, ws: Workspace) -> list[Row]:
    return _write_at(cfg, ws, 49, "write_50", "scratchpad write (50th entry)", Target("p50", "<=", 5.0))


@benchmark("auto_archive", "inprocess", "auto-archive")
def auto_archive(cfg: Config, ws: Workspace) -> list[Row]:
    # The 51st write into a full 50-entry scratchpad moves the oldest settled ones out (keep 25)
    # and renumbers. Its 10 warnings are open work, which counts toward no limit: the limit is
    # its 40 settled entries.
    return _write_at(
        cfg, ws, 50, "auto_archive", "auto-archive (51st write into 50)", Target("p50", "<=", 50.0), True, limit=40
    )


@benchmark("lookup_topic", "inprocess", "lookup by topic")
def lookup_topic(cfg: Config, ws: Workspace) -> list[Row]:
    path = fixtures.shared_pad_repo(ws, 50)
    lookup = api.topic_lookup(api.board(path))
    found = lookup(PHASE, fixtures.HOT_TOPIC)
    samples = measure(lambda: lookup(PHASE, fixtures.HOT_TOPIC), cfg.repeats(200, 5), cfg.warmup(10, 1))
    note = f"{len(found)} of 50 entries match" if hasattr(found, "__len__") else ""
    return [Row("lookup_topic", "lookup by topic (50 entries)", "ms", samples, [Target("p50", "<=", 2.0)], note)]


@benchmark("full_read", "inprocess", "full read")
def full_read(cfg: Config, ws: Workspace) -> list[Row]:
    path = fixtures.shared_pad_repo(ws, 50)
    read = api.full_read(api.board(path))
    samples = measure(lambda: read(PHASE), cfg.repeats(200, 5), cfg.warmup(10, 1))
    return [Row("full_read", "full read (50 entries)", "ms", samples, [Target("p50", "<=", 10.0)])]


@benchmark("phase_complete", "inprocess", "phase completion")
def phase_complete(cfg: Config, ws: Workspace) -> list[Row]:
    path, _ = _pad_repo(ws, 50, "phase")
    grid = path / ".grid"
    saved = ws.root / "phase-grid-saved"
    snapshot_dir(grid, saved)
    complete = api.complete_phase(api.board(path))
    samples = measure(
        lambda: complete(PHASE, NEXT_PHASE),
        cfg.repeats(30, 3),
        cfg.warmup(2, 1),
        setup=lambda: restore_dir(saved, grid),
    )
    return [
        Row(
            "phase_complete",
            "phase completion (50 entries: archive, promote, carry forward)",
            "ms",
            samples,
            [Target("p50", "<=", 50.0)],
        )
    ]


@benchmark("emit", "inprocess", "event emit")
def emit(cfg: Config, ws: Workspace) -> list[Row]:
    path = ws.grid_repo("emit")
    emit_event = api.emitter(api.board(path))
    payload = {"agent_id": "executor-001", "task": "bench", "parent": "mc"}
    samples = measure(lambda: emit_event("agent_spawned", payload), cfg.repeats(500, 10), cfg.warmup(20, 2))
    return [Row("emit", "event emit", "ms", samples, [Target("p50", "<=", 1.0)])]


@benchmark("conflict_check", "inprocess", "conflict check on a big log")
def conflict_check(cfg: Config, ws: Workspace) -> list[Row]:
    lines = cfg.size(1_000_000, 20_000)
    path = fixtures.event_log_repo(ws, lines)
    check = api.conflict_check(api.board(path))
    # The checking agent touched these paths itself: the check scans the window and finds nothing.
    samples = measure(lambda: check("src/recent_3.py", "executor-001"), cfg.repeats(50, 3), cfg.warmup(3, 1))
    return [
        Row(
            "conflict_check",
            f"conflict check ({lines:,}-event log)",
            "ms",
            samples,
            [Target("p50", "<=", 20.0)],
            "no conflict; 100 events in the window",
        )
    ]


@benchmark("events_poll", "inprocess", "events poll")
def events_poll(cfg: Config, ws: Workspace) -> list[Row]:
    new = cfg.size(10_000, 1_000)
    path = fixtures.event_log_repo(ws, 1_000, recent_touches=0)
    poll = api.poller(api.board(path))
    api.cursor_to_end(api.board(path), "executor-005")

    samples = measure(
        lambda: poll("executor-005"),
        cfg.repeats(20, 3),
        cfg.warmup(1, 1),
        setup=lambda: fixtures.append_filler_events(path, new, age_minutes=1),
    )
    return [Row("events_poll", f"events poll ({new:,} new events)", "ms", samples, [Target("p50", "<=", 200.0)])]


@benchmark("inbox", "inprocess", "inbox fetch on a big log")
def inbox(cfg: Config, ws: Workspace) -> list[Row]:
    lines = cfg.size(1_000_000, 20_000)
    path = fixtures.event_log_repo(ws, lines, recent_touches=0)  # its own log: the setup appends to it
    fetch = api.inboxer(api.board(path))
    fetch("executor-005")  # opens its inbox at the end of the log
    quiet = measure(lambda: fetch("executor-005"), cfg.repeats(100, 5), cfg.warmup(5, 1))
    new = 100
    busy = measure(
        lambda: fetch("executor-005"),
        cfg.repeats(30, 3),
        cfg.warmup(1, 1),
        setup=lambda: fixtures.append_filler_events(path, new, age_minutes=1),
    )
    note = "what every prompt of every agent pays: the log is read forward from the cursor, never from its start"
    return [
        Row("inbox", f"inbox, nothing new ({lines:,}-event log)", "ms", quiet, note=note),
        Row("inbox", f"inbox, {new} new events of other agents ({lines:,}-event log)", "ms", busy),
    ]
