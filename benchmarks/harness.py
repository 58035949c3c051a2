"""Timing, statistics, targets and result rows shared by every benchmark."""

from __future__ import annotations

import gc
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# The interpreter of the venv that runs the benchmarks: floors and the CLI both use it.
PYTHON = sys.executable
BIN = Path(sys.executable).parent
GRIDGIT = str(BIN / "gridgit")

GIT_ENV = {
    "GIT_AUTHOR_NAME": "Grid Bench",
    "GIT_AUTHOR_EMAIL": "bench@example.com",
    "GIT_COMMITTER_NAME": "Grid Bench",
    "GIT_COMMITTER_EMAIL": "bench@example.com",
    "GIT_CONFIG_NOSYSTEM": "1",
}


class Unavailable(Exception):
    """The feature a benchmark measures is not there (yet): the row says so instead of failing the run."""


@dataclass(frozen=True)
class Target:
    """A bar a figure must meet: `p50 <= 5 ms`, `p95 <= 300 ms`, `value >= 150 entries/s`."""

    stat: str  # "p50" | "p90" | "p95" | "max"
    op: str  # "<=" | ">=" | "<"
    value: float

    def met(self, samples: Sequence[float]) -> bool:
        got = max(samples) if self.stat == "max" else percentile(samples, float(self.stat[1:]))
        if self.op == "<=":
            return got <= self.value
        if self.op == "<":
            return got < self.value
        return got >= self.value

    def describe(self, unit: str) -> str:
        return f"{self.stat} {self.op} {fmt(self.value, unit)}"


@dataclass
class Row:
    """One line of the table (and of the JSON)."""

    bench: str
    operation: str
    unit: str  # "ms" | "x" | "%" | "MB" | "entries/s" | "count" | "s"
    samples: list[float] = field(default_factory=list)
    targets: list[Target] = field(default_factory=list)
    note: str = ""
    error: str | None = None
    load: float | None = None  # 1-minute load average when the benchmark finished: how noisy it was

    @property
    def n(self) -> int:
        return len(self.samples)

    @property
    def p50(self) -> float | None:
        return percentile(self.samples, 50) if self.samples else None

    @property
    def p95(self) -> float | None:
        return percentile(self.samples, 95) if self.samples else None

    @property
    def verdict(self) -> str:
        if self.error is not None:
            return "n/a" if self.error.startswith("unavailable") else "ERROR"
        if not self.targets:
            return "info"
        if not self.samples:
            return "ERROR"
        return "ok" if all(t.met(self.samples) for t in self.targets) else "MISS"

    def target_text(self) -> str:
        return ", ".join(t.describe(self.unit) for t in self.targets)

    def to_dict(self) -> dict[str, Any]:
        return {
            "bench": self.bench,
            "operation": self.operation,
            "n": self.n,
            "unit": self.unit,
            "p50": self.p50,
            "p95": self.p95,
            "target": self.target_text() or None,
            "verdict": self.verdict,
            "note": self.note or None,
            "error": self.error,
            "load": self.load,
        }


