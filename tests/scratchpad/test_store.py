"""The scratchpad store: write path, merge protocol, handoff events, reads, reindex, concurrency."""

from __future__ import annotations

import json
import multiprocessing
import os
import random
import signal
import time
from pathlib import Path
from typing import Any

import pytest

from gridgit.errors import BadInput, NotFound, NotInitialised, PermissionDenied
from gridgit.phases import archiving
from gridgit.scratchpad import archive, reads, store
from gridgit.scratchpad.document import Scratchpad
from gridgit.scratchpad.entry import CATEGORIES
from gridgit.store import ids
from gridgit.store.layout import Layout
from tests.conftest import Repo

PHASE = "01-foundation"


def pad_of(repo: Repo, phase: str = PHASE) -> Scratchpad:
    path = repo.grid / "phases" / phase / "scratchpad.md"
    return Scratchpad.parse(path.read_text(encoding="utf-8"), str(path))


def set_limits(layout: Layout, max_entries: int, keep_recent: int, phase: str = PHASE) -> None:
    """A small scratchpad: max_entries in its index (and config.json when it allows), keep_recent in config.json."""
    config = json.loads(layout.config.read_text(encoding="utf-8"))
    config.setdefault("scratchpad", {})["keep_recent"] = keep_recent
    if keep_recent < max_entries:  # else config.json is refused: the write path's clamp is what is tested
        config["scratchpad"]["max_entries"] = max_entries
    layout.config.write_text(json.dumps(config), encoding="utf-8")
    with store.modify(layout, phase) as pad:
        pad.meta["index"]["max_entries"] = max_entries


def write(
    layout: Layout, agent: str, category: str = "discovery", topic: str = "auth", content: str = "x", **kw: Any
) -> Any:
    return store.write_entry(layout, PHASE, agent, category, topic, content, kw.pop("tags", []), **kw)


@pytest.fixture
def layout(repo: Repo) -> Layout:
    return Layout.find(repo.path)


# ---- the write path ----------------------------------------------------------------------


def test_write_appends_an_entry_with_a_current_index(repo: Repo, layout: Layout) -> None:
    entry = write(layout, "executor-001", "gotcha", "Auth", "Gotcha: order", tags=["jwt"], block_id="01-02")
    assert (entry.id, entry.topic, entry.relevance, entry.title, entry.block_id) == (
        1,
        "auth",
        "MEDIUM",
        "Auth",
        "01-02",
    )
    pad = pad_of(repo)
    assert pad.entries == [entry]
    assert pad.index_is_current()
    assert pad.meta["index"]["by_topic"] == {"auth": [1]}
    assert pad.meta["last_updated"] == entry.timestamp
    event = repo.events("entry_written")[-1]["payload"]
    assert event == {
        "phase_id": PHASE, "entry_id": 1, "entry_uid": entry.uid, "topic": "auth", "relevance": "MEDIUM",
        "agent": "executor-001", "category": "gotcha", "block": "01-02", "summary": "Gotcha: order", "subscribers": [],
    }  # fmt: skip
    assert ids.is_id(entry.uid)


def test_relevance_is_determined_when_not_given(layout: Layout) -> None:
    assert write(layout, "executor-001", "blocker", "stripe").relevance == "HIGH"
    assert write(layout, "executor-001", "question", "why").relevance == "LOW"
    assert write(layout, "executor-001", "question", "sec", tags=["security"]).relevance == "HIGH"
    assert write(layout, "executor-001", "question", "given", relevance="medium").relevance == "MEDIUM"


def test_secrets_are_redacted_in_content_title_tags_and_block(repo: Repo, layout: Layout) -> None:
    entry = write(
        layout, "executor-001", content="api_key=abc123 and ghp_" + "a" * 36,
        title="password: hunter2", tags=["token=xyz"], block_id="secret=s3",
    )  # fmt: skip
    text = (repo.grid / "phases" / PHASE / "scratchpad.md").read_text(encoding="utf-8")
    for secret in ("abc123", "ghp_", "hunter2", "xyz", "s3"):
        assert secret not in text
    assert entry.content == "api_key=[REDACTED] and [REDACTED]"
    assert (entry.title, entry.tags, entry.block_id) == (
        "password: [REDACTED]",
        ["token=[REDACTED]"],
        "secret=[REDACTED]",
    )


