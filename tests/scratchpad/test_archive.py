"""The archive: auto-archive on a full scratchpad, phase-end archive, the archive file format."""

from __future__ import annotations

import pytest

from gridgit.errors import BadInput
from gridgit.phases import archiving
from gridgit.scratchpad import archive, subscriptions
from gridgit.scratchpad.archive import Archive
from gridgit.scratchpad.entry import CATEGORIES
from gridgit.store import frontmatter
from gridgit.store.layout import Layout
from tests.conftest import Repo
from tests.scratchpad.test_store import PHASE, pad_of, set_limits, write


@pytest.fixture
def layout(repo: Repo) -> Layout:
    return Layout.find(repo.path)


def archive_text(repo: Repo) -> str:
    return (repo.grid / "phases" / PHASE / "scratchpad_archived.md").read_text(encoding="utf-8")


def test_auto_archive_keeps_the_newest_and_renumbers(repo: Repo, layout: Layout) -> None:
    set_limits(layout, max_entries=6, keep_recent=3)
    for i in range(6):
        write(layout, "executor-001", topic=f"t{i}", content=f"c{i}")
    assert not (repo.grid / "phases" / PHASE / "scratchpad_archived.md").exists()
    seventh = write(layout, "executor-001", topic="t6", content="c6")
    pad = pad_of(repo)
    assert [(e.id, e.content) for e in pad.entries] == [(1, "c3"), (2, "c4"), (3, "c5"), (4, "c6")]
    assert seventh.id == 4
    assert pad.index_is_current()
    assert pad.meta["archive"]["archived_count"] == 3
    assert pad.meta["archive"]["last_archive"] == seventh.timestamp
    assert [(e.id, e.content) for e in archive.read(layout, PHASE)] == [(1, "c0"), (2, "c1"), (3, "c2")]
    assert repo.events("scratchpad_archived")[-1]["payload"] == {
        "phase_id": PHASE, "entries_archived": 3, "kept": 3,
    }  # fmt: skip
    # The next archive continues the archive's numbering.
    for i in range(7, 10):
        write(layout, "executor-001", topic=f"t{i}", content=f"c{i}")
    assert [e.content for e in archive.read(layout, PHASE)] == ["c0", "c1", "c2", "c3", "c4", "c5"]
    assert [e.id for e in archive.read(layout, PHASE)] == [1, 2, 3, 4, 5, 6]
    assert pad_of(repo).meta["archive"]["archived_count"] == 6


def test_keep_recent_never_leaves_a_full_scratchpad(repo: Repo, layout: Layout) -> None:
    set_limits(layout, max_entries=3, keep_recent=25)
    for i in range(5):
        write(layout, "executor-001", topic=f"t{i}")
    assert len(pad_of(repo).entries) <= 3
    assert len(archive.read(layout, PHASE)) + len(pad_of(repo).entries) == 5


def test_archive_file_format(repo: Repo, layout: Layout) -> None:
    first = write(layout, "executor-001", "gotcha", "auth", "Gotcha: one", relevance="HIGH")
    write(layout, "executor-001", "decision", "db", "Decision: two")
    write(layout, "executor-002", "heartbeat", "progress", "three")
    assert archiving.archive_phase(layout, PHASE, promoted=[first.uid]) == 3
    meta, body = frontmatter.parse(archive_text(repo), "archive")
    assert meta["phase_id"] == PHASE and meta["phase_name"] == "Foundation"
    assert meta["total_entries"] == 3 and meta["high_value_extracted"] == 1
    assert list(meta["categories"]) == list(CATEGORIES)
    assert meta["categories"]["gotcha"] == 1 and meta["categories"]["heartbeat"] == 1
    assert meta["categories"]["blocker"] == 0
    assert meta["extracted"] == [1]
    assert body.startswith("\n# Phase 01-foundation - Foundation - Scratchpad Archive\n\n## Summary\n")
    assert "- [1] gotcha | auth: Auth (executor-001)" in body
    assert "## All Entries\n\n### [1] " in body
    parsed = Archive.parse(archive_text(repo), "archive")
    assert parsed.render() == archive_text(repo)
    assert [e.content for e in parsed.entries] == ["Gotcha: one", "Decision: two", "three"]


