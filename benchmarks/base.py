"""This checkout against a base one: the same command run from each source, interleaved round by round.

`$GRIDGIT_BENCH_BASE` is a checkout's folder or a revision; by default the merge base of HEAD and
`main` (HEAD itself where there is no main: then the ratio only shows the noise). Both sides run from
a copy of their source on PYTHONPATH, as `python -m gridgit`: the same import machinery for both
(the editable install's finder would only be on this side's path).
"""

from __future__ import annotations

import io
import itertools
import os
import shutil
import subprocess
import tarfile
from pathlib import Path

from benchmarks import fixtures
from benchmarks.harness import PYTHON, Config, Workspace, bench_env, interleaved, run, runner

ROOT = Path(__file__).resolve().parents[1]


def _base_tree(ws: Workspace) -> tuple[Path, str]:
    """The base's source to run (a checkout, or a revision of this repository written out), and its name."""
    chosen = os.environ.get("GRIDGIT_BENCH_BASE", "")
    if chosen and Path(chosen).is_dir():
        return Path(chosen), chosen
    revision = chosen or run(["git", "merge-base", "HEAD", "main"], ROOT, ws.env, check=False).strip() or "HEAD"
    archive = subprocess.run(["git", "archive", "--format=tar", revision, "gridgit", "templates"], cwd=ROOT,
                             capture_output=True, check=True).stdout  # fmt: skip
    folder = ws.root / "base-checkout"
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(folder, filter="data")
    return folder, f"{revision[:12]} of this repository"


_SOURCES: dict[Path, tuple[dict[str, Path], str]] = {}


def sources(ws: Workspace) -> tuple[dict[str, Path], str]:
    """{"this", "base"}: a folder to put on PYTHONPATH for each side (made once per run), and the base's name."""
    if ws.root not in _SOURCES:
        base, named = _base_tree(ws)
        trees = {"base": ws.root / "base-src", "this": ws.root / "this-src"}
        for side, source in (("base", base), ("this", ROOT)):
            shutil.copytree(source / "gridgit", trees[side] / "gridgit", ignore=shutil.ignore_patterns("__pycache__"))
            shutil.copytree(source / "templates", trees[side] / "gridgit" / "templates", dirs_exist_ok=True,
                            ignore=shutil.ignore_patterns("__pycache__"))  # fmt: skip
        _SOURCES[ws.root] = trees, named
    return _SOURCES[ws.root]


def write_against_base(cfg: Config, ws: Workspace) -> tuple[list[float], list[float], str]:
    """`gridgit write` into a 50-entry phase from this checkout and from the base, interleaved with half the
    rounds each side first (whoever goes first in a round pays for it alike): (this ms, base ms, base's name)."""
    trees, named = sources(ws)
    paths = {}
    for side in ("base", "this"):
        paths[side] = ws.grid_repo(f"write-{side}")
        fixtures.fill_scratchpad(paths[side], cfg.size(50, 5))
        fixtures.raise_pad_limit(paths[side], 1000)
    counter = itertools.count()

    def writer(side: str) -> object:
        env = bench_env(ws.home, agent="executor-003", PYTHONPATH=str(trees[side]))
        command = [PYTHON, "-m", "gridgit"]

        def write() -> None:
            i = next(counter)
            args = ["write", "--category", "discovery", "--topic", f"cli-{i}", "--content", fixtures.content(i)]
            runner([*command, *args], paths[side], env)()

        return write

    repeats = cfg.repeats(60, 2) // 2
    this, before = interleaved([writer("this"), writer("base")], repeats, cfg.warmup(3, 0))  # type: ignore[list-item]
    later_base, later_this = interleaved([writer("base"), writer("this")], repeats, 0)  # type: ignore[list-item]
    return this + later_this, before + later_base, named
