"""EventStreamReader and durable per-agent cursors: each event delivered once per agent."""

from __future__ import annotations

import json
import multiprocessing
import time
from pathlib import Path
from typing import Any

import pytest

from gridgit.errors import BadInput
from gridgit.events import bus, cursors, scan, segments
from gridgit.events.cursors import EventStreamReader
from gridgit.store.layout import Layout
from tests.conftest import Repo


def _layout(repo: Repo) -> Layout:
    return Layout.find(repo.path)


def _set_rotation(repo: Repo, rotate_bytes: int) -> None:
    path = repo.grid / "config.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data["events"].update({"rotate_bytes": rotate_bytes, "keep_segments": 0})
    path.write_text(json.dumps(data), encoding="utf-8")


def test_reader_filters_by_type_and_topic_and_calls_back(repo: Repo) -> None:
    layout = _layout(repo)
    seen: list[dict[str, Any]] = []
    reader = EventStreamReader(layout, types=["entry_written"], topics=["auth"], callback=seen.append)
    bus.emit(layout, "entry_written", {"topic": "auth", "entry_id": 1})
    bus.emit(layout, "entry_written", {"topic": "db", "entry_id": 2})
    bus.emit(layout, "entry_written", {"entry_id": 3})  # no topic: passes a topic filter (spec)
    bus.emit(layout, "state_updated", {"topic": "auth"})
    found = reader.poll()
    assert [e["payload"]["entry_id"] for e in found] == [1, 3]
    assert seen == found
    assert reader.poll() == []


def test_reader_from_a_byte_offset(repo: Repo) -> None:
    layout = _layout(repo)
    size = (repo.grid / "events" / "current.jsonl").stat().st_size
    new = bus.emit(layout, "state_updated", {})
    assert EventStreamReader(layout, offset=size).poll() == [new]
    assert EventStreamReader(layout).poll()[-1] == new
    with pytest.raises(BadInput):
        EventStreamReader(layout, offset=-1)


def test_poll_delivers_each_event_once_per_agent(repo: Repo) -> None:
    layout = _layout(repo)
    first_a = cursors.poll(layout, "executor-001")
    assert [e["type"] for e in first_a] == ["grid_initialised", "phase_started"]
    one = bus.emit(layout, "state_updated", {"n": 1})
    two = bus.emit(layout, "entry_written", {"n": 2})
    assert cursors.poll(layout, "executor-001") == [one, two]
    assert cursors.poll(layout, "executor-001") == []
    assert [e["id"] for e in cursors.poll(layout, "executor-002")] == [
        *(e["id"] for e in first_a),
        one["id"],
        two["id"],
    ]
    cursor_file = repo.grid / "events" / "cursors" / "executor-001.json"
    assert json.loads(cursor_file.read_text(encoding="utf-8"))["last_id"] == two["id"]


def test_poll_with_a_type_filter_and_a_limit(repo: Repo) -> None:
    layout = _layout(repo)
    cursors.poll(layout, "mc")
    wanted = [bus.emit(layout, "entry_written", {"n": i}) for i in range(5)]
    bus.emit(layout, "state_updated", {})
    assert cursors.poll(layout, "mc", types=["entry_written"], limit=2) == wanted[:2]
    assert cursors.poll(layout, "mc", types=["entry_written"]) == wanted[2:]
    assert cursors.poll(layout, "mc") == []  # filtered-out events count as seen
    with pytest.raises(BadInput):
        cursors.poll(layout, "mc", limit=0)


def test_reset_to_the_start_or_the_end(repo: Repo) -> None:
    layout = _layout(repo)
    bus.emit(layout, "state_updated", {})
    assert len(cursors.poll(layout, "scout-1")) == 3  # init's two events and this one
    cursors.reset(layout, "scout-1")
    assert len(cursors.poll(layout, "scout-1")) == 3
    bus.emit(layout, "state_updated", {})
    cursors.reset(layout, "scout-1", to_end=True)
    assert cursors.poll(layout, "scout-1") == []


