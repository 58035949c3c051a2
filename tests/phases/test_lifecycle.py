"""Phase lifecycle: start, complete (promote, archive, carry forward, STATE), idempotence, crash recovery."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from gridgit import Blackboard
from gridgit.coordination import confirmation
from gridgit.errors import BadInput, NotFound, NotInitialised, PermissionDenied
from gridgit.model import learnings, state
from gridgit.phases import archiving, carry_forward, lifecycle, order, promotion
from gridgit.scratchpad import archive, store
from gridgit.scratchpad.entry import MAX_CONTENT_BYTES
from gridgit.store.layout import Layout
from tests.conftest import Repo, git

P1, P2 = "01-foundation", "02-core"


def _at(monkeypatch: pytest.MonkeyPatch, minute: int) -> None:
    monkeypatch.setenv("GRIDGIT_NOW", f"2026-01-24T14:{minute:02d}:00Z")


def seed(layout: Layout, monkeypatch: pytest.MonkeyPatch) -> None:
    """A phase with something of every kind, one minute apart (distinct topics: nothing merges)."""
    rows: list[tuple[str, str, str, str, list[str], str | None]] = [
        ("executor-001", "gotcha", "auth", "Gotcha: middleware order\n\nEvidence:\n- File: src/a.ts", ["auth"], "HIGH"),
        ("executor-001", "blocker", "stripe", "Blocker: no Stripe key", [], None),
        ("executor-002", "blocker", "dns", "Blocker: DNS missing", ["resolved"], None),
        ("executor-001", "warning", "rate", "Warning: rate limit near", [], None),
        ("executor-002", "warning", "disk", "Warning: disk was full", ["resolved"], None),
        ("executor-002", "decision", "db", "Decision: soft deletes", ["architectural"], None),
        ("executor-001", "discovery", "ui", "Found: the user wants tabs", ["user_preference"], None),
        ("executor-002", "heartbeat", "progress", "**Status:** working", ["heartbeat"], "LOW"),
    ]
    # Seven handoffs; the first two were taken (resolved) by their recipients.
    rows += [
        (
            f"executor-00{i % 2 + 1}",
            "handoff",
            f"part{i}",
            f"Handoff: part {i} done",
            ["resolved"] if i < 2 else [],
            None,
        )
        for i in range(7)
    ]
    for minute, (agent, category, topic, content, tags, relevance) in enumerate(rows):
        _at(monkeypatch, minute)
        store.write_entry(layout, P1, agent, category, topic, content, tags, relevance)
    for number in (7, 8, 9):  # the HIGH gotcha, confirmed by three other agents: it is promoted
        confirmation.confirm(layout, "1", f"executor-00{number}", P1)
    _at(monkeypatch, 40)


def _state(layout: Layout) -> dict[str, Any]:
    return state.read(layout)


def _definition(layout: Layout, phase_id: str) -> dict[str, Any]:
    return next(d for d in _state(layout)["phases"]["definitions"] if d["id"] == phase_id)


# ---- start ---------------------------------------------------------------------------------


def test_start_creates_folder_scratchpad_definition_and_event(repo: Repo) -> None:
    layout = Layout.find(repo.path)
    lifecycle.complete_phase(layout, P1)
    lifecycle.complete_phase(layout, P2)
    assert lifecycle.start_phase(layout, "03-polish", "Polish") is True
    assert store.load(layout, "03-polish").phase_name == "Polish"
    definition = _definition(layout, "03-polish")
    assert definition["status"] == "in_progress" and definition["started_at"] and definition["name"] == "Polish"
    st = _state(layout)
    assert [d["id"] for d in st["phases"]["definitions"]] == [P1, P2, "03-polish"]
    assert st["phases"]["total"] == 3
    assert st["position"]["phase_id"] == "03-polish"
    started = repo.events("phase_started")[-1]["payload"]
    assert started == {"phase_id": "03-polish", "phase_name": "Polish", "agent": "mc"}  # in order: nothing forced

    before = repo.snapshot()
    assert lifecycle.start_phase(layout, "03-polish") is False
    assert lifecycle.start_phase(layout, P1) is False
    assert repo.snapshot() == before


def test_start_a_pending_phase_marks_it_in_progress(repo: Repo) -> None:
    layout = Layout.find(repo.path)
    assert _definition(layout, P2)["status"] == "pending"
    assert lifecycle.start_phase(layout, P2, force=True) is True
    assert _definition(layout, P2)["status"] == "in_progress"
    assert store.load(layout, P2).phase_name == "Core Features"


def test_start_moves_the_position_off_a_completed_phase(repo: Repo) -> None:
    layout = Layout.find(repo.path)
    lifecycle.complete_phase(layout, P1)
    lifecycle.complete_phase(layout, P2)
    assert _state(layout)["status"] == "complete"
    lifecycle.start_phase(layout, "03-extra")
    st = _state(layout)
    assert st["position"]["phase_id"] == "03-extra" and st["phases"]["current"] == 3
    assert st["status"] == "in_progress"
    assert repo.events("phase_changed")[-1]["payload"] == {"old_phase": P2, "new_phase": "03-extra", "agent": "mc"}
    lifecycle.start_phase(layout, "04-more", force=True)  # 03-extra is in progress: it is completed into it
    assert repo.events("phase_changed")[-1]["payload"]["new_phase"] == "04-more"
    assert _definition(layout, "03-extra")["status"] == "complete" and order.in_progress(_state(layout)) == ["04-more"]


def test_a_phase_started_where_there_was_none_is_a_phase_change(repo: Repo) -> None:
    layout = Layout.find(repo.path)
    st = _state(layout)  # an earlier gridgit's STATE: no position, no phase running
    st["position"]["phase_id"] = None
    st["phases"]["definitions"][0].update(status="pending", started_at=None)
    layout.state.write_text(state.render_file(st), encoding="utf-8")
    repo.gridgit("phase", "start", P1, agent="mc")
    assert repo.events("phase_changed")[-1]["payload"] == {"old_phase": None, "new_phase": P1, "agent": "mc"}


# ---- complete ------------------------------------------------------------------------------


def test_complete_promotes_archives_carries_and_moves_state(repo: Repo, monkeypatch: pytest.MonkeyPatch) -> None:
    layout = Layout.find(repo.path)
    seed(layout, monkeypatch)
    result = lifecycle.complete_phase(layout, P1)
    assert result.next_phase_id == P2 and not result.already_complete
    assert result.archived == 15 and len(result.promoted) == 3
    assert result.carried == 1 + 1 + 5

    assert store.load(layout, P1).entries == []
    assert store.load(layout, P1).index_is_current() and store.load(layout, P2).index_is_current()
    assert len(archive.read(layout, P1)) == 15
    assert archive.load(layout, P1).extracted  # promoted entries are marked in the archive
    assert sorted(item.category for item in learnings.read(layout)) == ["decisions", "gotchas", "user_preferences"]
    assert learnings.read(layout, "gotchas")[0].evidence == ["File: src/a.ts"]

    st = _state(layout)
    assert st["phases"]["completed"] == [P1]
    assert st["phases"]["current"] == 2
    assert _definition(layout, P1)["status"] == "complete" and _definition(layout, P1)["completed_at"]
    assert _definition(layout, P2)["status"] == "in_progress" and _definition(layout, P2)["started_at"]
    assert (st["position"]["phase"], st["position"]["phase_id"], st["position"]["phase_name"]) == (
        2,
        P2,
        "Core Features",
    )
    assert st["progress"]["percent"] == 50.0

    types = [e["type"] for e in repo.events()]
    assert types.count("learning_extracted") == 3 and types.count("phase_archived") == 1
    assert types.index("phase_completed") < types.index("phase_changed")
    assert repo.events("phase_completed")[-1]["payload"] == {"phase_id": P1, "next_phase_id": P2, "agent": "mc"}
    assert repo.events("phase_changed")[-1]["payload"] == {"old_phase": P1, "new_phase": P2, "agent": "mc"}
    assert repo.events("phase_started")[-1]["payload"]["phase_id"] == P2


def test_carry_forward_rules(repo: Repo, monkeypatch: pytest.MonkeyPatch) -> None:
    layout = Layout.find(repo.path)
    seed(layout, monkeypatch)
    lifecycle.complete_phase(layout, P1)
    carried = store.load(layout, P2).entries
    assert {e.agent_id for e in carried} == {"system"}
    assert {e.block_id for e in carried} == {"02-01"}
    blockers = [e for e in carried if e.category == "blocker"]
    warnings = [e for e in carried if e.category == "warning"]
    handoffs = [e for e in carried if e.category == "handoff"]
    # Unresolved blockers only, HIGH, marked carried_forward.
    assert [e.topic for e in blockers] == ["stripe"]
    assert blockers[0].content == "[Carried from 01-foundation]\n\nBlocker: no Stripe key"
    assert blockers[0].relevance == "HIGH" and "carried_forward" in blockers[0].tags
    # Warnings carried (a resolved one is not).
    assert [e.topic for e in warnings] == ["rate"]
    assert warnings[0].content.startswith("[Carried from 01-foundation]\n\n")
    # The last five handoffs, oldest first, as context.
    assert [e.topic for e in handoffs] == [f"part{i}" for i in range(2, 7)]
    assert all(e.content.startswith("[Context from 01-foundation]\n\n") for e in handoffs)
    assert all(e.relevance == "MEDIUM" and "context" in e.tags for e in handoffs)
    assert not [e for e in carried if e.category in ("gotcha", "decision", "discovery", "heartbeat")]
    assert len(repo.events("handoff_posted")) == 7 + 5


def test_completing_twice_changes_nothing(repo: Repo, monkeypatch: pytest.MonkeyPatch) -> None:
    layout = Layout.find(repo.path)
    seed(layout, monkeypatch)
    lifecycle.complete_phase(layout, P1)
    before = repo.snapshot()
    _at(monkeypatch, 50)
    again = lifecycle.complete_phase(layout, P1)
    assert again.already_complete and again.archived == 0 and again.promoted == [] and again.carried == 0
    assert repo.snapshot() == before


def test_no_next_phase_finishes_the_mission(repo: Repo) -> None:
    layout = Layout.find(repo.path)
    lifecycle.complete_phase(layout, P1)
    result = lifecycle.complete_phase(layout, P2)
    assert result.next_phase_id is None
    st = _state(layout)
    assert st["status"] == "complete" and st["progress"]["percent"] == 100.0
    assert st["phases"]["completed"] == [P1, P2]
    assert st["position"]["phase_id"] == P2
    assert repo.events("phase_completed")[-1]["payload"]["next_phase_id"] is None


def test_an_explicit_next_phase_is_created_and_named(repo: Repo, monkeypatch: pytest.MonkeyPatch) -> None:
    layout = Layout.find(repo.path)
    seed(layout, monkeypatch)
    result = lifecycle.complete_phase(layout, P1, "03-polish:Polish and Ship", force=True)  # 02-core is skipped
    assert result.next_phase_id == "03-polish" and result.carried == 7
    assert repo.events("phase_completed")[-1]["payload"]["forced"] is True
    st = _state(layout)
    assert st["position"]["phase_id"] == "03-polish" and st["phases"]["current"] == 3
    assert _definition(layout, "03-polish")["name"] == "Polish and Ship"
    assert (_definition(layout, P2)["status"], _definition(layout, P2)["skipped"]) == ("complete", True)
    assert store.load(layout, "03-polish").phase_name == "Polish and Ship"


def test_carried_blockers_travel_on_until_resolved(repo: Repo, monkeypatch: pytest.MonkeyPatch) -> None:
    layout = Layout.find(repo.path)
    seed(layout, monkeypatch)
    lifecycle.complete_phase(layout, P1)
    _at(monkeypatch, 50)
    lifecycle.complete_phase(layout, P2, "03-polish")
    [blocker] = [e for e in store.load(layout, "03-polish").entries if e.category == "blocker"]
    assert blocker.content.startswith("[Carried from 02-core]\n\n[Carried from 01-foundation]\n\n")
    assert blocker.tags.count("carried_forward") == 1


def test_carry_forward_does_not_repeat_itself(repo: Repo, monkeypatch: pytest.MonkeyPatch) -> None:
    layout = Layout.find(repo.path)
    seed(layout, monkeypatch)
    store.create(layout, P2)
    assert len(carry_forward.carry_forward(layout, P1, P2)) == 7
    assert carry_forward.carry_forward(layout, P1, P2) == []
    # Another agent's entry merged into a carried one: still recognised as carried.
    _at(monkeypatch, 41)
    store.write_entry(layout, P2, "executor-003", "blocker", "stripe", "Still no key.", [], None)
    archiving.archive_phase(layout, P2)
    assert carry_forward.carry_forward(layout, P1, P2) == []


def _tree(grid: Path) -> dict[str, bytes]:
    return {
        p.relative_to(grid).as_posix(): p.read_bytes()
        for p in grid.rglob("*")
        if p.is_file() and not p.name.endswith(".lock") and "events" not in p.parts
    }


def test_a_phase_completed_in_two_clones_is_promoted_archived_and_carried_once(
    repo: Repo, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from gridgit.history.grid_merge import merge_grid

    layout = Layout.find(repo.path)
    seed(layout, monkeypatch)
    base = _tree(layout.grid)
    clone_grid = tmp_path / "clone" / ".grid"
    shutil.copytree(layout.grid, clone_grid)
    clone = Layout(root=clone_grid.parent, main_root=clone_grid.parent, grid=clone_grid)
    lifecycle.complete_phase(layout, P1)
    _at(monkeypatch, 45)  # the other clone completes it a little later, by its own clock
    lifecycle.complete_phase(clone, P1)
    result = merge_grid(base, _tree(layout.grid), _tree(clone_grid))
    assert result.conflicts == []
    for rel, data in result.files.items():
        (clone_grid / rel).write_bytes(data)
    assert [len(e) for e in (store.load(clone, P1).entries, archive.read(clone, P1))] == [0, 15]
    carried = store.load(clone, P2).entries
    assert len(carried) == 7 and {e.carried_from for e in carried} <= {e.uid for e in archive.read(clone, P1)}
    assert len(learnings.read(clone)) == 3
    assert carry_forward.carry_forward(clone, P1, P2) == []  # and never again


def test_a_carried_entry_is_cut_to_the_size_limit(repo: Repo) -> None:
    layout = Layout.find(repo.path)
    big = "x" * (MAX_CONTENT_BYTES - 10) + "é"
    store.write_entry(layout, P1, "executor-001", "blocker", "huge", big, [], None)
    lifecycle.complete_phase(layout, P1)
    [carried] = store.load(layout, P2).entries
    assert len(carried.content.encode("utf-8")) <= MAX_CONTENT_BYTES
    assert carried.content.startswith("[Carried from 01-foundation]\n\nxxx")
    assert carried.content.endswith("[... cut; the whole entry is in 01-foundation's scratchpad_archived.md]")


# ---- crash recovery ------------------------------------------------------------------------

_CRASH = """
import os, sys
from gridgit.model import state
from gridgit.phases import carry_forward, lifecycle
from gridgit.store.layout import Layout
from gridgit.scratchpad import archive
from gridgit.phases import archiving