def test_permissions_of_writers(layout: Layout) -> None:
    for agent in ("mc", "executor-001", "recognizer-001", "memory-001", "system"):
        write(layout, agent, topic=f"t-{agent.split('-')[0]}")
    for agent in ("planner-001", "scout-001"):
        with pytest.raises(PermissionDenied):
            write(layout, agent)
    write(layout, "scout-001", topic="allowed", check_permission=False)


def test_first_write_to_a_defined_phase_creates_its_scratchpad(repo: Repo, layout: Layout) -> None:
    entry = store.write_entry(layout, "02-core", "executor-001", "discovery", "db", "x", [])
    assert entry.id == 1
    assert pad_of(repo, "02-core").meta["phase_name"] == "Core Features"
    with pytest.raises(NotFound, match="phase 07-unknown does not exist"):
        store.write_entry(layout, "07-unknown", "executor-001", "discovery", "db", "x", [])
    assert not (repo.grid / "phases" / "07-unknown").exists()


# ---- merge protocol (blackboard-spec handle_scratchpad_conflict) -----------------------------


def test_same_agent_never_merges(layout: Layout) -> None:
    first = write(layout, "executor-001", content="one")
    second = write(layout, "executor-001", content="two")
    assert (first.id, second.id) == (1, 2)


def test_other_agent_within_window_merges(repo: Repo, layout: Layout, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRIDGIT_NOW", "2026-01-24T14:00:00Z")
    write(layout, "executor-001", content="Found: A\n\n---\n\nmore", tags=["a", "b"], relevance="MEDIUM")
    monkeypatch.setenv("GRIDGIT_NOW", "2026-01-24T14:04:59Z")
    merged = write(layout, "executor-002", content="Found: B", tags=["b", "c"], relevance="HIGH")
    assert merged.id == 1
    assert merged.content == "Found: A\n\n---\n\nmore\n\n---\n\n**Update from executor-002:**\nFound: B"
    assert merged.tags == ["a", "b", "c"]
    assert merged.contributors == ["executor-001", "executor-002"]
    assert merged.relevance == "HIGH"
    assert merged.timestamp == "2026-01-24T14:00:00Z"
    pad = pad_of(repo)
    assert pad.entries == [merged] and pad.index_is_current()
    assert pad.meta["index"]["by_agent"] == {"executor-001": [1], "executor-002": [1]}
    assert repo.events("entry_merged")[-1]["payload"]["merged_from"] == "executor-002"
    assert repo.events("entry_merged")[-1]["payload"]["entry_id"] == 1
    # A third agent merges too, and the contributors grow without duplicates.
    again = write(layout, "executor-003", content="C")
    assert again.contributors == ["executor-001", "executor-002", "executor-003"]
    assert reads.read_entries(layout, PHASE, agent_id="executor-003") == [again]


def test_other_agent_outside_window_writes_a_new_entry(layout: Layout, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRIDGIT_NOW", "2026-01-24T14:00:00Z")
    write(layout, "executor-001")
    monkeypatch.setenv("GRIDGIT_NOW", "2026-01-24T14:05:00Z")
    assert write(layout, "executor-002").id == 2


def test_different_category_or_topic_never_merges(layout: Layout) -> None:
    write(layout, "executor-001", "discovery", "auth")
    assert write(layout, "executor-002", "gotcha", "auth").id == 2
    assert write(layout, "executor-002", "discovery", "api").id == 3


def test_heartbeats_never_merge(layout: Layout) -> None:
    write(layout, "executor-001", "heartbeat", "progress")
    assert write(layout, "executor-002", "heartbeat", "progress").id == 2


def test_merge_window_comes_from_config(repo: Repo, layout: Layout, monkeypatch: pytest.MonkeyPatch) -> None:
    layout.config.write_text(json.dumps({"scratchpad": {"merge_window_minutes": 60}}), encoding="utf-8")
    monkeypatch.setenv("GRIDGIT_NOW", "2026-01-24T14:00:00Z")
    write(layout, "executor-001")
    monkeypatch.setenv("GRIDGIT_NOW", "2026-01-24T14:30:00Z")
    assert write(layout, "executor-002").id == 1


# ---- handoffs ---------------------------------------------------------------------------------


def test_handoff_posts_an_event(repo: Repo, layout: Layout) -> None:
    entry = write(layout, "executor-001", "handoff", "auth", block_id="01-02 -> 01-03")
    assert repo.events("handoff_posted")[-1]["payload"] == {
        "from_agent": "executor-001", "from_block": "01-02", "to_block": "01-03", "to_agent": None,
        "entry_id": entry.id, "entry_uid": entry.uid, "phase_id": PHASE, "topic": "auth",
    }  # fmt: skip
    write(layout, "executor-001", "handoff", "api", block_id="01-02 -> executor-003")
    assert repo.events("handoff_posted")[-1]["payload"]["to_agent"] == "executor-003"
    assert repo.events("entry_written")[-1]["payload"]["to_agent"] == "executor-003"


# ---- reads ------------------------------------------------------------------------------------


def _fill(layout: Layout) -> None:
    write(layout, "executor-001", "discovery", "auth", "1", relevance="HIGH")
    write(layout, "executor-002", "gotcha", "api", "2", relevance="MEDIUM")
    write(layout, "executor-001", "heartbeat", "progress", "3")
    write(layout, "executor-002", "blocker", "stripe", "4")
    write(layout, "executor-001", "handoff", "auth", "5", relevance="MEDIUM")


def test_read_filters_newest_first(layout: Layout) -> None:
    _fill(layout)

    def ids(**kw: Any) -> list[int]:
        return [e.id for e in reads.read_entries(layout, PHASE, **kw)]

    assert ids() == [5, 4, 3, 2, 1]
    assert ids(topic="auth") == [5, 1]
    assert ids(topic="nothing") == []
    assert ids(category="gotcha") == [2]
    assert ids(agent_id="executor-002") == [4, 2]
    assert ids(relevance="HIGH") == [4, 1]
    assert ids(relevance="MEDIUM") == [5, 4, 2, 1]
    assert ids(relevance="LOW") == [5, 4, 3, 2, 1]
    assert ids(limit=2) == [5, 4]
    assert ids(topic="auth", relevance="HIGH") == [1]
    assert [e.id for e in reads.get_blockers(layout, PHASE)] == [4]
    assert [e.id for e in reads.get_handoffs(layout, PHASE)] == [5]
    assert [e.id for e in reads.lookup_by_topic(layout, PHASE, "api")] == [2]
    assert [e.id for e in reads.lookup_by_category(layout, PHASE, "heartbeat")] == [3]
    assert [e.id for e in reads.get_recent_entries(layout, PHASE, 3)] == [5, 4, 3]
    assert [e.id for e in reads.get_high_relevance(layout, PHASE)] == [4, 1]
    assert [e.id for e in reads.get_agent_entries(layout, PHASE, "executor-001")] == [5, 3, 1]
    assert reads.read_entries(layout, "02-core") == []
    with pytest.raises(BadInput):
        reads.read_entries(layout, PHASE, category="rumour")
    with pytest.raises(BadInput):
        reads.read_entries(layout, PHASE, relevance="URGENT")


def test_read_falls_back_to_the_body_when_the_index_drifted(repo: Repo, layout: Layout) -> None:
    _fill(layout)
    path = repo.grid / "phases" / PHASE / "scratchpad.md"
    text = path.read_text(encoding="utf-8")
    # A hand edit: a new entry appended without touching the index, and a topic renamed.
    text = text.replace("| gotcha | api", "| gotcha | rest")
    text += "### [6] [2026-01-24T15:00:00Z] executor-009 | discovery | auth\n\n**Relevance:** LOW\n\nby hand\n\n---\n\n"
    path.write_text(text, encoding="utf-8")
    assert [e.id for e in reads.read_entries(layout, PHASE, topic="auth")] == [6, 5, 1]
    assert [e.id for e in reads.read_entries(layout, PHASE, topic="rest")] == [2]
    assert reads.read_entries(layout, PHASE, topic="api") == []


# ---- reindex and modify --------------------------------------------------------------------


def test_reindex_repairs_a_hand_edit_and_keeps_the_body(repo: Repo, layout: Layout) -> None:
    _fill(layout)
    path = repo.grid / "phases" / PHASE / "scratchpad.md"
    edited = path.read_text(encoding="utf-8").replace("| gotcha | api", "| gotcha | rest") + "\nhand notes\n"
    path.write_text(edited, encoding="utf-8")
    assert store.reindex(layout, PHASE) is True
    after = path.read_text(encoding="utf-8")
    assert after.endswith("| gotcha | rest" + edited.split("| gotcha | rest", 1)[1])
    assert pad_of(repo).index_is_current()
    assert pad_of(repo).meta["index"]["by_topic"]["rest"] == [2]
    assert store.reindex(layout, PHASE) is False
    assert path.read_text(encoding="utf-8") == after


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("phase_name: Foundation", "phase_name: [unclosed", r"line \d+: "),
        ("| gotcha | api", "gotcha api", "broken entry header"),
        ("**Relevance:** MEDIUM", "**Relevance:** SOMEWHAT", "relevance"),
    ],
)
def test_reindex_refuses_a_broken_body(repo: Repo, layout: Layout, old: str, new: str, message: str) -> None:
    _fill(layout)
    path = repo.grid / "phases" / PHASE / "scratchpad.md"
    broken = path.read_text(encoding="utf-8").replace(old, new, 1)
    path.write_text(broken, encoding="utf-8")
    with pytest.raises(BadInput, match=message) as info:
        store.reindex(layout, PHASE)
    assert str(path) in str(info.value)
    assert path.read_text(encoding="utf-8") == broken
    with pytest.raises(BadInput):
        write(layout, "executor-001")
    assert path.read_text(encoding="utf-8") == broken


