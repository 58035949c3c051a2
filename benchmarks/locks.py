"""filelock against gridgit's own flock locks (`gridgit.store.locks`): import, one lock, a busy lock.

Why measured: issue 17 asked for a lock without asyncio's import, and issue 13's load test
(16 writers) saw lock timeouts while waiters polled. The busy row runs the same workload
with each implementation: 16 processes, each taking the lock 40 times to rewrite a 400 KB
file atomically after ~2 ms of CPU (a re-render), both with a 5 s timeout (filelock polled
every 2 ms, as gridgit did).
"""

from __future__ import annotations

import json
import subprocess

from benchmarks.harness import PYTHON, Config, Row, Target, Workspace, interleaved, measure, ratios, runner
from benchmarks.suite import benchmark

_WORKER = """
import json, sys, time
from pathlib import Path
from gridgit.store import fileio
impl, target, count = sys.argv[1], Path(sys.argv[2]), int(sys.argv[3])
if impl == "filelock":
    from filelock import FileLock, Timeout
    def take():
        lock = FileLock(str(target.parent / ".data.lock"), timeout=5)
        lock.acquire(poll_interval=0.002)
        return lock.release
else:
    from gridgit.errors import LockTimeout as Timeout
    from gridgit.store.locks import locked
    def take():
        ctx = locked(target, timeout=5)
        ctx.__enter__()
        return lambda: ctx.__exit__(None, None, None)
waits, timeouts = [], 0
sys.stdin.readline()
for i in range(count):
    start = time.perf_counter()
    try:
        release = take()
    except Timeout:
        timeouts += 1
        continue
    waits.append(time.perf_counter() - start)
    text = target.read_text()
    spin = time.process_time() + 0.002
    while time.process_time() < spin:
        pass
    fileio.atomic_write(target, text[-400_000:] + f"{i}\\n")
    release()
print(json.dumps({"waits": waits, "timeouts": timeouts}))
"""


def _busy(ws: Workspace, impl: str, workers: int, count: int) -> tuple[list[float], int, float]:
    """(waits in ms, timeouts, wall ms) of WORKERS processes released together."""
    import time

    folder = ws.root / f"locks-{impl}"
    folder.mkdir(exist_ok=True)
    target = folder / "data.md"
    target.write_text("x" * 400_000)
    procs = [
        subprocess.Popen(
            [PYTHON, "-c", _WORKER, impl, str(target), str(count)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=ws.env,
        )
        for _ in range(workers)
    ]
    time.sleep(1.0)  # let every worker finish its imports
    start = time.perf_counter()
    for proc in procs:
        assert proc.stdin is not None
        proc.stdin.write("go\n")
        proc.stdin.flush()
    results = [json.loads(proc.communicate(timeout=600)[0]) for proc in procs]
    wall = (time.perf_counter() - start) * 1000
    waits = [w * 1000 for r in results for w in r["waits"]]
    return waits, sum(r["timeouts"] for r in results), wall


@benchmark("locks", "locks", "filelock vs gridgit.store.locks")
def locks(cfg: Config, ws: Workspace) -> list[Row]:
    rows: list[Row] = []
    # The import a writing command pays: separate processes, interleaved.
    imports = interleaved(
        [
            runner([PYTHON, "-c", "import filelock"], ws.root, ws.env),
            runner([PYTHON, "-c", "import gridgit.store.locks"], ws.root, ws.env),
            runner([PYTHON, "-c", "pass"], ws.root, ws.env),
        ],
        cfg.repeats(20, 3),
        cfg.warmup(),
    )
    added = {name: [a - b for a, b in zip(side, imports[2], strict=True)] for name, side in
             (("filelock", imports[0]), ("flock", imports[1]))}  # fmt: skip
    rows.append(Row("locks", "import filelock: added to `python -c pass`", "ms", added["filelock"]))
    rows.append(Row("locks", "import gridgit.store.locks: added to `python -c pass`", "ms", added["flock"]))
    # One uncontended lock and release, in process (1,000 per sample).
    from filelock import FileLock

    from gridgit.store.locks import locked

    target = ws.root / "one" / "STATE.md"
    target.parent.mkdir()

    def filelock_once() -> None:
        for _ in range(1000):
            with FileLock(str(target.parent / ".state.lock"), timeout=5):
                pass

    def flock_once() -> None:
        for _ in range(1000):
            with locked(target, timeout=5):
                pass

    one_fl = measure(filelock_once, cfg.repeats(7, 2), 1)
    one_gl = measure(flock_once, cfg.repeats(7, 2), 1)
    rows.append(Row("locks", "filelock: take + release, uncontended", "us", one_fl))
    rows.append(Row("locks", "gridgit flock (gate + lock): take + release, uncontended", "us", one_gl))
    rows.append(Row("locks", "gridgit flock / filelock, uncontended", "x", ratios(one_gl, one_fl)))
    # A busy lock.
    workers, count = 16, cfg.size(40, 5)
    for impl in ("filelock", "flock"):
        waits, timeouts, wall = _busy(ws, impl, workers, count)
        label = f"{impl}: {workers} processes x {count} locked rewrites"
        note = f"wall {wall / 1000:.1f} s; max wait {max(waits, default=0):.0f} ms"
        rows.append(Row("locks", f"{label}: wait for the lock", "ms", waits, note=note))
        rows.append(Row("locks", f"{label}: timeouts (5 s)", "count", [float(timeouts)], [Target("max", "<=", 0)]))
    return rows