def die(*args, **kwargs):
    os._exit(99)

point = sys.argv[1]
if point == "archive_written":
    real = archive.append
    def half(*args, **kwargs):
        real(*args, **kwargs)
        os._exit(99)
    archive.append = half
elif point == "before_state":
    state.update_with = die
elif point == "carry_forward":
    carry_forward.carry_forward = die
elif point == "archive_phase":
    archiving.archive_phase = die
else:
    setattr(lifecycle, point, die)
lifecycle.complete_phase(Layout.find("."), "01-foundation")
"""


def _clone_grid(source: Repo, target: Path) -> Repo:
    target.mkdir()
    git(target, "init", "-q", "-b", "main")
    shutil.copytree(source.grid, target / ".grid")
    return Repo(target)


def _data_files(repo: Repo) -> dict[str, bytes]:
    return {k: v for k, v in repo.snapshot().items() if not k.startswith("events/")}


def _event_payloads(repo: Repo, skip: int) -> list[str]:
    return sorted(json.dumps([e["type"], e["payload"]], sort_keys=True) for e in repo.events()[skip:])


@pytest.mark.parametrize("point", ["carry_forward", "archive_phase", "archive_written", "before_state"])
def test_a_rerun_after_a_crash_finishes_the_job_exactly_once(
    repo: Repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, point: str
) -> None:
    layout = Layout.find(repo.path)
    seed(layout, monkeypatch)
    crashed = _clone_grid(repo, tmp_path / "crashed")
    start = len(repo.events())

    lifecycle.complete_phase(layout, P1)  # the clean run

    proc = subprocess.run(
        [sys.executable, "-c", _CRASH, point], cwd=crashed.path, env=dict(os.environ), capture_output=True, text=True
    )
    assert proc.returncode == 99, proc.stderr
    assert not _state(Layout.find(crashed.path))["phases"]["completed"]
    result = lifecycle.complete_phase(Layout.find(crashed.path), P1)
    assert not result.already_complete

    assert _data_files(crashed) == _data_files(repo)
    assert _event_payloads(crashed, start) == _event_payloads(repo, start)
    assert lifecycle.complete_phase(Layout.find(crashed.path), P1).already_complete


def test_promotion_done_earlier_is_not_repeated(repo: Repo, monkeypatch: pytest.MonkeyPatch) -> None:
    layout = Layout.find(repo.path)
    seed(layout, monkeypatch)
    promotion.promote(layout, P1, "memory-001")
    result = lifecycle.complete_phase(layout, P1)
    assert result.promoted == []
    assert len(learnings.read(layout)) == 3
    assert len(archive.load(layout, P1).extracted) == 3  # still marked as promoted in the archive


def test_two_processes_completing_at_once_do_it_once(repo: Repo, monkeypatch: pytest.MonkeyPatch) -> None:
    layout = Layout.find(repo.path)
    seed(layout, monkeypatch)
    env = {**os.environ, "GRID_AGENT_ID": "mc"}
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "gridgit", "phase", "complete", P1, "--json"],
            cwd=repo.path,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    outputs = [p.communicate(timeout=60) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outputs
    results = [json.loads(out)["data"] for out, _ in outputs]
    assert sorted(r["already_complete"] for r in results) == [False, True]
    assert len(learnings.read(layout)) == 3
    assert len(store.load(layout, P2).entries) == 7
    assert len(repo.events("phase_completed")) == 1


# ---- bad input -----------------------------------------------------------------------------


@pytest.mark.parametrize("bad", ["../x", "01-Foo", "/abs/path", "1-x", "01_x", ""])
def test_bad_phase_ids_change_nothing(repo: Repo, bad: str) -> None:
    layout = Layout.find(repo.path)
    before = repo.snapshot()
    with pytest.raises(BadInput, match="invalid phase id"):
        lifecycle.start_phase(layout, bad)
    with pytest.raises(BadInput, match="invalid phase id"):
        lifecycle.complete_phase(layout, bad)
    with pytest.raises(BadInput, match="invalid phase id"):
        lifecycle.complete_phase(layout, P1, bad or ":Name")
    assert repo.snapshot() == before


def test_unknown_phase_and_impossible_next(repo: Repo) -> None:
    layout = Layout.find(repo.path)
    before = repo.snapshot()
    with pytest.raises(NotFound, match="no phase 07-nothing"):
        lifecycle.complete_phase(layout, "07-nothing")
    with pytest.raises(BadInput, match="its own next phase"):
        lifecycle.complete_phase(layout, P1, P1)
    assert repo.snapshot() == before
    lifecycle.complete_phase(layout, P1)
    before = repo.snapshot()
    with pytest.raises(BadInput, match="already complete"):
        lifecycle.complete_phase(layout, P2, P1)
    assert repo.snapshot() == before


@pytest.mark.parametrize("agent", ["executor-001", "planner-001", "memory-001", "scout-001", "recognizer-001"])
def test_only_master_control_starts_and_completes(repo: Repo, agent: str) -> None:
    layout = Layout.find(repo.path)
    before = repo.snapshot()
    with pytest.raises(PermissionDenied, match="only Master Control"):
        lifecycle.complete_phase(layout, P1, agent_id=agent)
    with pytest.raises(PermissionDenied, match="only Master Control"):
        lifecycle.start_phase(layout, "03-polish", agent_id=agent)
    assert repo.snapshot() == before
    assert lifecycle.complete_phase(layout, P1, agent_id="system").next_phase_id == P2


@pytest.mark.parametrize(
    ("phase_id", "damage"),
    [
        (P1, "### [99] [2026-01-24T15:00:00Z] executor-001 | nonsense | auth\n\n**Relevance:** HIGH\n\nx\n"),
        (P1, None),  # broken YAML frontmatter
        (P2, "### [1] [2026-01-24T15:00:00Z] executor-001 | gotcha | auth\n\n**Relevance:** EXTREME\n\nx\n"),
    ],
)
def test_an_invalid_scratchpad_stops_completion_before_any_write(
    repo: Repo, monkeypatch: pytest.MonkeyPatch, phase_id: str, damage: str | None
) -> None:
    layout = Layout.find(repo.path)
    seed(layout, monkeypatch)
    store.create(layout, P2)
    path = layout.scratchpad(phase_id)
    text = path.read_text(encoding="utf-8")
    path.write_text(text + damage if damage else text.replace("index:\n", "index: [\n", 1), encoding="utf-8")
    before = repo.snapshot()
    with pytest.raises(BadInput, match=rf"{phase_id}/scratchpad\.md line \d+"):
        lifecycle.complete_phase(layout, P1)
    assert repo.snapshot() == before


def test_an_uninitialised_repository(bare_repo: Repo) -> None:
    with pytest.raises(NotInitialised):
        lifecycle.complete_phase(Layout.find(bare_repo.path), P1)


# ---- listing, manual archive, the Python API -----------------------------------------------


def test_list_phases(repo: Repo, monkeypatch: pytest.MonkeyPatch) -> None:
    layout = Layout.find(repo.path)
    seed(layout, monkeypatch)
    (layout.phases_dir / "05-stray").mkdir()
    rows = {row["id"]: row for row in lifecycle.list_phases(layout)}
    assert list(rows) == [P1, P2, "05-stray"]
    assert rows[P1]["status"] == "in_progress" and rows[P1]["current"] and rows[P1]["entries"] == 15
    assert rows[P2]["status"] == "pending" and rows[P2]["entries"] is None and rows[P2]["name"] == "Core Features"
    assert rows["05-stray"]["status"] == "untracked"
    lifecycle.complete_phase(layout, P1)
    rows = {row["id"]: row for row in lifecycle.list_phases(layout)}
    assert (rows[P1]["status"], rows[P1]["entries"], rows[P1]["archived"]) == ("complete", 0, 15)
    assert rows[P2]["current"] and rows[P2]["entries"] == 7


def test_manual_archive_moves_what_is_settled_without_promotion(repo: Repo, monkeypatch: pytest.MonkeyPatch) -> None:
    layout = Layout.find(repo.path)
    seed(layout, monkeypatch)
    before = repo.snapshot()
    with pytest.raises(PermissionDenied):
        lifecycle.archive_scratchpad(layout, P1, "executor-001")
    assert repo.snapshot() == before
    assert lifecycle.archive_scratchpad(layout, P1, "memory-001") == 8
    # The open blocker and warning and the five handoffs not taken stay live, renumbered.
    live = store.load(layout, P1).entries
    assert [(e.id, e.topic) for e in live] == [(1, "stripe"), (2, "rate"), *[(i + 1, f"part{i}") for i in range(2, 7)]]
    assert learnings.read(layout) == []
    assert archive.load(layout, P1).extracted == []
    assert lifecycle.archive_scratchpad(layout, P1, "mc") == 0


def test_the_python_api(repo: Repo, monkeypatch: pytest.MonkeyPatch) -> None:
    board = Blackboard(repo.path)
    seed(board.layout, monkeypatch)
    assert [item.category for item in board.promote(P1, agent="memory-001", dry_run=True).promoted]
    result = board.complete_phase(P1, agent="mc")
    assert result.to_dict()["next_phase_id"] == P2
    assert [row["id"] for row in board.phases()] == [P1, P2]
    assert len(board.learnings()) == 3 and len(board.learnings("gotchas")) == 1
    assert board.start_phase("03-polish", "Polish", agent="mc", force=True) is True
    assert board.archive(P2, agent="mc") == 0  # the seven carried items are open work: they stay live
