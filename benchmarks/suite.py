"""The registry of benchmarks: each one a function of (config, workspace) returning table rows."""

from __future__ import annotations

import importlib
import os
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass

from benchmarks.harness import Config, Row, Unavailable, Workspace

BenchFunc = Callable[[Config, Workspace], list[Row]]


@dataclass(frozen=True)
class Benchmark:
    name: str
    group: str
    title: str
    func: BenchFunc


REGISTRY: dict[str, Benchmark] = {}


def benchmark(name: str, group: str, title: str) -> Callable[[BenchFunc], BenchFunc]:
    """Register FUNC as benchmark NAME; TITLE labels its row when it cannot run."""

    def register(func: BenchFunc) -> BenchFunc:
        REGISTRY[name] = Benchmark(name, group, title, func)
        return func

    return register


def load_all() -> dict[str, Benchmark]:
    # Importing a module registers its benchmarks: this order is the table's order.
    for module in (
        "inprocess",
        "yaml_codec",
        "process",
        "hooks",
        "locks",
        "agents",
        "concurrency",
        "watcher",
        "scale",
        "foresight",
        "serve",
        "gridref",
        "autosync",
        "many_clones",
        "mcp_server",
        "search",
        "faults",
        "activity",
        "queue",
        "claims",
    ):
        importlib.import_module(f"benchmarks.{module}")

    return REGISTRY


def select(names: list[str] | None) -> list[Benchmark]:
    """Benchmarks whose name or group is in NAMES (all of them when NAMES is empty)."""
    every = list(load_all().values())
    if not names:
        return every
    unknown = [n for n in names if not any(n in (b.name, b.group) for b in every)]
    if unknown:
        raise SystemExit(f"unknown benchmark(s): {', '.join(unknown)}; known: {', '.join(REGISTRY)}")
    return [b for b in every if b.name in names or b.group in names]


def run_one(bench: Benchmark, cfg: Config, ws: Workspace, log: Callable[[str], None]) -> list[Row]:
    """Run BENCH; a missing feature or a crash becomes a row saying so, never a failed run."""
    start = time.perf_counter()
    log(f"[{bench.name}] ...")
    try:
        rows = bench.func(cfg, ws)
    except Unavailable as exc:
        rows = [Row(bench.name, bench.title, "ms", error=str(exc))]
    except Exception as exc:
        detail = traceback.format_exc(limit=3).strip().splitlines()
        rows = [Row(bench.name, bench.title, "ms", error=f"{type(exc).__name__}: {exc}"[:300])]
        log("\n".join(detail[-6:]))
    load = os.getloadavg()[0]
    for row in rows:
        row.load = round(load, 2)
    log(f"[{bench.name}] {time.perf_counter() - start:.1f} s, load {load:.2f}")
    return rows