def test_a_corrupt_cursor_is_a_clear_error(repo: Repo) -> None:
    layout = _layout(repo)
    cursors.poll(layout, "executor-001")
    path = repo.grid / "events" / "cursors" / "executor-001.json"
    path.write_text("{not json", encoding="utf-8")
    with pytest.raises(BadInput, match=r"executor-001\.json"):
        cursors.poll(layout, "executor-001")
    cursors.reset(layout, "executor-001")
    assert cursors.poll(layout, "executor-001")


@pytest.mark.parametrize("bad", ["../x", ".hidden", "a/b", ""])
def test_agent_ids_never_become_odd_paths(repo: Repo, bad: str) -> None:
    with pytest.raises(BadInput):
        cursors.poll(_layout(repo), bad)


def test_cursors_are_gitignored(repo: Repo) -> None:
    cursors.poll(_layout(repo), "executor-001")
    assert repo.git("status", "--porcelain", "--", ".grid/events").strip() == ""
    assert repo.git("check-ignore", ".grid/events/cursors/executor-001.json").strip()


# ---- real processes ----------------------------------------------------------------------


def _writer(root: str, worker: int, count: int) -> None:
    layout = Layout.find(root)
    for i in range(count):
        bus.emit(layout, "state_updated", {"w": worker, "i": i, "pad": "p" * (i % 7)})


def _poller(root: str, agent: str, out: str, stop_file: str) -> None:
    layout = Layout.find(root)
    seen: list[str] = []
    quiet_rounds = 0
    # Keep polling until the writers are done and a poll comes back empty after that.
    while quiet_rounds < 2:
        found = cursors.poll(layout, agent, limit=37)
        seen += [e["id"] for e in found]
        if not found and Path(stop_file).exists():
            quiet_rounds += 1
        time.sleep(0.001)
    Path(out).write_text("\n".join(seen), encoding="utf-8")


def _run_writers_and_pollers(repo: Repo, tmp_path: Path, pollers: list[str]) -> dict[str, list[list[str]]]:
    ctx = multiprocessing.get_context("fork")
    stop = tmp_path / "writers-done"
    outputs: dict[str, list[list[str]]] = {}
    polls = []
    for n, agent in enumerate(pollers):
        out = tmp_path / f"out-{n}.txt"
        polls.append((agent, out, ctx.Process(target=_poller, args=(str(repo.path), agent, str(out), str(stop)))))
    writers = [ctx.Process(target=_writer, args=(str(repo.path), w, 150)) for w in range(4)]
    for *_, proc in polls:
        proc.start()
    for proc in writers:
        proc.start()
    for proc in writers:
        proc.join(timeout=120)
        assert proc.exitcode == 0
    stop.touch()
    for agent, out, proc in polls:
        proc.join(timeout=120)
        assert proc.exitcode == 0
        outputs.setdefault(agent, []).append([line for line in out.read_text(encoding="utf-8").split("\n") if line])
    return outputs


def test_two_agents_polling_while_writers_append_get_everything_once(repo: Repo, tmp_path: Path) -> None:
    outputs = _run_writers_and_pollers(repo, tmp_path, ["executor-001", "executor-002"])
    every = [e["id"] for e in scan.read_forward(_layout(repo))]
    assert len(every) == 2 + 4 * 150  # init's two events and the writers'
    for agent in ("executor-001", "executor-002"):
        assert outputs[agent][0] == every


def test_exactly_once_across_rotations(repo: Repo, tmp_path: Path) -> None:
    _set_rotation(repo, 3000)
    outputs = _run_writers_and_pollers(repo, tmp_path, ["executor-001", "executor-002"])
    layout = _layout(repo)
    assert len(segments.archived(layout)) >= 10
    every = [e["id"] for e in scan.read_forward(layout)]
    assert len(every) == 2 + 4 * 150  # init's two events and the writers'
    for agent in ("executor-001", "executor-002"):
        assert outputs[agent][0] == every


def test_two_pollers_of_one_agent_never_double_deliver(repo: Repo, tmp_path: Path) -> None:
    _set_rotation(repo, 5000)
    outputs = _run_writers_and_pollers(repo, tmp_path, ["mc", "mc"])
    got = outputs["mc"][0] + outputs["mc"][1]
    every = [e["id"] for e in scan.read_forward(_layout(repo))]
    assert sorted(got) == sorted(every)
    assert len(set(got)) == len(got)