def test_modify_writes_only_a_change(repo: Repo, layout: Layout) -> None:
    write(layout, "executor-001", content="Evidence: src/a.py")
    path = repo.grid / "phases" / PHASE / "scratchpad.md"
    before = path.stat().st_mtime_ns, path.read_text(encoding="utf-8")
    with store.modify(layout, PHASE) as pad:
        assert pad.entries[0].content == "Evidence: src/a.py"
    assert (path.stat().st_mtime_ns, path.read_text(encoding="utf-8")) == before
    with store.modify(layout, PHASE) as pad:
        pad.entries[0].content += "\n- Commit: abc1234"
        pad.entries[0].topic = "api"
    assert pad_of(repo).entries[0].content.endswith("Commit: abc1234")
    assert pad_of(repo).meta["index"]["by_topic"] == {"api": [1]}
    with pytest.raises(RuntimeError), store.modify(layout, PHASE) as pad:
        pad.entries.clear()
        raise RuntimeError("boom")
    assert len(pad_of(repo).entries) == 1
    with pytest.raises(NotFound):
        store.reindex(layout, "02-core")


# ---- invariants over random sequences ------------------------------------------------------


def test_index_equals_rebuild_after_every_step(repo: Repo, layout: Layout, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(20260124)
    set_limits(layout, max_entries=9, keep_recent=4)
    agents = ["executor-001", "executor-002", "recognizer-001", "memory-001"]
    minute = 0
    for step in range(120):
        minute += rng.choice([0, 1, 7])
        monkeypatch.setenv("GRIDGIT_NOW", f"2026-01-24T{10 + minute // 60:02d}:{minute % 60:02d}:00Z")
        action = rng.random()
        if action < 0.8:
            write(
                layout, rng.choice(agents), rng.choice(CATEGORIES), rng.choice(["auth", "api", "db"]),
                f"step {step}\n---\n### [1] [x] a | b | c", tags=rng.sample(["a", "b", "c"], 2),
            )  # fmt: skip
        elif action < 0.9:
            archiving.archive_phase(layout, PHASE)
        else:
            assert store.reindex(layout, PHASE) is False
        pad = pad_of(repo)
        assert pad.index_is_current(), f"step {step}"
        assert [e.id for e in pad.entries] == list(range(1, len(pad.entries) + 1))
        assert len([e for e in pad.entries if not e.is_open]) <= 9  # open work stays live, uncounted
        archived = archive.read(layout, PHASE)
        assert [e.id for e in archived] == list(range(1, len(archived) + 1))


# ---- real processes ----------------------------------------------------------------------------


def _writer(root: str, number: int, count: int) -> None:
    layout = Layout.find(root)
    for i in range(count):
        store.write_entry(layout, PHASE, f"executor-{number:03d}", "discovery", f"w{number}", f"p{number}-i{i}", [])


def test_eight_processes_lose_nothing(repo: Repo, layout: Layout) -> None:
    set_limits(layout, max_entries=30, keep_recent=10)
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_writer, args=(str(repo.path), n, 100)) for n in range(8)]
    for proc in procs:
        proc.start()
    for proc in procs:
        proc.join(timeout=240)
        assert proc.exitcode == 0
    pad = pad_of(repo)
    archived = archive.read(layout, PHASE)
    contents = [e.content for e in archived + pad.entries]
    assert sorted(contents) == sorted(f"p{n}-i{i}" for n in range(8) for i in range(100))
    assert len({e.uid for e in archived + pad.entries}) == 800  # ids made by 8 processes at once never collide
    assert [e.id for e in pad.entries] == list(range(1, len(pad.entries) + 1))
    assert [e.id for e in archived] == list(range(1, len(archived) + 1))
    assert pad.index_is_current()
    assert pad.meta["archive"]["archived_count"] == len(archived)
    for n in range(8):  # each writer's entries stay in its own order
        mine = [int(c.split("-i")[1]) for c in contents if c.startswith(f"p{n}-")]
        assert mine == sorted(mine)


