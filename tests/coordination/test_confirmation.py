"""`gridgit confirm`: validations recorded on the entry, counted by promotion, refused where they mean nothing."""

from __future__ import annotations

import json
from typing import Any

from gridgit.history.entry_merge import merge_entry
from gridgit.scratchpad import archive, store
from gridgit.scratchpad.entry import Entry, Validation
from gridgit.store.layout import Layout
from tests.conftest import Repo

P1 = "01-foundation"
GOTCHA = "Gotcha: the pool is per thread\nFirst Hit: a hang\nFix: one pool per process"


def _gotcha(repo: Repo, agent: str = "executor-001", topic: str = "db") -> Entry:
    return store.write_entry(Layout.find(repo.path), P1, agent, "gotcha", topic, GOTCHA, [], "HIGH")


def _fails(repo: Repo, *args: str, agent: str, code: int, match: str) -> None:
    before = repo.snapshot()
    proc = repo.gridgit(*args, agent=agent, check=False)
    assert proc.returncode == code, proc.stderr
    assert proc.stderr.startswith("gridgit: error: ") and match in proc.stderr and proc.stderr.count("\n") == 1
    assert repo.snapshot() == before


def test_a_confirmation_is_recorded_on_the_entry_once_per_agent(repo: Repo) -> None:
    entry = _gotcha(repo)
    first = repo.gridgit_json("confirm", "1", "--note", "hit it in the importer too", agent="executor-002")
    assert (first["entry_ref"], first["uid"], first["already"]) == (f"{P1}#1", entry.uid, False)
    assert [(v["by"], v["note"]) for v in first["validations"]] == [("executor-002", "hit it in the importer too")]
    by_id = repo.gridgit("confirm", entry.uid, agent="executor-003").stdout
    assert by_id.strip() == f"{P1}#1 (gotcha | db) confirmed: 2 validation(s)"
    again = repo.gridgit_json("confirm", f"{P1}#1", agent="executor-002")
    assert again["already"] is True and len(again["validations"]) == 2
    text = (repo.grid / "phases" / P1 / "scratchpad.md").read_text(encoding="utf-8")
    assert "**Validated:** " in text and "by executor-002: hit it in the importer too\n" in text
    (stored,) = store.load(Layout.find(repo.path), P1).entries
    assert stored.validated_by() == ["executor-002", "executor-003"]
    events = repo.events("entry_confirmed")
    assert [(e["payload"]["agent"], e["payload"]["validations"]) for e in events] == [
        ("executor-002", 1),
        ("executor-003", 2),
    ]
    assert events[0]["payload"]["entry_uid"] == entry.uid and events[0]["payload"]["entry_agent"] == "executor-001"


def test_what_cannot_be_confirmed(repo: Repo) -> None:
    _gotcha(repo)
    repo.gridgit("write", "-c", "gotcha", "-t", "db", "--content", "Gotcha: also", agent="executor-004")  # merged
    layout = Layout.find(repo.path)
    store.write_entry(layout, P1, "executor-001", "heartbeat", "progress", "**Status:** x", [], "LOW")
    _fails(repo, "confirm", "1", agent="executor-001", code=1, match="executor-001's own")
    _fails(repo, "confirm", "1", agent="executor-004", code=1, match="executor-004's own")  # a contributor
    _fails(repo, "confirm", "2", agent="executor-002", code=1, match="is a heartbeat")
    _fails(repo, "confirm", "9", agent="executor-002", code=7, match="has no entry [9]")
    _fails(repo, "confirm", "01KFR6JVJ0KYS4J4C0WE0J0MHM", agent="executor-002", code=7, match="has no entry")
    _fails(repo, "confirm", "nonsense", agent="executor-002", code=7, match="no entry 'nonsense'")
    _fails(repo, "confirm", "1", "--phase", "09-nowhere", agent="executor-002", code=7, match="no phase 09-nowhere")
    _fails(repo, "confirm", "1", agent="scout-001", code=4, match="may not write")


def test_an_archived_entry_is_confirmed_by_its_id_until_its_phase_completes(repo: Repo) -> None:
    layout = Layout.find(repo.path)
    entry = _gotcha(repo)
    from gridgit.phases import archiving

    archiving.archive_phase(layout, P1)  # as an auto-archive would move it
    _fails(repo, "confirm", "1", agent="executor-002", code=7, match="named by its stable id")
    done = repo.gridgit_json("confirm", entry.uid, agent="executor-002")
    assert done["archived"] is True and done["entry_ref"] == f"{P1} archive#1"
    assert archive.read(layout, P1)[0].validated_by() == ["executor-002"]
    repo.gridgit("phase", "complete", P1, agent="mc")
    _fails(repo, "confirm", entry.uid, "--phase", P1, agent="executor-003", code=1, match=f"phase {P1} is complete")


