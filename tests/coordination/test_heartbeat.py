"""Heartbeats (spec 6.4) and staleness (spec 6.5): ok, warning, stale, never."""

from __future__ import annotations

from datetime import datetime

import pytest

from gridgit.coordination import heartbeat
from gridgit.errors import BadInput, PermissionDenied
from gridgit.model import state
from gridgit.scratchpad import archive
from gridgit.store import clock
from gridgit.store.layout import Layout
from tests.conftest import Repo
from tests.scratchpad.test_store import PHASE, pad_of, set_limits, write


@pytest.fixture
def layout(repo: Repo) -> Layout:
    return Layout.find(repo.path)


def beat(layout: Layout, agent: str = "executor-001", **kw: object) -> object:
    args = {"block_id": "01-03", "thread_info": "thread 2", "progress_percent": 60, "current_action": "Writing POST"}
    args.update(kw)
    return heartbeat.write_heartbeat(layout, PHASE, agent, files_touched=["src/a.ts", "src/b.ts"], **args)  # type: ignore[arg-type]


def at(text: str) -> datetime:
    return clock.parse(text)


def test_heartbeat_entry_has_the_spec_format(repo: Repo, layout: Layout, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRIDGIT_NOW", "2026-01-24T16:30:00Z")
    first = beat(layout)
    monkeypatch.setenv("GRIDGIT_NOW", "2026-01-24T16:35:00Z")
    second = beat(layout, progress_percent=70)
    entry = pad_of(repo).entries[0]
    assert (entry.category, entry.topic, entry.relevance, entry.block_id) == ("heartbeat", "progress", "LOW", "01-03")
    assert (entry.title, entry.tags) == ("Heartbeat", ["heartbeat", "progress", "status"])
    assert entry.content == (
        "**Status:** Working on thread 2\n**Progress:** 60%\n**Current Action:** Writing POST\n"
        "**Files Touched:** src/a.ts, src/b.ts\n**Duration:** first heartbeat"
    )
    assert first.id == 1 and second.id == 2  # type: ignore[attr-defined]
    assert pad_of(repo).entries[1].content.endswith("**Duration:** 5 minutes since last heartbeat")


@pytest.mark.parametrize(
    ("now", "level", "stale", "minutes"),
    [
        ("2026-01-24T16:30:00Z", "ok", False, 0),
        ("2026-01-24T16:35:00Z", "ok", False, 5),
        ("2026-01-24T16:35:01Z", "warning", False, 5),
        ("2026-01-24T16:40:00Z", "warning", False, 10),
        ("2026-01-24T16:40:30Z", "stale", True, 10),
        ("2026-01-24T18:00:00Z", "stale", True, 90),
    ],
)
def test_staleness_levels(
    layout: Layout, monkeypatch: pytest.MonkeyPatch, now: str, level: str, stale: bool, minutes: int
) -> None:
    monkeypatch.setenv("GRIDGIT_NOW", "2026-01-24T16:30:00Z")
    beat(layout)
    report = heartbeat.check_agent_staleness(layout, PHASE, "executor-001", now=at(now))
    assert report == {
        "agent_id": "executor-001", "agent": "executor-001", "stale": stale,
        "last_heartbeat": "2026-01-24T16:30:00Z", "minutes_since": minutes, "warning_level": level,
    }  # fmt: skip


def test_no_heartbeat_is_stale(layout: Layout) -> None:
    write(layout, "executor-001")  # an entry, but no heartbeat
    report = heartbeat.check_agent_staleness(layout, PHASE, "executor-001")
    assert (report["stale"], report["last_heartbeat"], report["minutes_since"], report["warning_level"]) == (
        True, None, None, "stale",
    )  # fmt: skip


def test_staleness_uses_the_newest_heartbeat_and_the_clock(layout: Layout, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRIDGIT_NOW", "2026-01-24T16:00:00Z")
    beat(layout)
    monkeypatch.setenv("GRIDGIT_NOW", "2026-01-24T16:20:00Z")
    beat(layout)
    monkeypatch.setenv("GRIDGIT_NOW", "2026-01-24T16:26:00Z")
    assert heartbeat.check_agent_staleness(layout, PHASE, "executor-001")["warning_level"] == "warning"


def test_thresholds_come_from_config(layout: Layout, monkeypatch: pytest.MonkeyPatch) -> None:
    layout.config.write_text('{"heartbeat": {"warning_minutes": 1, "stale_minutes": 2}}', encoding="utf-8")
    monkeypatch.setenv("GRIDGIT_NOW", "2026-01-24T16:00:00Z")
    beat(layout)
    levels = [
        heartbeat.check_agent_staleness(layout, PHASE, "executor-001", now=at(f"2026-01-24T16:0{m}:30Z"))[
            "warning_level"
        ]
        for m in (0, 1, 2)
    ]
    assert levels == ["ok", "warning", "stale"]


def test_an_archived_heartbeat_still_counts(layout: Layout, monkeypatch: pytest.MonkeyPatch) -> None:
    set_limits(layout, max_entries=4, keep_recent=1)
    monkeypatch.setenv("GRIDGIT_NOW", "2026-01-24T16:00:00Z")
    beat(layout, agent="executor-002")
    for i in range(5):
        write(layout, "executor-001", topic=f"t{i}")
    assert all(e.agent_id != "executor-002" for e in pad_of_layout(layout))
    assert any(e.category == "heartbeat" for e in archive.read(layout, PHASE))
    monkeypatch.setenv("GRIDGIT_NOW", "2026-01-24T16:03:00Z")
    assert heartbeat.check_agent_staleness(layout, PHASE, "executor-002")["warning_level"] == "ok"


def pad_of_layout(layout: Layout) -> list:  # type: ignore[type-arg]
    from gridgit.scratchpad import store

    return store.load(layout, PHASE).entries


def test_stale_agents_watch_writers_and_active_agents(layout: Layout, monkeypatch: pytest.MonkeyPatch) -> None:
    state.update(
        layout,
        {
            "agents": {
                "active": [{"id": "executor-004", "task": "x"}, {"id": "executor-005", "phase": "02-core"}],
                "completed": [{"id": "executor-003"}],
            }
        },
        "mc",
    )
    monkeypatch.setenv("GRIDGIT_NOW", "2026-01-24T16:00:00Z")
    beat(layout, agent="executor-001")
    write(layout, "executor-002", topic="a")
    write(layout, "executor-003", topic="b")
    write(layout, "system", topic="c")
    write(layout, "mc", topic="d")
    monkeypatch.setenv("GRIDGIT_NOW", "2026-01-24T16:02:00Z")
    everyone = heartbeat.staleness_report(layout, PHASE)
    assert [(r["agent_id"], r["warning_level"]) for r in everyone] == [
        ("executor-001", "ok"), ("executor-002", "stale"), ("executor-004", "stale"),
    ]  # fmt: skip
    assert [r["agent_id"] for r in heartbeat.stale_agents(layout, PHASE)] == ["executor-002", "executor-004"]
    assert [r["agent_id"] for r in heartbeat.stale_agents(layout)] == ["executor-002", "executor-004"]
    later = at("2026-01-24T16:30:00Z")
    assert [r["agent_id"] for r in heartbeat.stale_agents(layout, PHASE, now=later)] == [
        "executor-001", "executor-002", "executor-004",
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"progress_percent": 101}, "progress"),
        ({"progress_percent": -1}, "progress"),
        ({"current_action": "  "}, "current action"),
        ({"current_action": "a\nb"}, "one line"),
        ({"thread_info": "a\rb"}, "one line"),
    ],
)
def test_bad_heartbeats_are_refused(repo: Repo, layout: Layout, change: dict[str, object], message: str) -> None:
    before = repo.snapshot()
    with pytest.raises(BadInput, match=message):
        beat(layout, **change)
    assert repo.snapshot() == before


def test_scouts_cannot_write_heartbeats(layout: Layout) -> None:
    with pytest.raises(PermissionDenied):
        beat(layout, agent="scout-001")


def test_a_heartbeat_reads_back_what_it_said(layout: Layout) -> None:
    entry = beat(layout)
    assert heartbeat.read_content(entry.content) == {  # type: ignore[attr-defined]
        "thread": "thread 2", "progress": 60, "action": "Writing POST", "files": ["src/a.ts", "src/b.ts"],
    }  # fmt: skip
    written = heartbeat.heartbeat_content("t", 5, "a", [], "first heartbeat")
    assert heartbeat.read_content(written)["files"] == []
    assert heartbeat.read_content("hand-written, no fields") == {
        "thread": None, "progress": None, "action": None, "files": [],
    }  # fmt: skip


def test_who_sends_heartbeats() -> None:
    assert heartbeat.sends_heartbeats("executor-001") and heartbeat.sends_heartbeats("memory-001")
    for agent in ("scout-001", "planner-002", "mc", "system", "mc-001"):
        assert not heartbeat.sends_heartbeats(agent), agent