def _endless_writer(root: str) -> None:
    layout = Layout.find(root)
    i = 0
    while True:
        store.write_entry(layout, PHASE, "executor-001", "discovery", "loop", f"entry {i} " + "x" * 2000, [])
        i += 1


def test_killed_writer_leaves_a_parseable_scratchpad(repo: Repo, layout: Layout) -> None:
    set_limits(layout, max_entries=12, keep_recent=5)
    ctx = multiprocessing.get_context("spawn")
    proc = ctx.Process(target=_endless_writer, args=(str(repo.path),))
    proc.start()
    path = repo.grid / "phases" / PHASE / "scratchpad.md"
    deadline = time.monotonic() + 60
    try:
        while time.monotonic() < deadline and not path.with_name("scratchpad_archived.md").exists():
            time.sleep(0.02)
        time.sleep(0.05)
    finally:
        assert proc.pid is not None
        os.kill(proc.pid, signal.SIGKILL)
        proc.join(timeout=30)
    assert proc.exitcode == -signal.SIGKILL
    pad = pad_of(repo)
    assert pad.index_is_current() and pad.entries
    numbers = [int(e.content.split()[1]) for e in archive.read(layout, PHASE) + pad.entries]
    # Nothing lost; a kill between the archive write and the scratchpad write may duplicate.
    assert sorted(set(numbers)) == list(range(max(numbers) + 1))
    # The lock died with the process: the next write goes through, and its auto-archive
    # does not double what the killed one had already archived.
    write(layout, "executor-002", topic="after")
    assert pad_of(repo).entries[-1].topic == "after" and pad_of(repo).index_is_current()
    everything = [e.content for e in archive.read(layout, PHASE) + pad_of(repo).entries]
    assert len(everything) == len(set(everything))


