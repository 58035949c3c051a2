"""Whole-process figures: the real `gridgit` CLI as a ratio to the import floor of its dependencies."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from pathlib import Path

from benchmarks import fixtures
from benchmarks.harness import (
    GRIDGIT,
    PYTHON,
    Config,
    Row,
    Target,
    Workspace,
    bench_env,
    fmt,
    interleaved,
    percentile,
    ratios,
    runner,
)
from benchmarks.suite import benchmark

# What the command cannot avoid: starting the interpreter and importing its dependencies.
FLOOR_CLICK = [PYTHON, "-c", "import click"]
FLOOR_DEPS = [PYTHON, "-c", "import click, yaml"]


def _pair(
    cfg: Config,
    bench: str,
    label: str,
    command: Callable[[], None],
    floor: list[str],
    cwd: Path,
    ws: Workspace,
    target: float | None,
) -> list[Row]:
    floor_run = runner(floor, cwd, ws.env)
    cmd_ms, floor_ms = interleaved([command, floor_run], cfg.repeats(40, 3), cfg.warmup(3, 1))
    note = f"abs p50 {fmt(percentile(cmd_ms, 50), 'ms')} vs floor {fmt(percentile(floor_ms, 50), 'ms')}"
    targets = [Target("p50", "<=", target)] if target is not None else []
    return [Row(bench, label, "x", ratios(cmd_ms, floor_ms), targets, note)]


@benchmark("cli_version", "process", "gridgit --version / floor")
def cli_version(cfg: Config, ws: Workspace) -> list[Row]:
    cwd = ws.root
    return _pair(
        cfg,
        "cli_version",
        "gridgit --version / `import click`",
        runner([GRIDGIT, "--version"], cwd, ws.env),
        FLOOR_CLICK,
        cwd,
        ws,
        1.1,
    )


@benchmark("cli_write", "process", "gridgit write / floor")
def cli_write(cfg: Config, ws: Workspace) -> list[Row]:
    path = ws.grid_repo("cli-write")
    fixtures.fill_scratchpad(path, 50)
    fixtures.raise_pad_limit(path, 1000)  # 50 entries and up: no auto-archive inside the samples
    env = bench_env(ws.home, agent="executor-003")
    counter = itertools.count()

    def write() -> None:
        i = next(counter)
        runner(
            [GRIDGIT, "write", "--category", "discovery", "--topic", f"cli-{i}", "--content", fixtures.content(i)],
            path,
            env,
        )()

    return _pair(
        cfg, "cli_write", "gridgit write (50-entry phase) / `import click, yaml`", write, FLOOR_DEPS, path, ws, 1.15
    )


@benchmark("cli_read", "process", "gridgit read --topic / floor")
def cli_read(cfg: Config, ws: Workspace) -> list[Row]:
    path = fixtures.shared_pad_repo(ws, 50)
    command = runner([GRIDGIT, "read", "--topic", fixtures.HOT_TOPIC], path, ws.env)
    return _pair(cfg, "cli_read", "gridgit read --topic / `import click, yaml`", command, FLOOR_DEPS, path, ws, None)


@benchmark("cli_status", "process", "gridgit status / floor")
def cli_status(cfg: Config, ws: Workspace) -> list[Row]:
    path = fixtures.shared_pad_repo(ws, 50)
    command = runner([GRIDGIT, "status"], path, ws.env)
    return _pair(cfg, "cli_status", "gridgit status / `import click, yaml`", command, FLOOR_DEPS, path, ws, None)
