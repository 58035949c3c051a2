"""The event log: format, concurrent appends, torn and corrupt lines, rotation, backward reads."""

from __future__ import annotations

import json
import logging
import multiprocessing
import os
from pathlib import Path
from typing import Any

import pytest

from gridgit.errors import BadInput
from gridgit.events import bus, lines, scan, segments
from gridgit.events.cursors import EventStreamReader
from gridgit.store import config
from gridgit.store.layout import Layout
from tests.conftest import Repo


def _layout(repo: Repo) -> Layout:
    return Layout.find(repo.path)


def _set_config(repo: Repo, **events_settings: Any) -> None:
    path = repo.grid / "config.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data["events"].update(events_settings)
    path.write_text(json.dumps(data), encoding="utf-8")


def _all_ids(layout: Layout) -> list[str]:
    return [e["id"] for e in scan.read_forward(layout)]


def test_emit_appends_one_line_and_publishes_latest(repo: Repo) -> None:
    layout = _layout(repo)
    event = bus.emit(layout, "entry_written", {"phase_id": "01-foundation", "entry_id": 1, "topic": "auth"})
    last = repo.events()[-1]
    assert last == event
    assert set(last) == {"id", "type", "timestamp", "payload"}
    assert json.loads((repo.grid / "events" / "latest.json").read_text(encoding="utf-8")) == event


def test_ids_are_unique_and_sort_by_time(repo: Repo) -> None:
    layout = _layout(repo)
    emitted = [bus.emit(layout, "state_updated", {"i": i})["id"] for i in range(200)]
    assert len(set(emitted)) == 200
    assert emitted == sorted(emitted)


def test_payload_is_redacted_before_it_is_written(repo: Repo) -> None:
    bus.emit(_layout(repo), "state_updated", {"note": "password=hunter2", "api_key": "abc"})
    text = (repo.grid / "events" / "current.jsonl").read_text(encoding="utf-8")
    assert "hunter2" not in text and '"abc"' not in text
    assert "[REDACTED]" in text


@pytest.mark.parametrize("bad", ["", "Bad-Type", "has space", "x" * 80])
def test_emit_refuses_a_malformed_type(repo: Repo, bad: str) -> None:
    before = repo.snapshot()
    with pytest.raises(BadInput):
        bus.emit(_layout(repo), bad, {})
    assert repo.snapshot() == before


def test_emit_refuses_a_payload_that_is_not_a_mapping(repo: Repo) -> None:
    before = repo.snapshot()
    with pytest.raises(BadInput):
        bus.emit(_layout(repo), "state_updated", ["a"])  # type: ignore[arg-type]
    assert repo.snapshot() == before


def test_known_types_are_one_list_and_checked() -> None:
    for name in ("state_updated", "file_modified", "write_conflict", "claim_added", "agent_stale"):
        assert bus.check_type(name, known_only=True) == name
    with pytest.raises(BadInput, match="unknown event type"):
        bus.check_type("made_up", known_only=True)
    assert len(set(bus.EVENT_TYPES)) == len(bus.EVENT_TYPES)


def _append_many(grid_root: str, worker: int, count: int) -> None:
    layout = Layout.find(grid_root)
    for i in range(count):
        bus.emit(layout, "state_updated", {"worker": worker, "i": i})


def test_sixteen_processes_appending_lose_and_interleave_nothing(repo: Repo) -> None:
    layout = _layout(repo)
    before = len(repo.events())
    ctx = multiprocessing.get_context("fork")
    workers = [ctx.Process(target=_append_many, args=(str(repo.path), w, 500)) for w in range(16)]
    for proc in workers:
        proc.start()
    for proc in workers:
        proc.join(timeout=240)
        assert proc.exitcode == 0
    lines = (repo.grid / "events" / "current.jsonl").read_bytes().split(b"\n")
    assert lines[-1] == b""
    parsed = [json.loads(line) for line in lines[:-1]]  # every line is whole JSON
    ours = [e for e in parsed if e["type"] == "state_updated"]
    assert len(parsed) == before + 8000 and len(ours) == 8000
    assert len({e["id"] for e in parsed}) == len(parsed)
    for worker in range(16):  # each writer's events land in its own order
        assert [e["payload"]["i"] for e in ours if e["payload"]["worker"] == worker] == list(range(500))
    assert _all_ids(layout) == [e["id"] for e in parsed]


def test_a_torn_tail_is_not_consumed_until_its_newline_arrives(repo: Repo) -> None:
    layout = _layout(repo)
    reader = EventStreamReader(layout, offset=None)
    reader.poll()
    line = json.dumps({"id": "z-1", "type": "state_updated", "timestamp": "2026-01-01T00:00:00Z", "payload": {}})
    log = repo.grid / "events" / "current.jsonl"
    with open(log, "ab") as handle:
        handle.write(line[:25].encode())
    assert reader.poll() == []
    assert scan.tail(layout, 1)[0]["type"] == "phase_started"  # init's last event: its first phase
    with open(log, "ab") as handle:
        handle.write(line[25:].encode() + b"\n")
    assert [e["id"] for e in reader.poll()] == ["z-1"]