def test_missing_blackboard_is_not_initialised(bare_repo: Repo) -> None:
    with pytest.raises(NotInitialised):
        store.write_entry(Layout.find(bare_repo.path), PHASE, "executor-001", "discovery", "a", "x", [])
    assert not Path(bare_repo.path / ".grid").exists()


def test_blackboard_api(board: Any, repo: Repo) -> None:
    board.plan_block("01-02", agent="mc")  # STATE's position follows: block 01-02
    entry = board.write("blocker", "stripe", "Blocker: key", tags=["stripe"], agent="executor-001")
    assert (entry.block_id, entry.relevance) == ("01-02", "HIGH")
    board.write("handoff", "auth", "Handoff: done", block="01-03", phase=PHASE, agent="executor-002")
    board.heartbeat(50, "coding", thread="thread 1", files=["a.py"], agent="executor-001")
    assert [e.id for e in board.read()] == [3, 2, 1]
    assert [e.id for e in board.blockers()] == [1]
    assert [e.id for e in board.handoffs(PHASE)] == [2]
    assert [e.id for e in board.lookup_by_topic("auth")] == [2]
    assert [e.id for e in board.lookup_by_category("heartbeat")] == [3]
    assert [e.id for e in board.recent(2)] == [3, 2]
    assert [e.id for e in board.high_relevance()] == [1]
    assert [e.id for e in board.agent_entries("executor-002")] == [2]
    assert board.staleness("executor-001")["warning_level"] == "ok"
    assert [r["agent_id"] for r in board.stale()] == []  # executor-002's handoff is a sign of its work
    assert [r["agent_id"] for r in board.stale(everyone=True)] == ["executor-001", "executor-002"]
    assert board.subscribe(["auth"], "high", agent="executor-003")["relevance_min"] == "HIGH"
    assert board.reindex() == {PHASE: False}
    path = repo.grid / "phases" / PHASE / "scratchpad.md"
    path.write_text(path.read_text(encoding="utf-8").replace("| handoff | auth", "| handoff | api"), encoding="utf-8")
    assert board.reindex(PHASE) == {PHASE: True}
    path.write_text(path.read_text(encoding="utf-8").replace("| handoff | api", "handoff api"), encoding="utf-8")
    with pytest.raises(BadInput, match="broken entry header"):
        board.reindex()