def test_sixteen_agents_confirming_at_once_are_all_counted(repo: Repo) -> None:
    entry = _gotcha(repo)
    agents = [f"executor-{n:03d}" for n in range(10, 26)]
    runs = repo.gridgit_at_once([["confirm", entry.uid, "--agent", agent, "--json"] for agent in agents])
    assert [r.returncode for r in runs] == [0] * 16, [r.stderr for r in runs]
    (stored,) = store.load(Layout.find(repo.path), P1).entries
    assert sorted(stored.validated_by()) == agents
    assert sorted(json.loads(r.stdout)["data"]["validations"].__len__() for r in runs) == list(range(1, 17))
    assert len(repo.events("entry_confirmed")) == 16


def _promote(repo: Repo, *args: str) -> dict[str, Any]:
    data: dict[str, Any] = repo.gridgit_json("promote", "--phase", P1, *args, agent="memory-001")
    return data


def test_a_high_gotcha_waits_for_three_validations(repo: Repo) -> None:
    entry = _gotcha(repo)
    repo.gridgit("write", "-c", "decision", "-t", "api", "--scope", "mission", "--content", "Decision: REST",
                 agent="executor-002")  # fmt: skip
    for agent in ("executor-002", "executor-003"):
        repo.gridgit("confirm", entry.uid, agent=agent)
    dry = _promote(repo, "--dry-run")
    assert [learning["entry_category"] for learning in dry["promoted"]] == ["decision"]  # architectural: at once
    (waiting,) = dry["waiting_for_validations"]
    assert (waiting["uid"], waiting["validations"], waiting["needed"]) == (entry.uid, 2, 3)
    text = repo.gridgit("promote", "--phase", P1, "--dry-run", agent="memory-001").stdout
    assert f"waits for 2/3 validations: {P1}#1 Db: the pool is per thread [{entry.uid}]" in text
    repo.gridgit("confirm", entry.uid, agent="executor-004")
    assert [learning["entry_category"] for learning in _promote(repo)["promoted"]] == ["gotcha", "decision"]


def test_min_validations_zero_promotes_the_first_high_entry(repo: Repo) -> None:
    config = json.loads((repo.grid / "config.json").read_text(encoding="utf-8"))
    config["promotion"] = {"min_validations": 0}
    (repo.grid / "config.json").write_text(json.dumps(config), encoding="utf-8")
    _gotcha(repo)
    result = _promote(repo)
    assert len(result["promoted"]) == 1 and result["waiting_for_validations"] == []
    config["promotion"] = {"min_validations": -1}
    (repo.grid / "config.json").write_text(json.dumps(config), encoding="utf-8")
    _fails(repo, "promote", "--phase", P1, agent="memory-001", code=1, match="promotion.min_validations must be 0")


def test_phase_completion_says_what_it_archived_without_its_validations(repo: Repo) -> None:
    entry = _gotcha(repo)
    repo.gridgit("confirm", entry.uid, agent="executor-002")
    done = repo.gridgit("phase", "complete", P1, agent="mc").stdout
    assert f"archived without 1/3 validations: {P1}#1 Db: the pool is per thread [{entry.uid}]" in done
    assert not (repo.grid / "LEARNINGS.md").read_text(encoding="utf-8").count(entry.uid)


def test_two_clones_confirming_one_entry_merge_each_agent_once() -> None:
    base = Entry(1, "2026-01-24T14:30:00Z", "executor-001", "gotcha", "db", [], "HIGH", "", "x", uid="U")
    ours = base.replace(validations=[Validation("2026-01-24T15:00:00Z", "executor-002")])
    theirs = base.replace(
        validations=[
            Validation("2026-01-24T14:50:00Z", "executor-002", "first"),
            Validation("2026-01-24T15:10:00Z", "executor-003"),
        ]
    )
    for merged in (merge_entry(base, ours, theirs), merge_entry(base, theirs, ours)):
        assert [(v.by, v.at) for v in merged.validations] == [
            ("executor-002", "2026-01-24T14:50:00Z"),
            ("executor-003", "2026-01-24T15:10:00Z"),
        ]


def test_the_python_api_confirms_too(repo: Repo) -> None:
    from gridgit import Blackboard

    entry = _gotcha(repo)
    result = Blackboard(repo.path).confirm(entry.uid, note="seen", agent="executor-002")
    assert result.to_dict()["validations"][0]["by"] == "executor-002" and result.entry_ref == f"{P1}#1"