def percentile(values: Sequence[float], pct: float) -> float:
    """Linear-interpolated percentile (numpy's default), so p50 of two samples is their mean."""
    ordered = sorted(values)
    if len(ordered) == 1:
        return ordered[0]
    rank = (len(ordered) - 1) * pct / 100
    low = math.floor(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def fmt(value: float | None, unit: str) -> str:
    if value is None:
        return "-"
    if unit == "ms":
        return f"{value:.3f} ms" if value < 1 else f"{value:.1f} ms" if value < 1000 else f"{value / 1000:.2f} s"
    if unit == "x":
        return f"{value:.2f}x"
    if unit == "%":
        return f"{value:.2f} %"
    if unit in ("count",):
        return f"{value:g}"
    return f"{value:,.1f} {unit}"


def ms_since(start_ns: int) -> float:
    return (time.perf_counter_ns() - start_ns) / 1e6


@dataclass
class Config:
    """Sizes and repeats of one run: the full run, or the tiny `--quick` smoke run."""

    quick: bool

    def repeats(self, full: int, quick: int = 3) -> int:
        return quick if self.quick else full

    def warmup(self, full: int = 3, quick: int = 1) -> int:
        return quick if self.quick else full

    def size(self, full: int, quick: int) -> int:
        return quick if self.quick else full


def measure(
    func: Callable[[], object],
    repeats: int,
    warmup: int,
    setup: Callable[[], object] | None = None,
) -> list[float]:
    """Run FUNC WARMUP times untimed, then REPEATS times timed (ms); SETUP runs untimed before each call.

    The collector is paused while timing so one GC pass does not land on one unlucky sample.
    """
    for _ in range(warmup):
        if setup is not None:
            setup()
        func()
    samples: list[float] = []
    for _ in range(repeats):
        if setup is not None:
            setup()
        gc_was = gc.isenabled()
        gc.disable()
        try:
            start = time.perf_counter_ns()
            func()
            samples.append(ms_since(start))
        finally:
            if gc_was:
                gc.enable()
    return samples


def interleaved(
    runners: Sequence[Callable[[], object]],
    repeats: int,
    warmup: int,
    setups: Sequence[Callable[[], object] | None] | None = None,
) -> list[list[float]]:
    """Time each runner in turn, round after round (A, B, A, B ...): noise hits every side alike.

    SETUPS (one per runner, or None) run untimed just before their runner, every time.
    Returns one list of ms per runner, aligned by round, so ratios can be taken pair by pair.
    """
    prepare = list(setups) if setups is not None else [None] * len(runners)
    for _ in range(warmup):
        for setup, run in zip(prepare, runners, strict=True):
            if setup is not None:
                setup()
            run()
    rounds: list[list[float]] = [[] for _ in runners]
    for _ in range(repeats):
        for i, (setup, run) in enumerate(zip(prepare, runners, strict=True)):
            if setup is not None:
                setup()
            start = time.perf_counter_ns()
            run()
            rounds[i].append(ms_since(start))
    return rounds


def ratios(numerators: Sequence[float], denominators: Sequence[float]) -> list[float]:
    return [a / b for a, b in zip(numerators, denominators, strict=True) if b > 0]


# ---- processes and repositories ---------------------------------------------------------


def bench_env(home: Path, agent: str | None = None, **extra: str) -> dict[str, str]:
    """A clean environment: no user git config, no hooks of the user's, a known identity."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GRID_", "GRIDGIT_", "GIT_"))}
    env.update(GIT_ENV)
    env["HOME"] = str(home)
    env["PRE_COMMIT_HOME"] = str(home / ".cache" / "pre-commit")
    # An installed gridgit runs from cached bytecode; with PYTHONDONTWRITEBYTECODE every process
    # would recompile gridgit's modules from source (about 20 ms) while the floors' libraries,
    # compiled by pip, would not. Cache bytecode in the workspace, never in the checkout.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(home.parent / "pycache")
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"  # gridgit on PATH, as its users have it
    if agent is not None:
        env["GRID_AGENT_ID"] = agent
    env.update(extra)
    return env


def run(args: Sequence[str], cwd: Path, env: dict[str, str], check: bool = True, input_text: str | None = None) -> str:
    proc = subprocess.run(list(args), cwd=cwd, env=env, capture_output=True, text=True, input=input_text)
    if check and proc.returncode != 0:
        raise _failure(args, proc.returncode, proc.stderr or proc.stdout)
    return proc.stdout


def _failure(args: Sequence[str], code: int, output: str) -> Exception:
    """A failed command; a gridgit command whose module has not landed yet is Unavailable."""
    last = _last_line(output)
    if "No module named 'gridgit." in last or "No such command" in last:
        return Unavailable(f"unavailable: {_short(args)}: {last}")
    return RuntimeError(f"{_short(args)} exited {code}: {last}")


def _short(args: Sequence[str]) -> str:
    """The command for an error message: program name and the first few arguments."""
    shown = [Path(args[0]).name, *(a if len(a) < 40 else a[:37] + "..." for a in args[1:5])]
    return " ".join(shown) + (" ..." if len(args) > 5 else "")


def _last_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1].strip() if lines else "(no output)"


def runner(args: Sequence[str], cwd: Path, env: dict[str, str], ok: tuple[int, ...] = (0,)) -> Callable[[], None]:
    """A zero-argument callable running ARGS to completion (output discarded; an exit code not in OK raised)."""
    argv = list(args)

    def go() -> None:
        proc = subprocess.run(argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        if proc.returncode not in ok:
            raise _failure(argv, proc.returncode, proc.stderr.decode())

    return go


class Workspace:
    """A temp folder holding the run's repositories; removed at the end."""

    def __init__(self) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="gridgit-bench-")).resolve()
        self.home = self.root / "home"
        self.home.mkdir()
        self.env = bench_env(self.home)
        self._count = 0

    def git_repo(self, name: str | None = None) -> Path:
        """A real git repository with one commit."""
        self._count += 1
        path = self.root / (name or f"repo{self._count}")
        if path.exists():  # a half-built repo of a benchmark that failed: never reuse it
            path = self.root / f"{path.name}-{self._count}"
        path.mkdir()
        run(["git", "init", "-q", "-b", "main"], path, self.env)
        (path / "README.md").write_text("# bench repo\n", encoding="utf-8")
        run(["git", "add", "README.md"], path, self.env)
        run(["git", "commit", "-q", "-m", "initial"], path, self.env)
        return path

    def grid_repo(self, name: str | None = None, hooks: bool = False) -> Path:
        """A git repository with `gridgit init` run through the real CLI (phases 01 and 02)."""
        path = self.git_repo(name)
        args = [GRIDGIT, "init", "--mission", "Bench", "--phase", "01-foundation:Foundation", "--phase", "02-core:Core"]
        if not hooks and "--no-hooks" in run([GRIDGIT, "init", "--help"], path, self.env):
            args.append("--no-hooks")
        run(args, path, self.env)
        return path

    def cleanup(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)


@contextmanager
def workspace() -> Iterator[Workspace]:
    ws = Workspace()
    try:
        yield ws
    finally:
        ws.cleanup()


def snapshot_dir(src: Path, dest: Path) -> None:
    """Copy SRC to DEST (replacing it): a saved .grid/ to restore before each timed run."""
    if dest.exists():
        shutil.rmtree(dest)
    shutil.copytree(src, dest, symlinks=True)


def restore_dir(saved: Path, target: Path) -> None:
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(saved, target, symlinks=True)