def test_an_entry_supersedes_an_earlier_one_of_its_topic_by_saying_so(repo: Repo) -> None:
    first = repo.gridgit_json("write", "-c", "gotcha", "-t", "db", "--content", "Gotcha: a", agent="executor-001")
    # Another agent, within the merge window: a replacement is an entry of its own, never merged.
    second = repo.gridgit_json(
        "write", "-c", "gotcha", "-t", "db", "--content", "Gotcha: b", "--supersedes", "1", agent="executor-002"
    )
    assert (second["id"], second["supersedes"], second.get("contributors")) == (2, first["uid"], None)
    assert f"**Supersedes:** {first['uid']}\n" in pad_of(repo).render()
    archiving.archive_phase(Layout.find(repo.path), PHASE)
    by_id = repo.gridgit_json(
        "write",
        "-c",
        "gotcha",
        "-t",
        "db",
        "--content",
        "Gotcha: c",
        "--supersedes",
        second["uid"],
        agent="executor-003",
    )
    assert by_id["supersedes"] == second["uid"]  # found in the archive
    for ref, code, message in (
        ("9", 7, "has no such entry"),
        ("01KFR6JVJ0KYS4J4C0WE0J0MHM", 7, "has no such entry"),
        (f"02-core#{by_id['id']}", 1, "one of its own phase"),
        ("x y", 1, "give the entry's number"),
    ):
        before = repo.snapshot()
        proc = repo.gridgit("write", "-c", "gotcha", "-t", "db", "--content", "Gotcha: d", "--supersedes", ref,
                            agent="executor-001", check=False)  # fmt: skip
        assert proc.returncode == code and message in proc.stderr, proc.stderr
        assert repo.snapshot() == before
    repo.gridgit("write", "-c", "pattern", "-t", "ui", "--content", "Pattern: tabs", agent="executor-001")
    proc = repo.gridgit("write", "-c", "gotcha", "-t", "db", "--content", "Gotcha: e", "--supersedes", "2",
                        agent="executor-001", check=False)  # fmt: skip
    assert proc.returncode == 1 and "topic is ui, not db" in proc.stderr
