"""Three-way merges of .grid/ files: scratchpads, archives, STATE, LEARNINGS, event logs."""

from __future__ import annotations

import copy
import json
from typing import Any

from gridgit.history import entry_merge, merge
from gridgit.model import learnings
from gridgit.scratchpad.archive import Archive
from gridgit.scratchpad.document import Scratchpad
from gridgit.scratchpad.entry import Entry
from gridgit.store import ids
from gridgit.store.record import Record
from tests.conftest import Repo

SCRATCHPAD = ".grid/phases/01-foundation/scratchpad.md"


def entry(ts: str, agent: str, topic: str, content: str, uid: str | None = None) -> Entry:
    return Entry(
        0, ts, agent, "discovery", topic, [], "HIGH", "01-01", content, uid=ids.new_id() if uid is None else uid
    )


def changed(item: Record, **fields: object) -> Any:
    """Another version of ITEM (same uid): an Entry or a Learning."""
    return copy.deepcopy(item).replace(**fields)


def pad(*entries: Entry) -> str:
    doc = Scratchpad.new("01-foundation", "Foundation", "2026-01-01T00:00:00Z", 50)
    for number, item in enumerate(entries, start=1):
        item.id = number
        doc.entries.append(item)
    return doc.render()


E1 = entry("2026-01-01T10:00:00Z", "executor-001", "auth", "one")
E2 = entry("2026-01-01T11:00:00Z", "executor-001", "db", "two")
E3 = entry("2026-01-01T10:30:00Z", "executor-002", "api", "three")


def test_scratchpads_union_their_entries() -> None:
    merged = Scratchpad.parse(merge.merge_scratchpad(pad(E1), pad(E1, E2), pad(E1, E3), "s"), "s")
    assert [e.content for e in merged.entries] == ["one", "three", "two"]  # by timestamp
    assert [e.id for e in merged.entries] == [1, 2, 3]
    assert merged.index_is_current()


def test_same_entry_on_both_sides_is_not_doubled() -> None:
    merged = Scratchpad.parse(merge.merge_scratchpad(pad(), pad(E1, E2), pad(E1, E2, E3), "s"), "s")
    assert [e.content for e in merged.entries] == ["one", "three", "two"]


def test_removal_on_one_side_is_kept() -> None:
    merged = Scratchpad.parse(merge.merge_scratchpad(pad(E1, E2), pad(E1, E2, E3), pad(E2), "s"), "s")
    assert [e.content for e in merged.entries] == ["three", "two"]


def test_edit_on_one_side_wins_over_no_change() -> None:
    edited = changed(E1, content="one\n- Commit: abc1234")
    merged = Scratchpad.parse(merge.merge_scratchpad(pad(E1), pad(E1, E2), pad(edited), "s"), "s")
    assert [e.content for e in merged.entries] == ["one\n- Commit: abc1234", "two"]


def test_a_resolution_survives_an_edit_on_the_other_side() -> None:
    from gridgit.scratchpad.entry import Resolution

    resolved = changed(E1, resolution=Resolution("2026-01-01T12:00:00Z", "mc", "fixed"))
    committed = changed(E1, content="one\n- Commit: abc1234")
    for ours, theirs in ((resolved, committed), (committed, resolved)):
        merged = Scratchpad.parse(merge.merge_scratchpad(pad(E1), pad(ours), pad(theirs), "s"), "s").entries[0]
        assert merged.content == "one\n- Commit: abc1234"
        assert merged.resolution == Resolution("2026-01-01T12:00:00Z", "mc", "fixed")


def test_missing_merge_base() -> None:
    merged = Scratchpad.parse(merge.merge_scratchpad("", pad(E1), pad(E3), "s"), "s")
    assert [e.content for e in merged.entries] == ["one", "three"]


def _state(repo: Repo) -> str:
    return (repo.grid / "STATE.md").read_text(encoding="utf-8")


def test_state_merges_field_wise(repo: Repo) -> None:
    from gridgit.model import state

    base = _state(repo)
    data, body = state.parse(base, "s")
    ours = dict(data, updated_at="2026-02-01T00:00:00Z", warnings=["w-ours"], energy=1)
    theirs = dict(data, updated_at="2026-03-01T00:00:00Z", warnings=["w-theirs"], energy=2, status="in_progress")
    merged, _ = state.parse(
        merge.merge_state(base, state.render_file(ours, body), state.render_file(theirs, body), "s"), "s"
    )
    assert merged["warnings"] == ["w-ours", "w-theirs"]
    assert merged["status"] == "in_progress"  # only theirs changed it
    assert merged["energy"] == 2  # both changed it: theirs is newer
    assert merged["updated_at"] == "2026-03-01T00:00:00Z"


def test_events_union_by_id() -> None:
    def line(i: str) -> str:
        return json.dumps({"id": i, "type": "t", "timestamp": "x", "payload": {}})

    base = line("01") + "\n"
    merged = merge.merge_events(base, base + line("03") + "\n", base + line("02") + "\n" + line("03") + "\n", "e")
    assert [json.loads(x)["id"] for x in merged.splitlines()] == ["01", "02", "03"]


