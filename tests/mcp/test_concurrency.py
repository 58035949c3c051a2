"""Two agents, each through its own `gridgit mcp` process, writing into one phase at once: nothing lost."""

from __future__ import annotations

import threading
from typing import Any

from gridgit.scratchpad.document import Scratchpad
from tests.conftest import Repo

WRITES = 12


def test_two_clients_writing_into_one_phase_lose_nothing(clients: Any, repo: Repo) -> None:
    agents = ["executor-001", "executor-002"]
    started = [clients(repo, agent) for agent in agents]
    answers: dict[str, list[int]] = {agent: [] for agent in agents}
    go = threading.Barrier(len(agents))

    def write_all(agent: str, client: Any) -> None:
        go.wait()
        for n in range(WRITES):
            written = client.data(
                "write_entry", category="discovery", topic=f"{agent}-{n}", content=f"Found: {agent} {n}"
            )
            answers[agent].append(written["entry"])

    threads = [threading.Thread(target=write_all, args=pair) for pair in zip(agents, started, strict=True)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert sum(len(a) for a in answers.values()) == WRITES * len(agents)

    path = repo.grid / "phases" / "01-foundation" / "scratchpad.md"
    pad = Scratchpad.parse(path.read_text(encoding="utf-8"), str(path))
    found = {(e.agent_id, e.content) for e in pad.entries}
    assert found == {(agent, f"Found: {agent} {n}") for agent in agents for n in range(WRITES)}
    assert sorted(e.id for e in pad.entries) == sorted(n for a in answers.values() for n in a)
    assert pad.meta["index"] == pad.rebuilt_index()
    assert len(repo.events("entry_written")) == WRITES * len(agents)
