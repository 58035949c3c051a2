"""The write journal (store.journal): records read back as written, a torn one ignored, bounded by compaction."""

from __future__ import annotations

from pathlib import Path

import pytest

from gridgit.store import journal
from gridgit.store.layout import Layout
from tests.conftest import Repo


def test_records_read_back_a_torn_tail_is_ignored_and_clear_empties_it(repo: Repo) -> None:
    layout = Layout.find(repo.path)
    journal.clear(layout)
    state, pad = layout.state, layout.scratchpad("01-foundation")
    journal.write(layout, state, "one\n")
    journal.write(layout, pad, b"two\n")
    where = journal.path(layout)
    with where.open("ab") as handle:
        handle.write(b"999 1.0 STATE.md\npartial")  # a writer killed half-way through its append
    assert [(rel, data) for _, rel, data in journal.read(layout)] == [("STATE.md", b"one\n"),
                                                                     ("phases/01-foundation/scratchpad.md", b"two\n")]  # fmt: skip
    assert state.read_text() == "one\n"  # and the file itself is written as by fileio.atomic_write
    journal.clear(layout)
    assert where.stat().st_size == 0 and journal.read(layout) == []


def test_past_its_bound_it_keeps_each_files_newest_version(repo: Repo, monkeypatch: pytest.MonkeyPatch) -> None:
    layout = Layout.find(repo.path)
    journal.clear(layout)
    monkeypatch.setattr(journal, "MAX_BYTES", 2000)
    for n in range(40):
        journal.write(layout, layout.state, f"state {n}\n" + "x" * 50)
        journal.write(layout, layout.learnings, f"learnings {n}\n")
    kept = journal.read(layout)
    assert journal.path(layout).stat().st_size <= 2000 + 200
    newest = {rel: data for _, rel, data in kept}
    assert newest == {"STATE.md": b"state 39\n" + b"x" * 50, "LEARNINGS.md": b"learnings 39\n"}


def test_a_blackboard_outside_any_repository_writes_without_a_journal(tmp_path: Path) -> None:
    grid = tmp_path / ".grid"
    grid.mkdir()
    layout = Layout(tmp_path, tmp_path, grid)
    journal.write(layout, grid / "STATE.md", "x\n")
    assert (grid / "STATE.md").read_text() == "x\n"
