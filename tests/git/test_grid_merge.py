"""The whole-Blackboard merge `gridgit sync` runs: trees of .grid/ files, cross-file invariants, symmetry."""

from __future__ import annotations

import copy
import json

from gridgit.git.grid_merge import merge_grid
from gridgit.scratchpad.archive import Archive
from gridgit.scratchpad.document import Scratchpad
from tests.git.test_merge import E1, E2, E3, pad

PAD = "phases/01-foundation/scratchpad.md"
ARCHIVE = "phases/01-foundation/scratchpad_archived.md"


def test_entry_archived_on_one_side_and_changed_on_the_other_is_archived_once_with_the_change() -> None:
    archived = Archive("01-foundation", "Foundation")
    archived.add([copy.deepcopy(E1)], set(), "2026-01-02T00:00:00Z")
    changed = copy.deepcopy(E1)
    changed.content += "\n- Commit: abc1234"
    base = {PAD: pad(E1, E2).encode()}
    ours = {PAD: pad(E2).encode(), ARCHIVE: archived.render().encode()}
    theirs = {PAD: pad(changed, E2, E3).encode()}
    result = merge_grid(base, ours, theirs)
    assert result.conflicts == []
    assert merge_grid(base, theirs, ours).files == result.files
    entries = Scratchpad.parse(result.files[PAD].decode(), "s").entries
    assert [e.content for e in entries] == ["three", "two"]
    assert [e.content for e in Archive.parse(result.files[ARCHIVE].decode(), "a").entries] == [changed.content]


def test_files_merge_by_lines_or_by_a_reported_choice() -> None:
    base = {"CHECKPOINT.md": b"a\nb\nc\n", "config.json": b'{"x": 1, "y": 1}\n'}
    ours = {"CHECKPOINT.md": b"A\nb\nc\n", "config.json": b'{"x": 2, "y": 1}\n'}
    theirs = {"CHECKPOINT.md": b"a\nb\nC\n", "config.json": b'{"x": 3, "y": 2}\n'}
    result = merge_grid(base, ours, theirs)
    assert result.files["CHECKPOINT.md"] == b"A\nb\nC\n"
    assert result.conflicts == ["config.json"]
    assert merge_grid(base, theirs, ours).files == result.files
    assert json.loads(result.files["config.json"])["y"] == 2  # merged key by key; x is one side's choice


def test_deletions_and_additions() -> None:
    base = {"a.md": b"a\n", "b.md": b"b\n"}
    result = merge_grid(base, {"a.md": b"a\n", "c.md": b"c\n"}, {"b.md": b"b\n", "a.md": b"a\n"})
    assert result.files == {"a.md": b"a\n", "c.md": b"c\n"}
