"""Many writers at once: throughput and, above all, lost entries (counted from the files)."""

from __future__ import annotations

import multiprocessing
import re
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from benchmarks import api
from benchmarks.fixtures import PHASE, raise_pad_limit
from benchmarks.harness import GRIDGIT, Config, Row, Target, Workspace, bench_env, run
from benchmarks.suite import benchmark

_MARK_RE = re.compile(r"M(\d{2})x(\d{4})Z")


def marker(worker: int, i: int) -> str:
    return f"M{worker:02d}x{i:04d}Z"


def _content(worker: int, i: int) -> str:
    return f"Concurrent finding {marker(worker, i)} from worker {worker}: write number {i}."


def count_lost(path: Path, workers: int, per_worker: int) -> tuple[int, int]:
    """(lost, duplicated) entries: each marker must appear exactly once in scratchpad + archive."""
    folder = path / ".grid" / "phases" / PHASE
    seen: dict[tuple[int, int], int] = {}
    for name in ("scratchpad.md", "scratchpad_archived.md"):
        file = folder / name
        if file.exists():
            for match in _MARK_RE.finditer(file.read_text(encoding="utf-8")):
                key = (int(match.group(1)), int(match.group(2)))
                seen[key] = seen.get(key, 0) + 1
    expected = {(w, i) for w in range(workers) for i in range(per_worker)}
    lost = len(expected - seen.keys())
    duplicated = sum(n - 1 for key, n in seen.items() if key in expected and n > 1)
    return lost, duplicated


def _api_worker(path: str, worker: int, count: int, ready: Any, go: Any, done: Any) -> None:
    """Runs in a fresh interpreter: imports first, then waits so only the writes are timed."""
    board = api.board(Path(path))
    write = api.writer(board)
    ready.put(worker)
    go.wait()
    agent = f"executor-{worker + 1:03d}"
    for i in range(count):
        write(PHASE, agent, "discovery", f"conc-{worker}-{i}", _content(worker, i))
    done.put((worker, time.monotonic()))


def _api_round(path: Path, workers: int, count: int) -> float:
    """One round of WORKERS processes x COUNT writes; returns the wall time in ms."""
    ctx = multiprocessing.get_context("spawn")
    ready, done, go = ctx.Queue(), ctx.Queue(), ctx.Event()
    procs = [ctx.Process(target=_api_worker, args=(str(path), w, count, ready, go, done)) for w in range(workers)]
    for proc in procs:
        proc.start()
    for _ in procs:
        ready.get(timeout=120)
    start = time.monotonic()
    go.set()
    ends = [done.get(timeout=600)[1] for _ in procs]
    for proc in procs:
        proc.join(timeout=60)
        if proc.exitcode != 0:
            raise RuntimeError(f"API writer exited {proc.exitcode}")
    return float(max(ends) - start) * 1000


@benchmark("concurrent_api", "concurrency", "8 processes x 100 API writes")
def concurrent_api(cfg: Config, ws: Workspace) -> list[Row]:
    workers, count = 8, cfg.size(100, 10)
    walls: list[float] = []
    lost: list[float] = []
    dups = 0
    for r in range(cfg.repeats(3, 1)):
        path = ws.grid_repo(f"conc-api-{r}")
        walls.append(_api_round(path, workers, count))
        missing, doubled = count_lost(path, workers, count)
        lost.append(missing)
        dups += doubled
    label = f"{workers} processes x {count} API writes"
    return _rows("concurrent_api", label, workers * count, walls, lost, dups, [Target("p50", ">=", 250.0)])


@benchmark("concurrent_cli", "concurrency", "8 processes x 25 gridgit write")
def concurrent_cli(cfg: Config, ws: Workspace) -> list[Row]:
    workers, count = 8, cfg.size(25, 2)
    walls: list[float] = []
    lost: list[float] = []
    dups = 0
    for r in range(cfg.repeats(2, 1)):
        path = ws.grid_repo(f"conc-cli-{r}")

        def worker(w: int, path: Path = path) -> None:
            env = bench_env(ws.home, agent=f"executor-{w + 1:03d}")
            for i in range(count):
                args = ["write", "--category", "discovery", "--topic", f"conc-{w}-{i}", "--content", _content(w, i)]
                run([GRIDGIT, *args], path, env)

        start = time.monotonic()
        with ThreadPoolExecutor(max_workers=workers) as pool:
            list(pool.map(worker, range(workers)))
        walls.append((time.monotonic() - start) * 1000)
        missing, doubled = count_lost(path, workers, count)
        lost.append(missing)
        dups += doubled
    label = f"{workers} processes x {count} `gridgit write`"
    return _rows("concurrent_cli", label, workers * count, walls, lost, dups, [])


@benchmark("concurrent_cli_load", "concurrency", "16 processes x 200 gridgit write, a phase of up to 1,800 entries")
def concurrent_cli_load(cfg: Config, ws: Workspace) -> list[Row]:
    """Issue 13's load test: every call must succeed (no lock timeout), nothing lost.

    The phase may grow to 1,800 entries, so late writes re-render a large file under the
    lock: waiters queue for seconds, and the default lock timeout must not end their wait.
    """
    import subprocess

    workers, count = 16, cfg.size(200, 4)
    path = ws.grid_repo("conc-cli-load")
    raise_pad_limit(path, 1800)
    codes: dict[int, int] = {}
    calls: list[float] = []

    def worker(w: int) -> None:
        env = bench_env(ws.home, agent=f"executor-{w + 1:03d}")
        for i in range(count):
            args = ["write", "--category", "discovery", "--topic", f"load-{w}-{i}", "--content", _content(w, i)]
            start = time.monotonic()
            proc = subprocess.run([GRIDGIT, *args], cwd=path, env=env, capture_output=True)
            calls.append((time.monotonic() - start) * 1000)
            codes[proc.returncode] = codes.get(proc.returncode, 0) + 1

    start = time.monotonic()
    with ThreadPoolExecutor(max_workers=workers) as pool:
        list(pool.map(worker, range(workers)))
    wall = time.monotonic() - start
    missing, doubled = count_lost(path, workers, count)
    label = f"{workers} processes x {count} `gridgit write`"
    failed = sum(n for code, n in codes.items() if code != 0)
    note = f"wall {wall:.0f} s; exit codes {dict(sorted(codes.items()))}; slowest call {max(calls) / 1000:.1f} s"
    return [
        Row("concurrent_cli_load", f"{label}: one call", "ms", calls, note=note),
        Row(
            "concurrent_cli_load",
            f"{label}: lock timeouts (exit 5)",
            "count",
            [float(codes.get(5, 0))],
            [Target("max", "<=", 0)],
        ),
        Row("concurrent_cli_load", f"{label}: failed calls", "count", [float(failed)], [Target("max", "<=", 0)]),
        Row(
            "concurrent_cli_load",
            f"{label}: lost entries",
            "count",
            [float(missing)],
            [Target("max", "<=", 0)],
            f"scratchpad + archive; {doubled} duplicated",
        ),
    ]


def _rows(
    name: str, label: str, total: int, walls: list[float], lost: list[float], dups: int, throughput: list[Target]
) -> list[Row]:
    """Wall time, throughput and lost entries of one concurrency benchmark."""
    return [
        Row(name, f"{label}: wall time", "ms", walls),
        Row(name, f"{label}: throughput", "entries/s", [total / (w / 1000) for w in walls], throughput),
        Row(
            name,
            f"{label}: lost entries",
            "count",
            lost,
            [Target("max", "<=", 0)],
            f"scratchpad + archive; {dups} duplicated",
        ),
    ]
