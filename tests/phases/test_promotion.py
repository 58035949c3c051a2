"""Promotion L2 -> L4: spec 8.7's rules, the section mapping, never promoting an entry twice."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

import pytest

from gridgit.coordination import confirmation
from gridgit.errors import PermissionDenied
from gridgit.model import learnings
from gridgit.phases import archiving, promotion
from gridgit.scratchpad import promotable, store
from gridgit.scratchpad.entry import Entry, Validation
from gridgit.store.layout import Layout
from tests.conftest import Repo

PHASE = "01-foundation"


def _entry(category: str, relevance: str = "MEDIUM", tags: tuple[str, ...] = (), content: str = "text") -> Entry:
    return Entry(
        id=1,
        timestamp="2026-01-24T14:30:00Z",
        agent_id="executor-001",
        category=category,
        topic="auth",
        tags=list(tags),
        relevance=relevance,
        block_id="01-02",
        content=content,
        uid="01HQ3W6Y8Z5D0RM2VN7K4XJ1AB",
    )


@pytest.mark.parametrize(
    ("category", "relevance", "tags", "expected"),
    [
        # 1. user preferences, whatever else they are
        ("question", "LOW", ("user_preference",), True),
        ("heartbeat", "LOW", ("user_preference",), True),
        # 2. architectural decisions, and only those among decisions
        ("decision", "LOW", ("architectural",), True),
        ("decision", "HIGH", (), False),
        ("discovery", "LOW", ("architectural",), False),
        # 3. HIGH patterns, gotchas, discoveries
        ("pattern", "HIGH", (), True),
        ("gotcha", "HIGH", (), True),
        ("discovery", "HIGH", (), True),
        ("pattern", "MEDIUM", (), False),
        ("gotcha", "LOW", (), False),
        ("blocker", "HIGH", (), False),
        ("warning", "HIGH", (), False),
        ("handoff", "HIGH", (), False),
        # 4. an explicit promote tag
        ("warning", "LOW", ("promote",), True),
        ("handoff", "MEDIUM", ("promote",), True),
        # otherwise not
        ("heartbeat", "LOW", ("heartbeat",), False),
        ("question", "MEDIUM", (), False),
    ],
)
def test_should_promote_rules(category: str, relevance: str, tags: tuple[str, ...], expected: bool) -> None:
    assert promotable.should_promote_to_learnings(_entry(category, relevance, tags)) is expected
    as_dict: dict[str, Any] = {"category": category, "relevance": relevance, "tags": list(tags)}
    assert promotable.should_promote_to_learnings(as_dict) is expected


def test_a_high_finding_waits_for_its_validations_the_rest_does_not() -> None:
    gotcha = _entry("gotcha", "HIGH")
    decision = _entry("decision", "LOW", ("architectural",))
    assert promotable.waits_for_validations(gotcha, 3) and not promotable.should_promote_to_learnings(gotcha, 3)
    gotcha.validations = [Validation("2026-01-24T15:00:00Z", f"executor-00{n}") for n in (2, 3, 3)]  # one agent twice
    assert promotable.validated(gotcha) == 2 and promotable.waits_for_validations(gotcha, 3)
    gotcha.validations.append(Validation("2026-01-24T15:05:00Z", "executor-004"))
    assert promotable.should_promote_to_learnings(gotcha, 3) and not promotable.waits_for_validations(gotcha, 3)
    assert promotable.should_promote_to_learnings(decision, 3) and not promotable.waits_for_validations(decision, 3)
    as_dict = {"category": "pattern", "relevance": "HIGH", "tags": [], "validations": [{"by": "executor-002"}]}
    assert promotable.should_promote_to_learnings(as_dict, 1) and not promotable.should_promote_to_learnings(as_dict, 2)


@pytest.mark.parametrize(
    ("category", "tags", "section"),
    [
        ("decision", ("user_preference",), "user_preferences"),
        ("gotcha", ("user_preference",), "user_preferences"),
        ("decision", (), "decisions"),
        ("gotcha", (), "gotchas"),
        ("pattern", (), "patterns"),
        ("discovery", (), "discoveries"),
        ("warning", ("promote",), "discoveries"),
        ("handoff", ("promote",), "discoveries"),
    ],
)
def test_learning_category_mapping(category: str, tags: tuple[str, ...], section: str) -> None:
    assert promotion.learning_category(_entry(category, tags=tags)) == section


def test_learning_keeps_origin_evidence_and_a_readable_title() -> None:
    content = (
        "**Gotcha:** Auth middleware must run AFTER body parsing.\n\nFirst hit: 401s.\n\n"
        "Evidence:\n- File: src/middleware/index.ts\n- Lines: 15-30\n- Commit: abc123\n"
    )
    entry = _entry("gotcha", "HIGH", ("auth",), content)
    entry.id, entry.title = 7, "Authentication"
    learning = promotion.to_learning(PHASE, entry)
    assert learning.category == "gotchas"
    assert learning.title == "Authentication: Auth middleware must run AFTER body parsing."
    assert learning.evidence == ["File: src/middleware/index.ts", "Lines: 15-30", "Commit: abc123"]
    assert (learning.phase_id, learning.entry_id, learning.agent_id) == (PHASE, 7, "executor-001")
    # The origin is the entry's uid, which archiving and merging never change (unlike its [N]),
    # and the learning's id follows from it: the same learning in every clone.
    assert learning.origin == entry.uid
    entry.id = 1
    assert promotion.to_learning(PHASE, entry).id == learning.id
    assert promotion.evidence("Evidence: see src/a.py line 3") == ["see src/a.py line 3"]
    fenced = _entry("pattern", content="```python\nuse_zod()\n```")
    assert promotion.title(fenced) == "Auth: use_zod()"


def _write(
    layout: Layout, agent: str, category: str, topic: str, content: str, tags: list[str], relevance: str
) -> Entry:
    return store.write_entry(layout, PHASE, agent, category, topic, content, tags, relevance)


def _confirmed(layout: Layout, entry: Entry, phase_id: str = PHASE) -> Entry:
    """ENTRY confirmed by three agents other than its author: what a HIGH gotcha needs to be promoted."""
    for number in (7, 8, 9):
        confirmation.confirm(layout, entry.uid, f"executor-00{number}", phase_id)
    return entry


def _seed(layout: Layout) -> None:
    _confirmed(layout, _write(layout, "executor-001", "gotcha", "auth", "Gotcha: middleware order", ["auth"], "HIGH"))
    _write(layout, "executor-002", "decision", "db", "Decision: soft deletes", ["architectural"], "MEDIUM")
    _write(layout, "executor-001", "discovery", "ui", "Found: the user wants tabs", ["user_preference"], "LOW")
    _write(layout, "executor-002", "pattern", "api", "Pattern: zod everywhere", [], "MEDIUM")  # not promoted
    _write(layout, "executor-001", "heartbeat", "progress", "**Status:** working", ["heartbeat"], "LOW")


def test_promote_adds_each_qualifying_entry_once_with_one_event_each(repo: Repo) -> None:
    layout = Layout.find(repo.path)
    _seed(layout)
    result = promotion.promote(layout, PHASE, "memory-001")
    assert result.candidates == 3 and result.already == 0
    assert sorted(item.category for item in result.promoted) == ["decisions", "gotchas", "user_preferences"]
    extracted = repo.events("learning_extracted")
    assert [e["payload"]["category"] for e in extracted] == [item.category for item in result.promoted]
    assert {e["payload"]["from_phase"] for e in extracted} == {PHASE}
    assert sorted(e["payload"]["entry_id"] for e in extracted) == [1, 2, 3]

    before = repo.snapshot()
    again = promotion.promote(layout, PHASE, "memory-002")
    assert again.promoted == [] and again.already == 3
    assert repo.snapshot() == before


def test_promote_reads_the_archive_and_survives_renumbering(repo: Repo) -> None:
    layout = Layout.find(repo.path)
    _seed(layout)
    promotion.promote(layout, PHASE, "memory-001")
    # Archive everything (entries are renumbered in the archive), then write a new one.
    archiving.archive_phase(layout, PHASE)
    _confirmed(layout, _write(layout, "executor-003", "gotcha", "cache", "Gotcha: stale cache", [], "HIGH"))
    result = promotion.promote(layout, PHASE, "memory-001")
    assert [item.title for item in result.promoted] == ["Cache: stale cache"]
    assert result.candidates == 4 and result.already == 3
    assert len(learnings.read(layout)) == 4


def test_entries_only_in_the_archive_are_promoted(repo: Repo) -> None:
    layout = Layout.find(repo.path)
    _seed(layout)
    archiving.archive_phase(layout, PHASE)
    assert store.load(layout, PHASE).entries == []
    assert len(promotion.promote(layout, PHASE, "memory-001").promoted) == 3


def test_dry_run_writes_nothing(repo: Repo) -> None:
    layout = Layout.find(repo.path)
    _seed(layout)
    before = repo.snapshot()
    result = promotion.promote(layout, PHASE, "memory-001", dry_run=True)
    assert result.dry_run and len(result.promoted) == 3
    assert repo.snapshot() == before
    assert result.to_dict()["promoted"][0]["origin"] in {e.uid for e in store.load(layout, PHASE).entries}


@pytest.mark.parametrize("agent", ["executor-001", "mc", "scout-001", "planner-001"])
def test_only_memory_agents_promote(repo: Repo, agent: str) -> None:
    layout = Layout.find(repo.path)
    _seed(layout)
    before = repo.snapshot()
    with pytest.raises(PermissionDenied, match="only memory agents"):
        promotion.promote(layout, PHASE, agent)
    # A dry run writes nothing: any agent may look at what would be promoted (issue 38).
    assert promotion.promote(layout, PHASE, agent, dry_run=True).promoted
    assert repo.snapshot() == before


def test_memory_agents_promoting_at_once_add_each_learning_once(repo: Repo) -> None:
    layout = Layout.find(repo.path)
    _seed(layout)
    env = {**os.environ}
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "gridgit", "promote", "--phase", PHASE, "--agent", f"memory-00{i}", "--json"],
            cwd=repo.path,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for i in range(4)
    ]
    outputs = [p.communicate(timeout=60) for p in procs]
    assert [p.returncode for p in procs] == [0] * 4, outputs
    added = [len(json.loads(out)["data"]["promoted"]) for out, _ in outputs]
    assert sum(added) == 3
    assert len(learnings.read(layout)) == 3
    assert len(repo.events("learning_extracted")) == 3
