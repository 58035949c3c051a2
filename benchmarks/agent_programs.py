"""The real agent programs with gridgit's hooks and without: one scripted session's wall time, and each hook's time.

`python -m benchmarks.agent_programs [--rounds N] [--only TOOL,...]` plays one short scripted
session per round (write two files, run a shell command, answer) with each agent program of the
end-to-end tier (tests/e2e/: the pinned CLIs, the scripted model on loopback), in a fresh
repository each time: once after `gridgit init` and `gridgit setup TOOL` and once after
`gridgit init` alone, interleaved round by round, so both see the same machine. Each hook
runs through GRIDGIT_BIN set to a wrapper that times the `gridgit agent-hook TOOL EVENT`
process it starts, as the program starts it.

Not in `python -m benchmarks`: it needs the agent programs, which the end-to-end tier
installs with npm (about 1.3 GB). Medians of 5 rounds by default; the machine's load average
is printed with the figures.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from tests.e2e import programs
from tests.e2e.drivers import DRIVERS
from tests.e2e.modelserver import say
from tests.e2e.session import GRIDGIT_BIN, World

WRAPPER = """#!/bin/sh
# times one gridgit process as the agent program starts it: `agent-hook TOOL EVENT` and its microseconds
start=$(date +%s%N)
"{gridgit}" "$@"
code=$?
end=$(date +%s%N)
echo "$3 $(( (end - start) / 1000 ))" >> "{log}"
exit $code
"""


def session(tool: str, root: Path, hooks: bool, log: Path) -> float:
    """One scripted session of TOOL in a new repository under ROOT (gridgit's hooks set up or not); its seconds."""
    world = World.make(tool, root, setup=hooks)
    driver = DRIVERS[tool]()
    wrapper = root / "gridgit-timed"
    wrapper.write_text(WRAPPER.format(gridgit=Path(GRIDGIT_BIN) / "gridgit", log=log), encoding="utf-8")
    wrapper.chmod(0o755)
    steps = [
        *driver.write(world.repo / "src/app.py", world.repo, "VALUE = 1\n"),
        *driver.write(world.repo / "src/util.py", world.repo, "HELP = 'util'\n"),
        driver.shell("git status --short"),
        say("Both files are written."),
    ]
    run = world.session(steps, agent_id="executor-101", env={"GRIDGIT_BIN": str(wrapper)})
    if run.returncode != 0:
        raise RuntimeError(run.describe())
    return run.seconds


def measure(tool: str, rounds: int, root: Path) -> tuple[list[float], list[float], dict[str, list[float]]]:
    """(seconds with hooks, seconds without, each hook event's milliseconds) over ROUNDS interleaved rounds."""
    with_hooks: list[float] = []
    without: list[float] = []
    log = root / f"{tool}-hooks.log"
    for n in range(rounds):
        with_hooks.append(session(tool, root / f"{tool}-with-{n}", True, log))
        without.append(session(tool, root / f"{tool}-without-{n}", False, root / "unused.log"))
    times: dict[str, list[float]] = {}
    for line in log.read_text(encoding="utf-8").splitlines() if log.exists() else []:
        event, micros = line.split()
        times.setdefault(event, []).append(int(micros) / 1000)
    return with_hooks, without, times


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.agent_programs", description=__doc__)
    parser.add_argument("--rounds", type=int, default=5, help="sessions with and without hooks per tool (default 5)")
    parser.add_argument("--only", default=",".join(programs.TOOLS), help="comma-separated tools (default: all)")
    args = parser.parse_args(argv)
    tools = [t for t in args.only.split(",") if t]
    print(f"load average at the start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    sessions, hooks = [], []
    with tempfile.TemporaryDirectory(prefix="gridgit-agent-programs-") as folder:
        for tool in tools:
            programs.executable(tool)  # installed (once) before anything is timed
            with_hooks, without, times = measure(tool, args.rounds, Path(folder))
            a, b = statistics.median(with_hooks), statistics.median(without)
            sessions.append(f"| {tool} | {a:.2f} s | {b:.2f} s | {a - b:+.2f} s ({a / b:.2f}x) |")
            for event, ms in sorted(times.items()):
                hooks.append(f"| {tool} | {event} | {len(ms)} | {statistics.median(ms):.0f} ms | {max(ms):.0f} ms |")
            print(sessions[-1], flush=True)
    print(f"load average at the end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"\n| tool | session with gridgit's hooks (median of {args.rounds}) | without | difference |")
    print("|---|---|---|---|")
    print("\n".join(sessions))
    print("\n| tool | hook event | runs | p50 | max |\n|---|---|---|---|---|")
    print("\n".join(hooks))
    return 0


if __name__ == "__main__":
    started = time.monotonic()
    code = main()
    print(f"\n({time.monotonic() - started:.0f} s)", file=sys.stderr)
    sys.exit(code)