def test_archive_phase_empties_the_scratchpad_once(repo: Repo, layout: Layout) -> None:
    subscriptions.subscribe(layout, PHASE, "memory-001", ["*"], "HIGH")
    write(layout, "executor-001", "discovery", "auth", "one")
    second = write(layout, "executor-001", "pattern", "api", "two")
    assert archiving.archive_phase(layout, PHASE, promoted=[second.uid]) == 2
    pad = pad_of(repo)
    assert pad.entries == [] and pad.index_is_current()
    assert pad.meta["index"]["entry_count"] == 0
    assert pad.meta["subscriptions"][0]["agent_id"] == "memory-001"
    assert pad.meta["archive"]["archived_count"] == 2
    assert repo.events("phase_archived")[-1]["payload"] == {
        "phase_id": PHASE, "entries_archived": 2, "entries_promoted": 1,
    }  # fmt: skip
    snapshot = repo.snapshot()
    assert archiving.archive_phase(layout, PHASE, promoted=[second.uid]) == 0
    assert repo.snapshot() == snapshot
    # Writing again after a phase-end archive starts from id 1; a second archive appends.
    assert write(layout, "executor-001", "discovery", "auth", "three").id == 1
    assert archiving.archive_phase(layout, PHASE) == 1
    assert [(e.id, e.content) for e in archive.read(layout, PHASE)] == [(1, "one"), (2, "two"), (3, "three")]
    assert Archive.parse(archive_text(repo), "a").extracted == [second.uid]
    assert frontmatter.parse(archive_text(repo), "a")[0]["extracted"] == [2]


def test_two_entries_of_one_agent_in_one_second_are_archived_as_two(
    repo: Repo, layout: Layout, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GRIDGIT_NOW", "2026-01-24T14:30:00Z")
    twins = [write(layout, "executor-001", "discovery", "auth", "the same words") for _ in range(2)]
    assert twins[0].uid != twins[1].uid
    archiving.archive_phase(layout, PHASE)
    archiving.archive_phase(layout, PHASE)  # again: nothing is added twice either
    assert sorted(e.uid for e in archive.read(layout, PHASE)) == sorted(e.uid for e in twins)


def test_auto_archive_then_phase_archive_keeps_every_entry_once(repo: Repo, layout: Layout) -> None:
    set_limits(layout, max_entries=4, keep_recent=2)
    for i in range(11):
        write(layout, "executor-001", topic=f"t{i}", content=f"c{i}")
    archiving.archive_phase(layout, PHASE)
    assert [e.content for e in archive.read(layout, PHASE)] == [f"c{i}" for i in range(11)]
    assert pad_of(repo).meta["archive"]["archived_count"] == 11


def test_read_of_a_phase_never_archived_is_empty(layout: Layout) -> None:
    assert archive.read(layout, PHASE) == []
    assert archive.load(layout, PHASE) is None


def test_a_broken_archive_is_reported_and_left_alone(repo: Repo, layout: Layout) -> None:
    write(layout, "executor-001")
    path = repo.grid / "phases" / PHASE / "scratchpad_archived.md"
    path.write_text("---\nphase_id: [\n---\n", encoding="utf-8")
    before = repo.snapshot()
    with pytest.raises(BadInput, match=r"scratchpad_archived\.md line"):
        archiving.archive_phase(layout, PHASE)
    assert repo.snapshot() == before


def test_read_archived_filters_newest_first(layout: Layout) -> None:
    from gridgit.scratchpad import reads

    write(layout, "executor-001", "gotcha", "auth", "one")
    write(layout, "executor-002", "pattern", "api", "two", relevance="HIGH")
    write(layout, "executor-001", "gotcha", "db", "three")
    archiving.archive_phase(layout, PHASE)
    assert [e.content for e in reads.read_archived(layout, PHASE)] == ["three", "two", "one"]
    assert [e.content for e in reads.read_archived(layout, PHASE, category="gotcha", limit=1)] == ["three"]
    assert [e.content for e in reads.read_archived(layout, PHASE, relevance="HIGH")] == ["two"]
    assert [e.content for e in reads.read_archived(layout, PHASE, agent_id="executor-002")] == ["two"]
    assert reads.read_entries(layout, PHASE) == []
