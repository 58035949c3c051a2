"""Write-conflict detection: windows, renames, claims, the checkpoint resolution, a huge log."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gridgit.coordination import checkpoint, claims, conflicts
from gridgit.errors import BadInput
from gridgit.events import lines
from gridgit.model import permissions
from gridgit.store.layout import Layout
from tests.conftest import Repo

T0 = "2026-03-01T10:00:00Z"


def _layout(repo: Repo) -> Layout:
    return Layout.find(repo.path)


def _at(monkeypatch: pytest.MonkeyPatch, moment: str) -> None:
    monkeypatch.setenv("GRIDGIT_NOW", moment)


def _warnings(repo: Repo) -> str:
    return (repo.grid / "phases" / "01-foundation" / "scratchpad.md").read_text(encoding="utf-8")


def test_the_same_agent_twice_is_no_conflict(repo: Repo, monkeypatch: pytest.MonkeyPatch) -> None:
    layout = _layout(repo)
    _at(monkeypatch, T0)
    conflicts.record_modification(layout, "src/a.py", "executor-001")
    result = conflicts.record_modification(layout, "src/a.py", "executor-001").conflict
    assert result is not None and not result.has_conflict
    assert repo.events("write_conflict") == []
    assert not (repo.grid / "CHECKPOINT.md").exists()


def test_two_agents_within_the_window_conflict(repo: Repo, monkeypatch: pytest.MonkeyPatch) -> None:
    layout = _layout(repo)
    _at(monkeypatch, T0)
    conflicts.record_modification(layout, "src/a.py", "executor-001")
    _at(monkeypatch, "2026-03-01T10:04:00Z")
    result = conflicts.record_modification(layout, "src/a.py", "executor-002").conflict
    assert result is not None and result.has_conflict
    assert result.conflicting_agents == ["executor-001"]
    assert result.conflicts[0]["timestamp"] == T0 and result.conflicts[0]["operation"] == "modified"
    assert result.resolution == "checkpoint"
    [event] = repo.events("write_conflict")
    assert event["payload"]["path"] == "src/a.py"
    assert event["payload"]["agent"] == "executor-002"
    assert event["payload"]["conflicting_agents"] == ["executor-001"]
    listed = checkpoint.open_conflicts(layout)
    assert [c["path"] for c in listed] == ["src/a.py"]
    assert listed[0]["agents"] == ["executor-001", "executor-002"]
    text = (repo.grid / "CHECKPOINT.md").read_text(encoding="utf-8")
    assert text.startswith("---\n") and "## `src/a.py`" in text
    pad = _warnings(repo)
    assert "system | warning | conflict" in pad and "**Relevance:** HIGH" in pad


def test_outside_the_window_is_no_conflict(repo: Repo, monkeypatch: pytest.MonkeyPatch) -> None:
    layout = _layout(repo)
    _at(monkeypatch, T0)
    conflicts.record_modification(layout, "src/a.py", "executor-001")
    _at(monkeypatch, "2026-03-01T10:06:00Z")
    assert not conflicts.check_conflict(layout, "src/a.py", "executor-002").has_conflict
    assert conflicts.check_conflict(layout, "src/a.py", "executor-002", window_minutes=10).has_conflict


def test_the_window_comes_from_config(repo: Repo, monkeypatch: pytest.MonkeyPatch) -> None:
    config = repo.grid / "config.json"
    data = json.loads(config.read_text(encoding="utf-8"))
    data["conflicts"]["window_minutes"] = 30
    config.write_text(json.dumps(data), encoding="utf-8")
    layout = _layout(repo)
    _at(monkeypatch, T0)
    conflicts.record_modification(layout, "src/a.py", "executor-001")
    _at(monkeypatch, "2026-03-01T10:20:00Z")
    result = conflicts.check_conflict(layout, "src/a.py", "executor-002")
    assert result.has_conflict and result.window_minutes == 30


def test_other_paths_do_not_conflict(repo: Repo, monkeypatch: pytest.MonkeyPatch) -> None:
    layout = _layout(repo)
    _at(monkeypatch, T0)
    conflicts.record_modification(layout, "src/a.py", "executor-001")
    conflicts.record_modification(layout, "src/a.pyc", "executor-001")
    assert not conflicts.check_conflict(layout, "src/b.py", "executor-002").has_conflict
    assert not conflicts.check_conflict(layout, "src", "executor-002").has_conflict


def test_a_rename_links_the_old_and_the_new_path(repo: Repo, monkeypatch: pytest.MonkeyPatch) -> None:
    layout = _layout(repo)
    _at(monkeypatch, T0)
    conflicts.record_modification(layout, "src/old.py", "executor-001")
    _at(monkeypatch, "2026-03-01T10:01:00Z")
    conflicts.record_modification(layout, "src/new.py", "executor-002", "moved", old_path="src/old.py", check=False)
    _at(monkeypatch, "2026-03-01T10:02:00Z")
    conflicts.record_modification(layout, "src/newer.py", "executor-002", "moved", old_path="src/new.py", check=False)
    result = conflicts.check_conflict(layout, "src/newer.py", "executor-002")
    assert result.conflicting_agents == ["executor-001"]
    assert result.paths == ["src/new.py", "src/newer.py", "src/old.py"]
    # ...and the other way round: the agent still editing the old path hears about the move.
    back = conflicts.check_conflict(layout, "src/old.py", "executor-001")
    assert back.conflicting_agents == ["executor-002"]


def test_a_batch_is_one_append_and_finds_what_one_at_a_time_finds(repo: Repo, monkeypatch: pytest.MonkeyPatch) -> None:
    layout = _layout(repo)
    _at(monkeypatch, T0)
    conflicts.record_modification(layout, "src/a.py", "executor-001")
    conflicts.record_modification(layout, "src/old.py", "executor-001")
    claims.claim(layout, ["docs/*"], "executor-003", exclusive=True)
    _at(monkeypatch, "2026-03-01T10:01:00Z")
    batch = [
        conflicts.Modification("src/a.py"),
        conflicts.Modification("src/b.py", "created"),
        conflicts.Modification("src/new.py", "moved", "src/old.py"),  # linked by the batch's own rename
        conflicts.Modification("docs/x.md", "deleted"),
    ]
    before = len(repo.events("file_modified"))
    results = conflicts.record_modifications(layout, batch, "executor-002")
    recorded = repo.events("file_modified")[before:]
    assert [(e["payload"]["path"], e["payload"]["operation"]) for e in recorded] == [
        ("src/a.py", "modified"), ("src/b.py", "created"), ("src/new.py", "moved"), ("docs/x.md", "deleted"),
    ]  # fmt: skip
    found = {r.conflict.path: r.conflict.conflicting_agents for r in results if r.conflict}
    assert found == {"src/a.py": ["executor-001"], "src/b.py": [], "src/new.py": ["executor-001"],
                     "docs/x.md": ["executor-003"]}  # fmt: skip
    assert sorted(e["payload"]["path"] for e in repo.events("write_conflict")) == [
        "docs/x.md",
        "src/a.py",
        "src/new.py",
    ]
    with pytest.raises(BadInput):  # one bad change refuses the batch before anything is written
        conflicts.record_modifications(
            layout, [conflicts.Modification("src/c.py"), conflicts.Modification("x", "ate")], "executor-002"
        )
    assert len(repo.events("file_modified")) == before + 4


def test_an_exclusive_claim_by_another_agent_is_a_conflict(repo: Repo, monkeypatch: pytest.MonkeyPatch) -> None:
    layout = _layout(repo)
    _at(monkeypatch, T0)
    claims.claim(layout, ["src/**"], "executor-001", exclusive=True)
    result = conflicts.check_conflict(layout, "src/deep/a.py", "executor-002")
    assert result.has_conflict and result.conflicts[0]["source"] == "claim"
    assert not conflicts.check_conflict(layout, "src/deep/a.py", "executor-001").has_conflict
    assert not conflicts.check_conflict(layout, "docs/a.md", "executor-002").has_conflict


def test_a_shared_claim_alone_is_not_a_conflict(repo: Repo, monkeypatch: pytest.MonkeyPatch) -> None:
    layout = _layout(repo)
    _at(monkeypatch, T0)
    claims.claim(layout, ["src/a.py"], "executor-001")
    result = conflicts.check_conflict(layout, "src/a.py", "executor-002")
    assert not result.has_conflict and [c["agent"] for c in result.claims] == ["executor-001"]
    conflicts.record_modification(layout, "src/a.py", "executor-001")
    assert conflicts.check_conflict(layout, "src/a.py", "executor-002").has_conflict


def test_an_expired_claim_is_ignored(repo: Repo, monkeypatch: pytest.MonkeyPatch) -> None:
    layout = _layout(repo)
    _at(monkeypatch, T0)
    claims.claim(layout, ["src/**"], "executor-001", ttl_minutes=10, exclusive=True)
    _at(monkeypatch, "2026-03-01T10:11:00Z")
    assert not conflicts.check_conflict(layout, "src/a.py", "executor-002").has_conflict


def test_a_conflict_seen_again_is_recorded_once(repo: Repo, monkeypatch: pytest.MonkeyPatch) -> None:
    """Hooks and the watcher may both check the same write: one event, one warning."""
    layout = _layout(repo)
    _at(monkeypatch, T0)
    conflicts.record_modification(layout, "src/a.py", "executor-001")
    for _ in range(3):
        assert conflicts.check_conflict(layout, "src/a.py", "executor-002").has_conflict
    assert len(repo.events("write_conflict")) == 1
    assert _warnings(repo).count("| warning | conflict") == 1
    conflicts.record_modification(layout, "src/a.py", "executor-003")
    assert len(repo.events("write_conflict")) == 2  # a new agent joined the conflict
    assert checkpoint.open_conflicts(layout)[0]["agents"] == ["executor-001", "executor-002", "executor-003"]


def test_resolve_closes_conflicts_and_removes_the_checkpoint(repo: Repo, monkeypatch: pytest.MonkeyPatch) -> None:
    layout = _layout(repo)
    _at(monkeypatch, T0)
    for path in ("a.py", "b.py"):
        conflicts.record_modification(layout, path, "executor-001")
        conflicts.record_modification(layout, path, "executor-002")
    assert [c["path"] for c in conflicts.open_conflicts(layout)] == ["a.py", "b.py"]
    assert [c["path"] for c in conflicts.resolve(layout, "mc", ["a.py"], note="kept 002")] == ["a.py"]
    assert [c["path"] for c in conflicts.open_conflicts(layout)] == ["b.py"]
    conflicts.resolve(layout, "mc")
    assert not (repo.grid / "CHECKPOINT.md").exists()
    assert [e["payload"]["paths"] for e in repo.events("conflict_resolved")] == [["a.py"], ["b.py"]]


def test_a_checkpoint_written_by_someone_else_is_kept(repo: Repo, monkeypatch: pytest.MonkeyPatch) -> None:
    layout = _layout(repo)
    (repo.grid / "CHECKPOINT.md").write_text("---\nkind: human_review\n---\n# Review the API first\n", encoding="utf-8")
    _at(monkeypatch, T0)
    conflicts.record_modification(layout, "a.py", "executor-001")
    conflicts.record_modification(layout, "a.py", "executor-002")
    text = (repo.grid / "CHECKPOINT.md").read_text(encoding="utf-8")
    assert "kind: human_review" in text and "# Review the API first" in text and "## `a.py`" in text
    conflicts.resolve(layout, "mc")
    assert (repo.grid / "CHECKPOINT.md").read_text(encoding="utf-8") == (
        "---\nkind: human_review\n---\n# Review the API first\n"
    )


def test_a_broken_checkpoint_does_not_hide_the_conflict(repo: Repo, monkeypatch: pytest.MonkeyPatch) -> None:
    layout = _layout(repo)
    (repo.grid / "CHECKPOINT.md").write_text("---\n: : bad yaml [\n---\n", encoding="utf-8")
    _at(monkeypatch, T0)
    conflicts.record_modification(layout, "a.py", "executor-001")
    result = conflicts.record_modification(layout, "a.py", "executor-002").conflict
    assert result is not None and result.has_conflict
    assert len(repo.events("write_conflict")) == 1


def test_paths_are_normalised_and_outside_paths_refused(repo: Repo, tmp_path: Path) -> None:
    layout = _layout(repo)
    event = conflicts.record_modification(layout, repo.path / "src" / ".." / "a.py", "executor-001").event
    assert event["payload"]["path"] == "a.py"
    before = repo.snapshot()
    for bad in (tmp_path / "elsewhere.py", "../outside.py", ".git/config", ""):
        with pytest.raises(BadInput):
            conflicts.record_modification(layout, bad, "executor-001")
    assert repo.snapshot() == before


def test_operations_and_moves_are_checked(repo: Repo) -> None:
    layout = _layout(repo)
    before = repo.snapshot()
    with pytest.raises(BadInput, match="unknown operation"):
        conflicts.record_modification(layout, "a.py", "executor-001", "renamed")
    with pytest.raises(BadInput, match="old path"):
        conflicts.record_modification(layout, "a.py", "executor-001", "moved")
    with pytest.raises(BadInput, match="only for a move"):
        conflicts.record_modification(layout, "a.py", "executor-001", "modified", old_path="b.py")
    assert repo.snapshot() == before
    moved = conflicts.record_modification(layout, "b.py", "executor-001", "moved", old_path="a.py").event
    assert moved["payload"] == {"path": "b.py", "agent": "executor-001", "operation": "moved", "old_path": "a.py"}


def test_agent_attribution(repo: Repo, monkeypatch: pytest.MonkeyPatch) -> None:
    layout = _layout(repo)
    assert permissions.attribute_agent(layout) == "unknown"
    repo.git("config", "grid.agent", "executor-009")
    assert permissions.attribute_agent(layout) == "executor-009"
    monkeypatch.setenv("GRID_AGENT_ID", "executor-007")
    assert permissions.attribute_agent(layout) == "executor-007"
    assert permissions.attribute_agent(layout, "mc") == "mc"


def test_a_check_on_a_million_line_log_reads_only_its_tail(repo: Repo, monkeypatch: pytest.MonkeyPatch) -> None:
    layout = _layout(repo)
    log = repo.grid / "events" / "current.jsonl"
    # Old writes by executor-001, far outside the window; short lines keep the file near 90 MB.
    line = '{"id":"%08x","type":"file_modified","timestamp":"2026-01-01T00:00:00Z","payload":{"path":"src/a.py","agent":"executor-001"}}\n'
    with open(log, "a", encoding="utf-8") as handle:
        for start in range(0, 1_000_000, 50_000):
            handle.write("".join(line % n for n in range(start, start + 50_000)))
    size = log.stat().st_size
    _at(monkeypatch, "2026-06-01T12:00:00Z")
    conflicts.record_modification(layout, "src/a.py", "executor-003", check=False)
    result = conflicts.check_conflict(layout, "src/a.py", "executor-004")
    assert result.conflicting_agents == ["executor-003"]  # the million old writes are outside the window
    assert 0 < result.bytes_read <= 4 * lines.BLOCK < size // 100


def test_the_api_refuses_a_path_with_a_control_character_and_never_rewrites_it(repo: Repo, board: Any) -> None:
    """`a\\0b` once became `ab` (another file): every API call that takes a path refuses it instead."""
    me = "executor-001"
    calls = [
        lambda p: board.touch(p, agent=me),
        lambda p: board.touch("src/a.py", "moved", me, old_path=p),
        lambda p: board.check_conflict(p, agent=me),
        lambda p: board.resolve_conflicts([p], agent=me),
        lambda p: board.claim(["src/**", p], agent=me),
        lambda p: board.release([p], agent=me),
        lambda p: board.heartbeat(5, "testing", files=["ok.py", p], agent=me),
        lambda p: board.register_agent(me, worktree=p, agent=me),
        lambda p: board.validate([p]),
    ]
    before = repo.snapshot()
    for number, call in enumerate(calls):
        for bad in ("a\x00b", "evil\n- path: injected.py", "a\x07b"):
            with pytest.raises(BadInput, match="holds a control character"):
                call(bad)
        assert repo.snapshot() == before, number
