"""Liveness from activity (issues 35 and 36): what recording a sign of work costs, against the STATE
write a heartbeat stamp is; why a hook records the one on every sign and the other at most every
five minutes."""

from __future__ import annotations

import itertools

from benchmarks.harness import Config, Row, Workspace, measure
from benchmarks.suite import benchmark

AGENTS = 8  # registered agents: STATE as a busy mission has it


@benchmark("activity", "inprocess", "a sign of work vs a STATE heartbeat stamp")
def activity(cfg: Config, ws: Workspace) -> list[Row]:
    from gridgit import Blackboard
    from gridgit.coordination import activity as activity_mod
    from gridgit.coordination import heartbeat
    from gridgit.store import clock

    path = ws.grid_repo("activity")
    board = Blackboard(path)
    for n in range(1, AGENTS + 1):
        board.register_agent(f"executor-{n:03d}", f"task {n}", None, None, f"executor-{n:03d}")
    layout = board.layout
    beats = itertools.count()
    activity_mod.record(layout, "executor-001", "bench")  # its first sign: the clock of its STATE stamps starts

    def sign() -> None:
        activity_mod.record(layout, "executor-001", f"touch {next(beats)}")

    def stamp() -> None:
        heartbeat.stamp(layout, "executor-002", clock.iso(clock.now_seconds() + next(beats)), "bench")

    signs = measure(sign, cfg.repeats(200, 5), cfg.warmup(10, 1))
    stamps = measure(stamp, cfg.repeats(100, 5), cfg.warmup(5, 1))
    return [
        Row("activity", "a sign of work (activity.record: one small file, no fsync)", "ms", signs),
        Row("activity", f"a heartbeat stamp (heartbeat.stamp: STATE rewritten, {AGENTS} agents)", "ms", stamps),
    ]
