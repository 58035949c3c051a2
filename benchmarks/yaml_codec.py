"""The frontmatter codec: yamlfast against PyYAML on gridgit's own files, and what importing it costs.

Run alone with `python -m benchmarks.yaml_codec` (prints the same table as the suite).
"""

from __future__ import annotations

import itertools
import statistics
import subprocess
import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from benchmarks import api, fixtures
from benchmarks.fixtures import PHASE
from benchmarks.harness import (
    PYTHON,
    Config,
    Row,
    Target,
    Workspace,
    bench_env,
    interleaved,
    measure,
    ratios,
    runner,
)
from benchmarks.suite import benchmark


def _frontmatters(cfg: Config, ws: Workspace) -> list[tuple[str, str]]:
    """(label, yaml text) of STATE.md after `gridgit init` and of 50- and 200-entry scratchpads."""
    from gridgit.store import frontmatter

    small = fixtures.shared_pad_repo(ws, cfg.size(50, 5))
    big = ws.grid_repo("yaml-200")
    fixtures.raise_pad_limit(big, 1000)
    fixtures.fill_scratchpad(big, cfg.size(200, 8))

    def yaml_of(path: Path) -> str:
        return frontmatter.split(path.read_text(encoding="utf-8"))[0]

    pad = Path(".grid") / "phases" / PHASE / "scratchpad.md"
    return [
        ("STATE.md (fresh init)", yaml_of(ws.grid_repo("yaml-state") / ".grid" / "STATE.md")),
        (f"scratchpad, {cfg.size(50, 5)} entries", yaml_of(small / pad)),
        (f"scratchpad, {cfg.size(200, 8)} entries", yaml_of(big / pad)),
    ]


def _speedup(bench: str, label: str, pyyaml: Any, fast: Any, cfg: Config, target: float | None = 3.0) -> Row:
    """PyYAML / yamlfast, run pair by pair; the note carries both medians."""
    slow_ms, fast_ms = interleaved([pyyaml, fast], cfg.repeats(300, 5), cfg.warmup(20, 1))
    note = f"PyYAML {statistics.median(slow_ms):.3f} ms, yamlfast {statistics.median(fast_ms):.3f} ms"
    targets = [Target("p50", ">=", target)] if target else []
    return Row(bench, label, "x", ratios(slow_ms, fast_ms), targets, note=note)


@benchmark("yaml_codec", "inprocess", "frontmatter: yamlfast vs PyYAML")
def yaml_codec(cfg: Config, ws: Workspace) -> list[Row]:
    from gridgit.store import frontmatter, yamlfast

    rows: list[Row] = []
    for label, text in _frontmatters(cfg, ws):
        data = frontmatter.pyyaml_load(text, label)
        if yamlfast.load(text) != data or yamlfast.dump(data) != frontmatter.pyyaml_dump(data):
            raise RuntimeError(f"{label}: the fast path did not read or write it exactly")
        rows.append(
            _speedup(
                "yaml_codec",
                f"load {label}: PyYAML / yamlfast",
                lambda text=text: frontmatter.pyyaml_load(text, "x"),
                lambda text=text: frontmatter.load_yaml(text, "x"),
                cfg,
            )
        )
        rows.append(
            _speedup(
                "yaml_codec",
                f"dump {label}: PyYAML / yamlfast",
                lambda data=data: frontmatter.pyyaml_dump(data),
                lambda data=data: frontmatter.dump_yaml(data),
                cfg,
            )
        )
    rows += _write_rows(cfg, ws)
    rows += _import_rows(cfg, ws)
    return rows


# The CLI with the fast path switched off: frontmatter then does what it did before yamlfast.
_CLI = "import sys; from gridgit.cli.main import main; sys.argv[0] = 'gridgit'; sys.exit(main())"
_CLI_PYYAML = "from gridgit.store import yamlfast as y; y.load = y.dump = lambda data: None; " + _CLI


