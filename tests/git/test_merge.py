"""Three-way merges of .grid/ files: scratchpads, archives, STATE, LEARNINGS, event logs."""

from __future__ import annotations

import json

from gridgit.git import merge
from gridgit.scratchpad.document import Scratchpad
from gridgit.scratchpad.entry import Entry
from tests.conftest import Repo

SCRATCHPAD = ".grid/phases/01-foundation/scratchpad.md"


def entry(ts: str, agent: str, topic: str, content: str) -> Entry:
    return Entry(0, ts, agent, "discovery", topic, [], "HIGH", "01-01", content)


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
    edited = entry(E1.timestamp, E1.agent_id, E1.topic, "one\n- Commit: abc1234")
    merged = Scratchpad.parse(merge.merge_scratchpad(pad(E1), pad(E1, E2), pad(edited), "s"), "s")
    assert [e.content for e in merged.entries] == ["one\n- Commit: abc1234", "two"]


def test_a_resolution_survives_an_edit_on_the_other_side() -> None:
    from gridgit.scratchpad.entry import Resolution

    resolved = entry(E1.timestamp, E1.agent_id, E1.topic, "one")
    resolved.resolution = Resolution("2026-01-01T12:00:00Z", "mc", "fixed")
    committed = entry(E1.timestamp, E1.agent_id, E1.topic, "one\n- Commit: abc1234")
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


def test_archives_union_and_keep_what_was_extracted() -> None:
    from gridgit.scratchpad.archive import Archive

    def archive(*entries: Entry, extracted: tuple[int, ...] = ()) -> str:
        import copy

        items = [copy.deepcopy(e) for e in entries]
        for number, item in enumerate(items, start=1):
            item.id = number
        doc = Archive("01-foundation", "Foundation", "2026-01-02T00:00:00Z")
        doc.add(items, set(extracted), "2026-01-02T00:00:00Z")
        return doc.render()

    base = archive(E1, extracted=(1,))
    merged = Archive.parse(merge.merge_archive(base, archive(E1, E2, extracted=(1,)), archive(E1, E3), "a"), "a")
    assert [e.content for e in merged.entries] == ["one", "three", "two"]
    assert [e.id for e in merged.entries if e.id in merged.extracted] == [1]
