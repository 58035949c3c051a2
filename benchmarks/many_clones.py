"""Many clones on one git host (issue 35, item 5): 10, 20 and 50 clones of one bare origin, each with an
agent writing, claiming, taking and syncing on auto-sync's timer, in simulated time (benchmarks/clonesim.py
says how). `GRIDGIT_BENCH_CLONES="10:60:10,50:10:1"` picks the runs: clones:simulated minutes:speed."""

from __future__ import annotations

import os

from benchmarks.clonereport import Report
from benchmarks.clonesim import Plan, simulate
from benchmarks.harness import Config, Row, Target, Workspace
from benchmarks.suite import benchmark

# Each agent asks for about 0.11 auto-sync runs a simulated second (its timer and its writes); the shared 2-core
# machine runs 4-5 a real second beside the other work. So 10 clones an hour at x10, 20 clones half an hour at x2,
# 50 clones 10 minutes at half real speed (their timers alone would ask for 5.5 runs a second): about 45 minutes.
FULL = ((10, 60.0, 10.0), (20, 30.0, 2.0), (50, 10.0, 0.5))
QUICK = ((3, 1.0, 10.0),)  # with an entry every 15 s of each agent, so that the visibility row has samples


def runs(cfg: Config) -> list[Plan]:
    chosen = os.environ.get("GRIDGIT_BENCH_CLONES", "")
    sizes = [tuple(float(x) for x in part.split(":")) for part in chosen.split(",") if part] if chosen else None
    every = 15.0 if cfg.quick and not sizes else Plan.write_every
    return [Plan(int(n), m, s, write_every=every) for n, m, s in (sizes or (QUICK if cfg.quick else FULL))]


def rows(report: Report) -> list[Row]:
    p = report.plan
    name = f"{p.clones} clones, {p.minutes:g} min at x{p.speed:g}"
    summary = "; ".join(report.lines()[1:])
    zero = [Target("max", "<=", 0.0)]
    faults = [report.lost, report.doubled, report.taken_twice, report.reoffered] + (
        [report.held_twice] if report.held_twice else []
    )
    return [
        Row("many_clones", f"{name}: write -> in every other clone", "s", report.visible, note=summary),
        Row("many_clones", f"{name}: pushes refused and retried per minute", "count", [report.refused_per_minute()]),
        Row("many_clones", f"{name}: lost, doubled, taken or held twice", "count", [float(sum(faults))], zero),
    ]


@benchmark("many_clones", "clones", "clones of one origin syncing on auto-sync's timer: contention and loss")
def many_clones(cfg: Config, ws: Workspace) -> list[Row]:
    out: list[Row] = []
    for plan in runs(cfg):
        out += rows(simulate(plan, ws.root / f"clones-{plan.clones}"))
    return out