def _write_rows(cfg: Config, ws: Workspace) -> list[Row]:
    """A write into a 50-entry phase, PyYAML only / yamlfast: in-process and as `gridgit write`.

    Each side writes into a repository of its own, restored to 50 entries before every
    sample (untimed), the two sides taking turns.
    """
    from gridgit.store import yamlfast

    pads, saved = [], []
    for name in ("yaml-write-pyyaml", "yaml-write-fast"):
        path = ws.grid_repo(name)
        fixtures.fill_scratchpad(path, 50)
        fixtures.raise_pad_limit(path, 1000)  # the 51st entry archives nothing
        pads.append(path / ".grid" / "phases" / PHASE / "scratchpad.md")
        saved.append(pads[-1].read_bytes())
    writers = [api.writer(api.board(pad.parents[3])) for pad in pads]
    fast_load, fast_dump = yamlfast.load, yamlfast.dump
    counter = itertools.count()

    def in_process(side: int) -> None:
        if side == 0:
            yamlfast.load = yamlfast.dump = lambda data: None  # type: ignore[assignment]
        try:
            writers[side](PHASE, "executor-002", "discovery", f"yaml-{next(counter)}", fixtures.content(7))
        finally:
            yamlfast.load, yamlfast.dump = fast_load, fast_dump

    env = bench_env(ws.home, agent="executor-003")

    def cli(side: int) -> None:
        i = next(counter)
        args = ["write", "--category", "discovery", "--topic", f"cli-{i}", "--content", fixtures.content(i)]
        runner([PYTHON, "-c", _CLI_PYYAML if side == 0 else _CLI, *args], pads[side].parents[3], env)()

    rows = []
    runs: tuple[tuple[str, Callable[[int], None], int], ...] = (
        ("scratchpad write in-process (50 entries)", in_process, cfg.repeats(200, 3)),
        ("gridgit write (50 entries)", cli, cfg.repeats(40, 3)),
    )
    for label, func, repeats in runs:
        slow_ms: list[float] = []
        fast_ms: list[float] = []
        for _ in range(repeats):
            slow_ms += measure(partial(func, 0), 1, 0, setup=partial(pads[0].write_bytes, saved[0]))
            fast_ms += measure(partial(func, 1), 1, 0, setup=partial(pads[1].write_bytes, saved[1]))
        note = f"PyYAML only {statistics.median(slow_ms):.2f} ms, yamlfast {statistics.median(fast_ms):.2f} ms"
        rows.append(Row("yaml_codec", f"{label}: PyYAML only / yamlfast", "x", ratios(slow_ms, fast_ms), note=note))
    return rows


# (label, module, bar): the time of the module and of what it imports, not of gridgit's
# package __init__ files, which every gridgit process imports first anyway.
_IMPORTS = [
    ("import gridgit.store.yamlfast (with yamlscalar, lazyre)", "gridgit.store.yamlfast", 1.0),
    ("import gridgit.store.frontmatter (with what it imports)", "gridgit.store.frontmatter", None),
    ("import yaml (what reading gridgit's own files no longer pays)", "yaml", None),
]


def _import_rows(cfg: Config, ws: Workspace) -> list[Row]:
    """`python -X importtime`, the module's cumulative figure, after one run that writes the bytecode."""
    rows = []
    for label, module, bar in _IMPORTS:
        _importtime(ws, module)
        samples = [_importtime(ws, module) for _ in range(cfg.repeats(30, 2))]
        rows.append(Row("yaml_codec", label, "ms", samples, [Target("p50", "<", bar)] if bar else []))
    return rows


def _importtime(ws: Workspace, module: str) -> float:
    """MODULE's cumulative import time (ms) less its parent packages', which Python imports first."""
    proc = subprocess.run(
        [PYTHON, "-X", "importtime", "-c", f"import {module}"], cwd=ws.root, env=ws.env, capture_output=True, text=True
    )
    cumulative = {}
    for line in proc.stderr.splitlines():
        fields = [f.strip() for f in line.removeprefix("import time:").split("|")]
        if len(fields) == 3 and fields[1].isdigit():
            cumulative[fields[2]] = int(fields[1]) / 1000
    if module not in cumulative:
        raise RuntimeError(f"no importtime line for {module}: {proc.stderr[-300:]}")
    return cumulative[module] - cumulative.get(module.rpartition(".")[0], 0.0)


if __name__ == "__main__":
    from benchmarks.__main__ import render_table
    from benchmarks.harness import workspace

    with workspace() as ws:
        table = yaml_codec(Config(quick="--quick" in sys.argv), ws)
    print(render_table(table))
    print(f"\nload average: {' '.join(Path('/proc/loadavg').read_text().split()[:3])}")