def test_learnings_union_without_duplicates(repo: Repo) -> None:
    base = (repo.grid / "LEARNINGS.md").read_text(encoding="utf-8")
    ours = base.replace("## decisions\n", "## decisions\n\n### Use JWT\n\nTokens.\n")
    theirs = base.replace("## decisions\n", "## decisions\n\n### Use JWT\n\nTokens.\n\n### Soft deletes\n\nAudit.\n")
    merged = merge.merge_learnings(base, ours, theirs, "l")
    assert merged.count("### Use JWT") == 1 and merged.count("### Soft deletes") == 1


def archive(*entries: Entry, extracted: tuple[Entry, ...] = ()) -> str:
    doc = Archive("01-foundation", "Foundation", "2026-01-02T00:00:00Z")
    doc.add([copy.deepcopy(e) for e in entries], {e.uid for e in extracted}, "2026-01-02T00:00:00Z")
    return doc.render()


def test_archives_union_and_keep_what_was_extracted() -> None:
    base = archive(E1, extracted=(E1,))
    merged = Archive.parse(merge.merge_archive(base, archive(E1, E2, extracted=(E1, E2)), archive(E1, E3), "a"), "a")
    assert [e.content for e in merged.entries] == ["one", "three", "two"]
    assert [e.content for e in merged.promoted_entries()] == ["one", "two"]


def test_two_entries_of_one_agent_in_one_second_stay_two() -> None:
    twin = entry(E1.timestamp, E1.agent_id, E1.topic, E1.content)  # the same fields, its own uid
    both = sorted([E1.uid, twin.uid])
    for merged in (
        merge.merge_scratchpad(pad(), pad(E1), pad(twin), "s"),
        merge.merge_scratchpad(pad(E1), pad(E1, twin), pad(E1), "s"),
    ):
        assert [e.uid for e in Scratchpad.parse(merged, "s").entries] == both
    merged = Archive.parse(merge.merge_archive(archive(), archive(E1), archive(twin), "a"), "a")
    assert [e.uid for e in merged.entries] == both


def test_one_entry_changed_on_both_sides_keeps_both_changes_whichever_side_is_ours() -> None:
    ours = changed(E1, content="one\n- Commit: abc1234", tags=["auth"])
    theirs = changed(E1, content="one\n\n**Update from executor-009:**\nmore", contributors=["executor-009"],
                     relevance="MEDIUM")  # fmt: skip
    a = Scratchpad.parse(merge.merge_scratchpad(pad(E1), pad(ours), pad(theirs), "s"), "s").entries
    b = Scratchpad.parse(merge.merge_scratchpad(pad(E1), pad(theirs), pad(ours), "s"), "s").entries
    assert a == b and len(a) == 1
    assert "- Commit: abc1234" in a[0].content and "more" in a[0].content
    assert a[0].tags == ["auth"] and a[0].contributors == ["executor-009"] and a[0].relevance == "MEDIUM"
    # Lines both rewrote: nothing refused, nothing lost.
    x, y = changed(E1, content="x"), changed(E1, content="y")
    merged = entry_merge.merge_entry(E1, x, y)
    assert merged == entry_merge.merge_entry(E1, y, x) and set(merged.content.split("\n")) == {"x", "y"}


def test_legacy_files_without_ids_merge_by_their_derived_ids() -> None:
    old = [entry(f"2026-01-01T10:0{i}:00Z", "executor-001", "auth", f"legacy {i}", uid="") for i in range(3)]
    text = pad(*old)
    assert "**Id:**" not in text
    theirs = Scratchpad.parse(text, "s")
    theirs.entries[0].content += "\n- Commit: abc1234"  # a touch: now written with its derived id
    theirs.entries = theirs.entries[:2]
    merged = Scratchpad.parse(merge.merge_scratchpad(text, text, theirs.render(), "s"), "s").entries
    assert [e.content for e in merged] == ["legacy 0\n- Commit: abc1234", "legacy 1"]


def _learnings_text(*items: learnings.Learning, base: str) -> str:
    doc = learnings.LearningsFile.parse(base)
    for item in items:
        doc.append(copy.deepcopy(item))
    return doc.render()


def test_one_entry_promoted_in_two_clones_is_one_learning(repo: Repo) -> None:
    from gridgit.phases import promotion

    template = (repo.grid / "LEARNINGS.md").read_text(encoding="utf-8")
    source = entry("2026-01-01T10:00:00Z", "executor-001", "auth", "Gotcha: order")
    ours = promotion.to_learning("01-foundation", source)
    theirs = ours.replace(promoted_at="2026-01-02T00:00:00Z", promoted_by="memory-002")
    ours.promoted_at, ours.promoted_by = "2026-01-01T12:00:00Z", "system"
    a = merge.merge_learnings(
        template, _learnings_text(ours, base=template), _learnings_text(theirs, base=template), "l"
    )
    b = merge.merge_learnings(
        template, _learnings_text(theirs, base=template), _learnings_text(ours, base=template), "l"
    )
    assert a == b
    [merged] = learnings.LearningsFile.parse(a).learnings()
    assert merged.id == ours.id and merged.promoted_by == "system"  # the earlier promotion