def test_a_corrupt_line_is_skipped_with_a_warning(repo: Repo, caplog: pytest.LogCaptureFixture) -> None:
    layout = _layout(repo)
    reader = EventStreamReader(layout, offset=None)
    reader.poll()
    bus.emit(layout, "state_updated", {"n": 1})
    with open(repo.grid / "events" / "current.jsonl", "ab") as handle:
        handle.write(b'{"id": "broken", "type": \n')
        handle.write(b"[1, 2, 3]\n")
    bus.emit(layout, "state_updated", {"n": 2})
    with caplog.at_level(logging.WARNING, logger="gridgit.events"):
        found = reader.poll()
    assert [e["payload"]["n"] for e in found] == [1, 2]
    assert sum("corrupt event line" in r.getMessage() for r in caplog.records) == 2
    with caplog.at_level(logging.WARNING, logger="gridgit.events"):
        assert [e["payload"].get("n") for e in scan.tail(layout, 2)] == [1, 2]


def test_an_emit_after_a_torn_line_keeps_its_own_line_whole(repo: Repo) -> None:
    layout = _layout(repo)
    with open(repo.grid / "events" / "current.jsonl", "ab") as handle:
        handle.write(b'{"id":"half","ty')  # a writer that crashed mid-line
    event = bus.emit(layout, "state_updated", {"after": "crash"})
    assert scan.tail(layout, 1) == [event]
    assert event["id"] in _all_ids(layout)


def test_rotation_keeps_every_event_for_a_reader_in_the_old_segment(repo: Repo) -> None:
    layout = _layout(repo)
    _set_config(repo, rotate_bytes=2000, keep_segments=0)
    reader = EventStreamReader(layout, offset=None)
    first = [e["id"] for e in reader.poll()]
    emitted = [bus.emit(layout, "state_updated", {"i": i, "pad": "x" * 40})["id"] for i in range(150)]
    archived = segments.archived(layout)
    assert len(archived) >= 5
    assert all(p.stat().st_size >= 2000 for p in archived.values())
    assert [e["id"] for e in reader.poll()] == emitted
    assert _all_ids(layout) == first + emitted
    assert [e["id"] for e in scan.tail(layout, 60)] == emitted[-60:]
    assert [e["id"] for e in scan.read_backwards(layout)] == (first + emitted)[::-1]


def test_old_segments_beyond_keep_segments_are_pruned(repo: Repo) -> None:
    layout = _layout(repo)
    _set_config(repo, rotate_bytes=500, keep_segments=3)
    emitted = [bus.emit(layout, "state_updated", {"i": i, "pad": "y" * 50})["id"] for i in range(40)]
    assert sorted(segments.archived(layout))[-3:] == sorted(segments.archived(layout))
    assert len(segments.archived(layout)) == 3
    kept = _all_ids(layout)
    assert kept == emitted[-len(kept) :]


def test_a_replaced_log_resumes_by_id(repo: Repo) -> None:
    """A committed log rewritten by git (new inode) is re-read by id, not by a stale offset."""
    layout = _layout(repo)
    reader = EventStreamReader(layout, offset=None)
    reader.poll()
    kept = [bus.emit(layout, "state_updated", {"i": i}) for i in range(3)]
    assert len(reader.poll()) == 3
    log = repo.grid / "events" / "current.jsonl"
    text = log.read_text(encoding="utf-8")
    tmp = log.with_suffix(".new")
    tmp.write_text("".join(json.dumps(e) + "\n" for e in kept) + text, encoding="utf-8")
    os.replace(tmp, log)
    new = bus.emit(layout, "state_updated", {"i": 99})
    assert [e["id"] for e in reader.poll()] == [new["id"]]


def test_read_backwards_with_since_stops_at_the_window(repo: Repo, monkeypatch: pytest.MonkeyPatch) -> None:
    layout = _layout(repo)
    monkeypatch.setenv("GRIDGIT_NOW", "2026-01-01T00:00:00Z")
    for i in range(2000):
        bus.emit(layout, "state_updated", {"old": i})
    monkeypatch.setenv("GRIDGIT_NOW", "2026-01-01T01:00:00Z")
    recent = [bus.emit(layout, "file_modified", {"path": "a", "agent": "x", "operation": "modified"})]
    stats = lines.ReadStats()
    from gridgit.store import clock

    found = list(scan.read_backwards(layout, since=clock.parse("2026-01-01T00:55:00Z").timestamp(), stats=stats))
    assert found == recent
    assert stats.bytes_read <= 2 * lines.BLOCK < (repo.grid / "events" / "current.jsonl").stat().st_size


def test_tail_of_an_empty_or_missing_log(repo: Repo) -> None:
    layout = _layout(repo)
    (repo.grid / "events" / "current.jsonl").unlink()
    assert scan.tail(layout, 5) == []
    assert list(scan.read_forward(layout)) == []
    assert scan.end_position(layout).offset == 0


def test_end_position_skips_everything_so_far(repo: Repo) -> None:
    layout = _layout(repo)
    bus.emit(layout, "state_updated", {})
    reader = EventStreamReader.at_end(layout)
    assert reader.poll() == []
    new = bus.emit(layout, "phase_changed", {"old_phase": "01-foundation", "new_phase": "02-core"})
    assert reader.poll() == [new]


def test_payload_must_be_one_json_object() -> None:
    assert config.json_object('{"a": 1}', "payload") == {"a": 1}
    for bad in ("nope", "[1]", "3", '"s"'):
        with pytest.raises(BadInput, match=r"^payload"):
            config.json_object(bad, "payload")


def test_segment_paths_are_numbered(repo: Repo) -> None:
    layout = _layout(repo)
    assert segments.path(layout, 7) == Path(layout.events_dir) / "archive" / "current-000007.jsonl"
