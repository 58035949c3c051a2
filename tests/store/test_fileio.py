"""Atomic, locked file I/O."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gridgit.errors import BadInput
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


def test_append_bytes_returns_the_size_after_it(tmp_path: Path) -> None:
    log = tmp_path / "log.jsonl"
    assert fileio.append_bytes(log, b"a\n") == 2
    assert fileio.append_bytes(log, b"bc\n") == 5
    assert log.read_bytes() == b"a\nbc\n"
    assert oct(os.stat(log).st_mode & 0o777) == "0o644"


def test_a_line_of_its_own_ends_an_unterminated_last_line_first(tmp_path: Path) -> None:
    log = tmp_path / "log.jsonl"
    assert fileio.append_bytes(log, b"half", own_line=True) == 4  # an empty file needs no newline
    assert fileio.append_bytes(log, b"b\n", own_line=True) == 7
    assert fileio.append_bytes(log, b"c\n", own_line=True) == 9
    assert log.read_bytes() == b"half\nb\nc\n"


_KILLED_WRITER = """
import sys
from pathlib import Path
from gridgit.store import fileio
target = Path(sys.argv[1])
text = b"x" * 20_000_000
print("writing", flush=True)
while True:
    fileio.atomic_write(target, text)
"""


def test_temp_files_of_killed_writers_are_removed_by_the_next_write(tmp_path: Path) -> None:
    folder = tmp_path / "grid"
    folder.mkdir()
    target = folder / "scratchpad.md"
    # Writers SIGKILLed in the middle of their writes. A kill can land between two writes
    # (nothing left behind), so kill rounds of three until one has left a temp file.
    for _ in range(20):
        procs = [
            subprocess.Popen([sys.executable, "-c", _KILLED_WRITER, str(target)], stdout=subprocess.PIPE)
            for _ in range(3)
        ]
        for proc in procs:
            assert proc.stdout is not None and proc.stdout.readline() == b"writing\n"
        time.sleep(0.1)
        for proc in procs:
            proc.kill()
            proc.wait()
        if any(p.name.endswith(".tmp") for p in folder.iterdir()):  # what the kills left
            break
    else:
        pytest.fail("no kill landed in the middle of a write")
    # A live process's temp file is its write in progress: it stays.
    live = folder / f".scratchpad.md.{os.getppid()}.1.1.tmp"
    live.write_text("in progress")
    (folder / ".other.md.1.1.1.tmp").write_text("not ours")  # another file's: not this write's business
    fileio.atomic_write(target, "after")
    assert sorted(p.name for p in folder.iterdir()) == [".other.md.1.1.1.tmp", live.name, "scratchpad.md"]
    assert target.read_text() == "after"
