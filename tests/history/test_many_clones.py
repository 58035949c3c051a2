"""Issue 35, item 5: clones of one bare origin, each with an agent writing, claiming, taking and syncing on
auto-sync's timer at once, lose nothing, double nothing and never confirm one block to two agents.

A bounded run of the simulation `python -m benchmarks --only many_clones` runs with 10 to 50 clones
(benchmarks/clonesim.py, the one driver of both): three clones, one simulated minute at ten times real
speed, each agent writing every 6 s and taking a block every 20 s, so pushes meet at the origin.
"""

from __future__ import annotations

from pathlib import Path

from benchmarks.clonesim import Plan, simulate


def test_three_clones_on_one_origin_lose_double_and_take_twice_nothing(tmp_path: Path) -> None:
    plan = Plan(clones=3, minutes=1.0, speed=10.0, write_every=6.0, claim_every=20.0, block_seconds=20.0, blocks=9)
    report = simulate(plan, tmp_path, timeout=600)
    assert report.converged, "the clones hold different grid commits after syncing in turn"
    assert report.writes >= 10 and report.takes + report.provisional >= 3  # work went on while the others synced
    assert (report.lost, report.doubled, report.taken_twice, report.reoffered) == (0, 0, 0, 0), report.lines()
    assert report.held_twice == 0, report.lines()  # claims travel in the grid ref: one holder across clones
    assert report.syncs >= 3  # how many the timers fit in depends on the machine's load: no bar here
    assert len(report.visible) + report.unseen == report.writes
