"""Atomic, locked file I/O."""

from __future__ import annotations

import multiprocessing
import os
from pathlib import Path

import pytest

from gridgit.errors import BadInput, LockTimeout
from gridgit.store import fileio


def test_atomic_write_replaces_and_leaves_no_temp_file(tmp_path: Path) -> None:
    folder = tmp_path / "grid"
    folder.mkdir()
    target = folder / "f.md"
    fileio.atomic_write(target, "one")
    fileio.atomic_write(target, "two\r\nthree")
    assert fileio.read_text(target) == "two\r\nthree"
    assert sorted(p.name for p in folder.iterdir()) == ["f.md"]


def test_symlinks_are_refused_for_reads_and_writes(tmp_path: Path) -> None:
    real = tmp_path / "real.md"
    real.write_text("data", encoding="utf-8")
    link = tmp_path / "STATE.md"
    link.symlink_to(real)
    with pytest.raises(BadInput, match="symlink"):
        fileio.atomic_write(link, "evil")
    with pytest.raises(BadInput, match="symlink"):
        fileio.read_text(link)
    assert real.read_text(encoding="utf-8") == "data"


def test_lock_is_a_sidecar_file(tmp_path: Path) -> None:
    assert fileio.lock_path(tmp_path / "STATE.md") == tmp_path / ".state.lock"


def _hold_lock(path: str, ready: multiprocessing.synchronize.Event, release: multiprocessing.synchronize.Event) -> None:
    with fileio.locked(Path(path)):
        ready.set()
        release.wait(30)


def test_a_lock_held_past_the_timeout_is_a_clear_error(tmp_path: Path) -> None:
    ctx = multiprocessing.get_context("spawn")
    ready, release = ctx.Event(), ctx.Event()
    holder = ctx.Process(target=_hold_lock, args=(str(tmp_path / "STATE.md"), ready, release))
    holder.start()
    try:
        assert ready.wait(30)
        with (
            pytest.raises(LockTimeout, match=r"\.state\.lock still held"),
            fileio.locked(tmp_path / "STATE.md", timeout=0.2),
        ):
            pass
    finally:
        release.set()
        holder.join(30)
    assert holder.exitcode == 0


def test_append_bytes_returns_the_offset(tmp_path: Path) -> None:
    log = tmp_path / "log.jsonl"
    assert fileio.append_bytes(log, b"a\n") == 0
    assert fileio.append_bytes(log, b"bc\n") == 2
    assert log.read_bytes() == b"a\nbc\n"
    assert oct(os.stat(log).st_mode & 0o777) == "0o644"
