"""Two agents, each through its own `gridgit mcp` process, writing into one phase at once: nothing lost.

Each client also sends from two threads, so calls overlap inside each server as well.
"""

from __future__ import annotations

import threading
from typing import Any

from gridgit.scratchpad.document import Scratchpad
from tests.conftest import Repo

WRITES = 8  # per thread
THREADS = 2  # per client


def test_two_clients_writing_into_one_phase_lose_nothing(clients: Any, repo: Repo) -> None:
    agents = ["executor-001", "executor-002"]
    started = dict(zip(agents, [clients(repo, agent) for agent in agents], strict=True))
    numbers: list[int] = []
    failures: list[BaseException] = []
    go = threading.Barrier(len(agents) * THREADS)

    def write_all(agent: str, thread: int) -> None:
        go.wait()
        try:
            for n in range(WRITES):
                topic = f"{agent}-{thread}-{n}"
                written = started[agent].data(
                    "write_entry", category="discovery", topic=topic, content=f"Found: {topic}"
                )
                numbers.append(written["entry"])
        except BaseException as exc:  # reported below: a thread's exception would vanish
            failures.append(exc)

    threads = [threading.Thread(target=write_all, args=(a, t)) for a in agents for t in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not failures, failures

    path = repo.grid / "phases" / "01-foundation" / "scratchpad.md"
    pad = Scratchpad.parse(path.read_text(encoding="utf-8"), str(path))
    expected = {(a, f"Found: {a}-{t}-{n}") for a in agents for t in range(THREADS) for n in range(WRITES)}
    assert {(e.agent_id, e.content) for e in pad.entries} == expected
    assert sorted(e.id for e in pad.entries) == sorted(numbers) == list(range(1, len(expected) + 1))
    assert pad.meta["index"] == pad.rebuilt_index()
    assert len(repo.events("entry_written")) == len(expected)
