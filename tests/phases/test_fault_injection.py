"""Fault injection into each multi-file workflow (phase completion, archive, the merge driver): a
write that fails at any step (a full disk) leaves every file whole and valid (as it was, as it
ends up, or, for a file written twice, the valid step between), and a rerun finishes the job,
giving the files a run without the fault gives."""

from __future__ import annotations

import errno
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from gridgit.git import merge_driver
from gridgit.phases import lifecycle
from gridgit.store import fileio
from gridgit.store.layout import Layout
from gridgit.validation.rules import validate_bytes
from tests.conftest import Repo, git
from tests.phases.test_lifecycle import P1, seed

Workflow = Callable[[Layout], Any]
WORKFLOWS: dict[str, Workflow] = {
    "phase completion": lambda layout: lifecycle.complete_phase(layout, P1),
    "archive": lambda layout: lifecycle.archive_scratchpad(layout, P1, "mc"),
}


def _files(grid: Path) -> dict[str, bytes]:
    """The data files of a Blackboard (the event log aside: it is a bus, and after-write events may warn)."""
    return {
        p.relative_to(grid).as_posix(): p.read_bytes()
        for p in sorted(grid.rglob("*"))
        if p.is_file() and not p.name.endswith((".lock", ".tmp")) and "events" not in p.relative_to(grid).parts
    }


def _clone(grid: Path, target: Path) -> Layout:
    target.mkdir()
    git(target, "init", "-q", "-b", "main")
    shutil.copytree(grid, target / ".grid")
    return Layout.find(target)


class _Disk:
    """fileio.atomic_write that counts its calls and, from call FAIL_AT on, fails as a full disk does."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, fail_at: int = 0) -> None:
        self.calls, self.fail_at, self._real = 0, fail_at, fileio.atomic_write
        monkeypatch.setattr(fileio, "atomic_write", self.write)

    def write(self, path: Path, text: str | bytes, durable: bool = True, finish: bool = True) -> None:
        if path.name == "latest.json":  # the event bus: after-write events only warn (tested elsewhere)
            self._real(path, text, durable, finish)
            return
        self.calls += 1
        if self.fail_at and self.calls >= self.fail_at:
            raise OSError(errno.ENOSPC, "No space left on device", str(path))
        self._real(path, text, durable, finish)


@pytest.mark.parametrize("name", list(WORKFLOWS))
def test_a_failure_at_each_step_leaves_files_whole_and_a_rerun_finishes(
    repo: Repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    workflow = WORKFLOWS[name]
    seed(Layout.find(repo.path), monkeypatch)
    before = _files(repo.grid)
    clean = _clone(repo.grid, tmp_path / "clean")
    with monkeypatch.context() as patch:
        disk = _Disk(patch)
        workflow(clean)
    after, steps = _files(clean.grid), disk.calls
    assert steps >= 2 and after != before

    for step in range(1, steps + 1):
        layout = _clone(repo.grid, tmp_path / f"fail-{step}")
        with monkeypatch.context() as patch:
            _Disk(patch, fail_at=step)
            with pytest.raises(OSError):
                workflow(layout)
        # Each file is whole: as before, as after, or (a file the workflow writes twice) a
        # valid step between them; nothing is half-written or left invalid.
        for rel, data in _files(layout.grid).items():
            if data not in (before.get(rel), after.get(rel)):
                assert validate_bytes(rel, data) == [], f"step {step}: {rel} is half-way and invalid"
        workflow(layout)  # the rerun, with room on the disk again
        assert _files(layout.grid) == after, f"a rerun after a failure at step {step} did not finish the job"


def test_the_merge_driver_leaves_its_file_whole_when_the_write_fails(
    repo: Repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    event = '{{"id": "{0}", "type": "heartbeat", "timestamp": "2026-01-01T00:00:00Z", "payload": {{}}}}\n'
    base, ours = event.format("a"), event.format("a") + event.format("b")
    theirs = event.format("a") + event.format("c")
    paths = {}
    for label, text in {"base": base, "ours": ours, "theirs": theirs}.items():
        paths[label] = tmp_path / label
        paths[label].write_text(text, "utf-8")
    with monkeypatch.context() as patch:
        _Disk(patch, fail_at=1)
        code = merge_driver.run(
            str(paths["base"]), str(paths["ours"]), str(paths["theirs"]), ".grid/events/current.jsonl"
        )
    left = paths["ours"].read_text("utf-8")
    # Either untouched, or git's own line merge (whole, both sides in it): never half a file.
    assert code == 1 and (left == ours or ('"b"' in left and '"c"' in left))
    paths["ours"].write_text(ours, "utf-8")
    assert (
        merge_driver.run(str(paths["base"]), str(paths["ours"]), str(paths["theirs"]), ".grid/events/current.jsonl")
        == 0
    )
    merged = paths["ours"].read_text("utf-8")
    assert merged == base + event.format("b") + event.format("c")
