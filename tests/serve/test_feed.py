"""The live feed: Server-Sent Events from the end of the event log, to every open stream."""

from __future__ import annotations

import time

import pytest

from gridgit import Blackboard
from tests.conftest import Repo
from tests.serve.conftest import Server


def test_a_write_by_another_process_reaches_every_stream_within_two_seconds(served: tuple[Repo, Server]) -> None:
    repo, server = served
    first, second = server.stream(), server.stream()
    try:
        repo.gridgit("write", "-c", "pattern", "-t", "sse-live", "--content", "Pattern: one feed", agent="executor-001")
        written = time.monotonic()
        for stream in (first, second):
            event = stream.event(timeout=5)
            assert (event["type"], event["payload"]["topic"]) == ("entry_written", "sse-live")
        assert time.monotonic() - written < 2.0
    finally:
        first.close()
        second.close()


def test_a_reconnecting_page_gets_what_it_missed(served: tuple[Repo, Server]) -> None:
    repo, server = served
    board = Blackboard(repo.path)
    stream = server.stream()
    try:
        board.emit("agent_spawned", {"agent": "executor-009"})
        missed = stream.event()
        board.emit("agent_stale", {"agent": "executor-009"})
        stream.event()  # the feed has it now
    finally:
        stream.close()
    # EventSource reconnects with the id of the last event it saw.
    again = server.stream(headers={"Last-Event-ID": missed["id"]})
    try:
        assert again.event()["type"] == "agent_stale"
    finally:
        again.close()


def test_a_stream_that_fell_behind_is_told_to_read_everything_again(board: Blackboard) -> None:
    from gridgit.serve.feed import EventFeed, TooManyClients

    feed = EventFeed(board.layout, interval=0.01, keep=3, max_clients=1)
    feed.start()
    try:
        feed.check_room()
        feed.check_room()  # asking (a HEAD) takes no slot: the GET after it is served
        start = feed.join()
        with pytest.raises(TooManyClients):
            feed.join()
        with pytest.raises(TooManyClients):
            feed.check_room()
        for n in range(5):
            board.emit("agent_spawned", {"agent": f"executor-{n:03d}"})
        deadline = time.monotonic() + 10
        got = feed.wait(start, 1)
        while got is not None and got[1] < start + 5 and time.monotonic() < deadline:
            got = feed.wait(start, 1)
        assert got is not None
        fresh, last, lost = got
        assert last == start + 5 and lost  # two of the five fell out of the buffer
        assert [e["payload"]["agent"] for e in fresh] == ["executor-002", "executor-003", "executor-004"]
        assert feed.wait(last, 0.05) == ([], last, False)  # nothing new: an empty answer, a keep-alive
        feed.leave()
    finally:
        feed.close()
    assert feed.wait(0, 5) is None  # closed: every stream ends at once
