"""The work queue's `ready` on 200 blocks (issue 35, item 3): with the files of every block checked against the
blocks in progress and other agents' exclusive claims, against the same queue whose blocks name no files (the
check has nothing to do), interleaved round by round.

It uses only what the branch's base had too (`Blackboard.ready()`, `Block`, `blocks.write_plan`,
`claims.claim`), so the same file runs against an export of the base (`PYTHONPATH`) for a side-by-side figure.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from benchmarks.harness import Config, Row, Workspace, interleaved, ratios
from benchmarks.suite import benchmark

if TYPE_CHECKING:
    from gridgit import Blackboard

BLOCKS = 200
HELD = 10  # blocks in progress, each by its own agent (their files claimed exclusively, as a take does)
CLAIMS = 10  # other agents' exclusive claims of their own


PHASES = 4  # of 50 blocks each, all in progress (a block number has two digits: 99 at most per phase)


def _queue(ws: Workspace, name: str, with_files: bool, blocks: int) -> Blackboard:
    from gridgit import Blackboard
    from gridgit.coordination import claims
    from gridgit.model import state
    from gridgit.store import clock
    from gridgit.store.layout import Layout
    from gridgit.work import blocks as blocks_mod
    from gridgit.work.blockfile import Block

    path = ws.grid_repo(name)
    layout = Layout.find(path)
    phases = [f"0{n}-part{n}" for n in range(1, PHASES + 1)]
    opened = [{"id": p, "name": p, "status": "in_progress"} for p in phases]
    state.update_with(layout, lambda st: {"phases": {"definitions": opened}}, "mc", "bench", check_permission=False)
    per_phase = -(-blocks // PHASES)
    for n in range(blocks):
        phase = phases[n // per_phase]
        files = [f"src/mod{n % 40}/part{n}.py", f"tests/mod{n % 40}/**"] if with_files else []
        block = Block(f"{phase[:2]}-{n % per_phase + 1:02d}", phase, name=f"block {n}", files=files)
        if n < HELD:  # in progress, its files claimed as a take claims them
            block.status, block.owner, block.taken_at = "taken", f"executor-{n + 1:03d}", clock.now_iso()
            if files:
                claims.claim(layout, files, str(block.owner), exclusive=True, reason=f"block {block.block_id}")
        blocks_mod.write_plan(layout, block)
    for n in range(CLAIMS if with_files else 0):
        claims.claim(layout, [f"src/mod{n}/shared.py"], f"executor-{500 + n:03d}", exclusive=True)
    return Blackboard(path)


@benchmark("queue", "inprocess", "ready on 200 blocks: the overlap check against none")
def queue(cfg: Config, ws: Workspace) -> list[Row]:
    size = cfg.size(BLOCKS, 30)
    checked = _queue(ws, "queue-files", True, size)
    bare = _queue(ws, "queue-bare", False, size)
    with_check, without = interleaved(
        [lambda: checked.ready(), lambda: bare.ready()],
        cfg.repeats(40, 3),
        cfg.warmup(3, 1),
    )
    offered = len(checked.ready())
    note = f"{offered} of {size} blocks ready, {HELD} in progress, {CLAIMS} other exclusive claims"
    return [
        Row("queue", f"ready, {size} blocks with files ({note})", "ms", with_check),
        Row("queue", f"ready, the same {size} blocks without files", "ms", without),
        Row("queue", "ready with files / without (per round)", "x", ratios(with_check, without)),
    ]
