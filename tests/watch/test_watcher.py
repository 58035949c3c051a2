"""What the watcher does with real file writes: validation, re-indexing, file_modified, conflicts, storms."""

from __future__ import annotations

import errno
import itertools
import json
import os
import shutil
import threading
from typing import Any

import pytest

from tests.conftest import Daemons, Repo, git, pid_alive, wait_for

PAD = ".grid/phases/01-foundation/scratchpad.md"
WATCHER_TYPES = ("file_modified", "files_modified_bulk", "validation_failed", "scratchpad_reindexed", "write_conflict")
_barriers = itertools.count()
NO_HOOKS = {"GRIDGIT_SKIP": "1"}

HAND_ENTRY = """
### [2] [2026-12-02T11:40:00Z] executor-002 | gotcha | database

**Topic:** Database
**Tags:** db
**Relevance:** HIGH
**Block:** 01-01

The pool size is too small for the test suite.

---
"""


def modified(repo: Repo, path: str, **fields: Any) -> list[dict[str, Any]]:
    return [
        e
        for e in repo.events("file_modified")
        if e["payload"]["path"] == path and all(e["payload"].get(k) == v for k, v in fields.items())
    ]


def barrier(repo: Repo) -> None:
    """Write a fresh file and wait for its event: whatever the watcher had queued before is done."""
    name = f"barrier-{next(_barriers)}.txt"
    repo.write(name, "sync\n")
    wait_for(lambda: modified(repo, name))


def commit_files(repo: Repo, files: dict[str, str], message: str = "files") -> None:
    for rel, text in files.items():
        repo.write(rel, text)
    repo.git("add", *files)
    # no hooks: their file_modified events (agent unknown) would stand in for other agents' edits
    repo.git("commit", "-q", "-m", message, env=NO_HOOKS)


def test_work_tree_edits_become_file_modified(daemons: Daemons) -> None:
    repo = daemons.repo
    commit_files(repo, {"src/app.py": "x = 1\n", "src/old.py": "y = 2\n"})
    daemons.start(agent="executor-007")
    repo.write("src/app.py", "x = 2\n")
    event = wait_for(lambda: modified(repo, "src/app.py"))[0]
    assert event["payload"] == {"path": "src/app.py", "agent": "executor-007", "operation": "modified"}
    repo.write("src/new.py", "z = 3\n")
    wait_for(lambda: modified(repo, "src/new.py", operation="created"))
    (repo.path / "src/old.py").unlink()
    wait_for(lambda: modified(repo, "src/old.py", operation="deleted"))
    os.rename(repo.path / "src/new.py", repo.path / "src/renamed.py")
    moved = wait_for(lambda: modified(repo, "src/renamed.py", operation="moved"))[0]
    assert moved["payload"]["old_path"] == "src/new.py"
    # a directory created and written at once: the file written before its watch existed counts too
    repo.write("src/pkg/deep/mod.py", "m = 1\n")
    wait_for(lambda: modified(repo, "src/pkg/deep/mod.py", operation="created"))
    # a name that is not UTF-8: the same `\xNN` text the git hooks record (store.pathtext)
    (repo.path / os.fsdecode(b"src/caf\xe9.txt")).write_text("latin-1 name\n", encoding="utf-8")
    wait_for(lambda: modified(repo, "src/caf\\xe9.txt", operation="created"))
    # a name with a line break would forge lines of CHECKPOINT.md: the path gate leaves it out, in the log
    repo.write("src/evil\n- path: injected.py", "x\n")
    barrier(repo)
    assert len(modified(repo, "src/app.py")) == 1
    assert not [e for e in repo.events("file_modified") if "injected" in e["payload"]["path"]]
    assert "holds a control character" in repo.gridgit("daemon", "logs").stdout
    assert not modified(repo, "src/new.py", operation="deleted")


def test_hand_edit_that_breaks_the_index_is_reindexed_once(daemons: Daemons) -> None:
    repo = daemons.repo
    repo.gridgit("write", "-c", "discovery", "-t", "auth", "--content", "Found it", agent="executor-001")
    daemons.start()
    pad = repo.path / PAD
    with open(pad, "a", encoding="utf-8") as handle:
        handle.write(HAND_ENTRY)
    wait_for(lambda: repo.events("scratchpad_reindexed"))
    text = pad.read_text(encoding="utf-8")
    assert "entry_count: 2" in text and "executor-002: [2]" in text
    assert text.endswith(HAND_ENTRY)  # the body is kept byte for byte
    assert repo.gridgit("validate").returncode == 0
    barrier(repo)
    # its own rewrite of the scratchpad caused nothing: no second re-index, no failure, no file_modified
    assert len(repo.events("scratchpad_reindexed")) == 1
    assert not repo.events("validation_failed")
    assert not modified(repo, PAD)


def test_broken_file_yields_validation_failed_and_stays_byte_identical(daemons: Daemons) -> None:
    repo = daemons.repo
    daemons.start()
    pad = repo.path / PAD
    broken = pad.read_bytes().replace(b"phase_name: Foundation", b"phase_name: [unclosed", 1)
    assert broken != pad.read_bytes()
    pad.write_bytes(broken)
    event = wait_for(lambda: repo.events("validation_failed"))[0]
    assert event["payload"]["path"] == PAD and event["payload"]["line"] > 1 and event["payload"]["message"]
    # the same content again is not reported twice, and the file is never rewritten
    pad.write_bytes(broken)
    barrier(repo)
    assert len(repo.events("validation_failed")) == 1
    assert pad.read_bytes() == broken
    assert not repo.events("scratchpad_reindexed")


def test_start_up_pass_reports_a_file_broken_while_no_one_watched(daemons: Daemons) -> None:
    repo = daemons.repo
    learnings = repo.grid / "LEARNINGS.md"
    learnings.write_text(learnings.read_text(encoding="utf-8") + "\n## not_a_section\n", encoding="utf-8")
    before = learnings.read_bytes()
    daemons.start()
    event = wait_for(lambda: repo.events("validation_failed"))[0]
    assert event["payload"]["path"] == ".grid/LEARNINGS.md" and "not_a_section" in event["payload"]["message"]
    assert learnings.read_bytes() == before


def test_atomic_save_is_one_modified(daemons: Daemons) -> None:
    repo = daemons.repo
    commit_files(repo, {"src/editor.py": "v = 1\n", "src/other.py": "w = 1\n"})
    daemons.start()
    for temp in ("src/editor.py.tmp", "src/.editor.py.swp", "src/editor.py.new123"):
        repo.write(temp, "v = 2\n")
        os.replace(repo.path / temp, repo.path / "src/editor.py")
    barrier(repo)
    assert [e["payload"]["operation"] for e in modified(repo, "src/editor.py")] == ["modified"]
    assert [e for e in repo.events("file_modified") if "editor.py." in e["payload"]["path"]] == []


def test_ignored_and_machine_local_paths_produce_nothing(daemons: Daemons) -> None:
    repo = daemons.repo
    commit_files(repo, {".gitignore": "node_modules/\n*.log\nbuild/\n"})
    (repo.path / "node_modules/pkg").mkdir(parents=True)
    daemons.start()
    before = len(repo.events())
    repo.write("node_modules/pkg/index.js", "x\n")
    repo.write("debug.log", "x\n")
    repo.write("build/out/a.o", "x\n")
    repo.write("src/notes.tmp", "x\n")
    (repo.grid / ".daemon" / "scratch.txt").write_text("x\n")
    (repo.grid / "events" / "cursors").mkdir(parents=True, exist_ok=True)
    (repo.grid / "events" / "cursors" / "x.json").write_text("{}\n")
    # reading is not writing: opened / closed-without-write events never reach the watcher
    for readme in ("README.md", ".gitignore", ".grid/STATE.md", PAD):
        (repo.path / readme).read_bytes()
    barrier(repo)
    new = [e for e in repo.events()[before:] if not e["payload"].get("path", "").startswith("barrier-")]
    assert new == []
    status = repo.gridgit_json("daemon", "status")
    assert status["watches"] < 10  # node_modules/ and build/ are never watched


def test_two_worktrees_of_two_agents_editing_one_path_conflict(daemons: Daemons, tmp_path: Any) -> None:
    repo = daemons.repo
    commit_files(repo, {"src/shared.py": "s = 0\n"})
    wt1, wt2 = tmp_path / "wt1", tmp_path / "wt2"
    repo.git("worktree", "add", "-q", str(wt1), "-b", "agent1")
    repo.git("worktree", "add", "-q", str(wt2), "-b", "agent2")
    agents = {"agents": {"active": [{"id": "executor-001", "worktree": str(wt1)}]}}
    repo.gridgit("state", "update", "--json", json.dumps(agents), agent="mc")
    daemons.start()
    (wt1 / "src/shared.py").write_text("s = 1\n")
    wait_for(lambda: modified(repo, "src/shared.py", agent="executor-001"))
    # an agent registered while the watcher runs is picked up from STATE.md
    agents["agents"]["active"].append({"id": "executor-002", "worktree": str(wt2)})
    repo.gridgit("state", "update", "--json", json.dumps(agents), agent="mc")
    barrier(repo)
    (wt2 / "src/shared.py").write_text("s = 2\n")
    wait_for(lambda: modified(repo, "src/shared.py", agent="executor-002"))
    conflict = wait_for(lambda: repo.events("write_conflict"))[0]
    assert conflict["payload"]["path"] == "src/shared.py"
    assert conflict["payload"]["agent"] == "executor-002"
    assert conflict["payload"]["conflicting_agents"] == ["executor-001"]


def watcher_events(repo: Repo, since: int) -> list[dict[str, Any]]:
    """The watcher's events after the first SINCE, barriers aside."""
    return [
        e
        for e in repo.events()[since:]
        if e["type"] in WATCHER_TYPES and not str(e["payload"].get("path", "")).startswith("barrier-")
    ]


def test_git_checkout_of_a_thousand_files_is_no_edit_and_an_edit_storm_is_bounded(daemons: Daemons) -> None:
    repo = daemons.repo
    repo.git("switch", "-q", "-c", "bulk")
    for i in range(1000):
        repo.write(f"bulk/d{i % 10}/f{i}.txt", f"{i}\n")
    repo.git("add", "bulk")
    repo.git("commit", "-q", "-m", "bulk", env=NO_HOOKS)
    repo.git("switch", "-q", "main")
    daemons.start()
    before = len(repo.events())
    # git writes a thousand files (its hooks run too): nobody edited anything
    repo.git("switch", "-q", "bulk")
    barrier(repo)
    assert watcher_events(repo, before) == []

    # a thousand edits at once (a formatter, a generator) are reported, as a bounded number of events
    before = len(repo.events())
    for i in range(1000):
        repo.write(f"bulk/d{i % 10}/f{i}.txt", f"{i} edited\n")

    def counted() -> int:
        new = repo.events()[before:]
        bulk = sum(e["payload"]["count"] for e in new if e["type"] == "files_modified_bulk")
        return bulk + len([e for e in new if e["type"] == "file_modified"])

    wait_for(lambda: counted() >= 1000)
    barrier(repo)
    new = watcher_events(repo, before)
    assert len(new) <= 30, [e["type"] for e in new]
    bulk = [e for e in new if e["type"] == "files_modified_bulk"]
    assert bulk and all(len(e["payload"]["sample"]) <= 20 for e in bulk)
    assert sum(e["payload"]["operations"].get("modified", 0) for e in bulk) >= 900

    # git puts HEAD's content back (stash), then deletes the thousand files (switch): git's doing again
    before = len(repo.events())
    repo.git("stash", "-q")
    repo.git("switch", "-q", "main")
    barrier(repo)
    assert watcher_events(repo, before) == []
    assert not (repo.path / "bulk").exists()


def test_merge_rebase_and_stash_by_git_are_no_agents_edit(daemons: Daemons, tmp_path: Any) -> None:
    repo = daemons.repo
    commit_files(repo, {"src/shared.py": "s = 0\n", "src/a.py": "a = 0\n", "src/gone.py": "g = 0\n"})
    wt1, wt2 = tmp_path / "wt1", tmp_path / "wt2"
    repo.git("worktree", "add", "-q", str(wt1), "-b", "agent1")
    repo.git("worktree", "add", "-q", str(wt2), "-b", "agent2")
    (wt1 / "src/own.py").write_text("o = 1\n")
    git(wt1, "add", "src/own.py")
    git(wt1, "commit", "-q", "-m", "own work", env=NO_HOOKS)
    repo.git("switch", "-q", "-c", "feature")
    commit_files(repo, {"src/shared.py": "s = 1\n", "src/a.py": "a = 1\n", "src/b.py": "b = 1\n"})
    repo.git("rm", "-q", "src/gone.py")
    repo.git("commit", "-q", "-m", "drop gone", env=NO_HOOKS)
    repo.git("switch", "-q", "main")
    commit_files(repo, {"docs/notes.md": "n\n"})  # main moved on: merging feature makes a merge commit
    agents = [{"id": "executor-001", "worktree": str(wt1)}, {"id": "executor-002", "worktree": str(wt2)}]
    repo.gridgit("state", "update", "--json", json.dumps({"agents": {"active": agents}}), agent="mc")
    daemons.start()
    # an uncommitted edit is an agent's edit
    (wt2 / "src/shared.py").write_text("s = 2\n")
    wait_for(lambda: modified(repo, "src/shared.py", agent="executor-002"))
    before = len(repo.events())
    # git rewrites shared.py (and more) in every work tree, with gridgit's hooks active
    repo.git("merge", "-q", "--no-edit", "feature")  # a true merge in the main worktree
    git(wt1, "rebase", "-q", "main")  # executor-001 rebases its work onto it
    git(wt2, "stash", "-q")  # executor-002 sets its edit aside...
    git(wt2, "merge", "-q", "main")  # ...and fast-forwards: not its edit either
    barrier(repo)
    assert (wt1 / "src/b.py").exists() and not (wt2 / "src/gone.py").exists()
    assert watcher_events(repo, before) == []
    # what the agents edit afterwards is still theirs, and still conflicts
    (wt1 / "src/a.py").write_text("a = 2\n")
    wait_for(lambda: modified(repo, "src/a.py", agent="executor-001", operation="modified"))
    (wt2 / "src/a.py").write_text("a = 3\n")
    conflict = wait_for(lambda: repo.events("write_conflict"))[0]
    assert conflict["payload"]["path"] == "src/a.py" and conflict["payload"]["conflicting_agents"] == ["executor-001"]


def test_stale_agent_is_reported_once_and_recorded_in_state(daemons: Daemons) -> None:
    repo = daemons.repo
    config = json.loads((repo.grid / "config.json").read_text(encoding="utf-8"))
    config.setdefault("watcher", {})["sweep_seconds"] = 1
    (repo.grid / "config.json").write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")
    agents = {"agents": {"active": [{"id": "executor-009", "task": "auth"}]}}
    repo.gridgit("state", "update", "--json", json.dumps(agents), agent="mc")
    daemons.start()
    event = wait_for(lambda: repo.events("agent_stale"))[0]
    assert event["payload"]["agent"] == "executor-009" and event["payload"]["phase_id"] == "01-foundation"
    warnings = repo.gridgit_json("state", "show", "--field", "warnings")
    assert [w["agent"] for w in warnings if w.get("type") == "agent_stale"] == ["executor-009"]
    # a restarted watcher finds the warning in STATE.md and does not announce it again
    repo.gridgit("daemon", "stop")
    daemons.start()
    barrier(repo)
    barrier(repo)
    assert len(repo.events("agent_stale")) == 1


def test_polling_observer_on_request(daemons: Daemons) -> None:
    repo = daemons.repo
    commit_files(repo, {"src/p.py": "p = 1\n"})
    assert daemons.start("--polling")["observer"] == "polling"
    repo.write("src/p.py", "p = 2\n")
    wait_for(lambda: modified(repo, "src/p.py", operation="modified"))


def test_grid_removed_and_restored_keeps_the_watcher_going(daemons: Daemons, tmp_path: Any) -> None:
    repo = daemons.repo
    pid = daemons.start()["pid"]
    aside = tmp_path / "grid-aside"
    shutil.move(str(repo.grid), str(aside))
    wait_for(lambda: "was removed" in (aside / ".daemon" / "daemon.log").read_text(encoding="utf-8"))
    shutil.move(str(aside), str(repo.grid))
    wait_for(lambda: "is back" in "\n".join(repo.gridgit_json("daemon", "logs")["lines"]))
    assert repo.gridgit_json("daemon", "status")["pid"] == pid
    pad = repo.path / PAD
    pad.write_bytes(pad.read_bytes().replace(b"phase_name: Foundation", b"phase_name: [unclosed", 1))
    wait_for(lambda: repo.events("validation_failed"))


def test_repository_moved_stops_the_daemon_with_a_clear_message(daemons: Daemons, tmp_path: Any) -> None:
    repo = daemons.repo
    pid = daemons.start()["pid"]
    moved = tmp_path / "moved"
    shutil.move(str(repo.path), str(moved))
    try:
        wait_for(lambda: not pid_alive(pid))
        log = (moved / ".grid" / ".daemon" / "daemon.log").read_text(encoding="utf-8")
        assert "was moved or deleted; the watcher stops" in log
    finally:
        shutil.move(str(moved), str(repo.path))
    # the next start cleans up what the moved daemon could no longer reach
    assert repo.gridgit_json("daemon", "status")["state"] in ("stale-pid", "stopped")
    assert daemons.start()["action"] == "started"


def test_inotify_limit_falls_back_to_polling_and_stop_leaves_no_thread(
    repo: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    import watchdog.observers

    from gridgit.store.layout import Layout
    from gridgit.watch.watcher import Watcher

    native = watchdog.observers.Observer

    class Limited(native):  # type: ignore[misc, valid-type]
        """The native observer of a machine whose inotify watch limit is 2."""

        def schedule(self, *args: Any, **kwargs: Any) -> Any:
            if len(self._watches) >= 2:
                raise OSError(errno.ENOSPC, "inotify watch limit reached")
            return super().schedule(*args, **kwargs)

    monkeypatch.setattr(watchdog.observers, "Observer", Limited)
    commit_files(repo, {"a/x.py": "1\n", "b/y.py": "2\n", "c/z.py": "3\n"})
    before = set(threading.enumerate())
    watcher = Watcher(Layout.find(repo.path))
    try:
        watcher.start()
        assert watcher.kind == "polling"
        assert len(watcher.watches) == len(watcher._all_dirs()) >= 6
    finally:
        watcher.stop()
    assert set(threading.enumerate()) - before == set()


# ---- git's changes and agents' (real git, time passed in) ------------------------------------


def _changes(root: Any, *specs: str) -> list[Any]:
    """Changes of work tree ROOT from `operation:path[:old_path]` specs."""
    from gridgit.watch.debounce import Change
    from gridgit.watch.scope import Target

    found = []
    for spec in specs:
        operation, rel, *old = spec.split("|")
        found.append(Change(Target("work", rel, root), operation, old[0] if old else None))
    return found


def test_only_paths_that_differ_from_head_are_agents_changes(bare_repo: Repo) -> None:
    from gridgit.watch.origin import GitOrigin

    repo = bare_repo
    names = ["clean.py", "edited.py", "rm-by-hand.py", "star*.py", ":colon.py", "space name.py"]
    for name in names:
        repo.write(name, "x\n")
    repo.git("--literal-pathspecs", "add", *names)
    repo.git("commit", "-q", "-m", "names", env=NO_HOOKS)
    repo.write("edited.py", "y\n")
    repo.write("star*.py", "y\n")
    repo.write("new.py", "n\n")
    repo.write(":colon.py", "y\n")
    (repo.path / "rm-by-hand.py").unlink()
    origin = GitOrigin(lambda root: root / ".git", 0.1)
    changes = _changes(
        repo.path,
        "modified|clean.py",  # rewritten by git with HEAD's content
        "modified|edited.py",
        "created|new.py",
        "deleted|rm-by-hand.py",  # HEAD still has it: someone deleted it
        "deleted|removed-by-git.py",  # HEAD does not have it (a checkout took it away)
        "modified|star*.py",  # a pathspec would also match star-free names: literal paths only
        "modified|:colon.py",
        "modified|space name.py",
        "moved|new.py|clean.py",
    )
    kept = origin.agents_changes(changes, 0.0)
    assert [(c.target.rel, c.operation) for c in kept] == [
        ("edited.py", "modified"),
        ("new.py", "created"),
        ("rm-by-hand.py", "deleted"),
        ("star*.py", "modified"),
        (":colon.py", "modified"),
        ("new.py", "moved"),
    ]
    # a batch too big for pathspecs asks about the whole tree: same answer, still one call
    many = changes + _changes(repo.path, *(f"modified|clean{i}.py" for i in range(300)))
    assert len(origin.agents_changes(many, 0.0)) == len(kept)


def test_batches_wait_while_git_holds_the_index_lock(bare_repo: Repo) -> None:
    from gridgit.watch.origin import MAX_HOLD_SECONDS, GitOrigin

    repo = bare_repo
    commit_files(repo, {"a.py": "a\n", "b.py": "b\n"})
    repo.write("a.py", "edited\n")
    origin = GitOrigin(lambda root: root / ".git", 0.1)
    lock = repo.path / ".git" / "index.lock"
    lock.write_text("")
    assert origin.agents_changes(_changes(repo.path, "modified|a.py", "modified|b.py"), 0.0) == []
    assert origin.next_deadline() == 0.1 and origin.due(0.05) == []
    again = origin.due(0.1)
    assert len(again) == 2 and origin.next_deadline() is None
    assert origin.agents_changes(again, 0.1) == []  # still locked: held again
    lock.unlink()  # git finished: judged against the new HEAD
    assert [c.target.rel for c in origin.agents_changes(origin.due(0.2), 0.2)] == ["a.py"]
    # a lock nobody releases (a crashed git) holds batches back for a bounded time only
    lock.write_text("")
    assert origin.agents_changes(_changes(repo.path, "modified|a.py"), 1.0) == []
    late = 1.0 + MAX_HOLD_SECONDS
    assert [c.target.rel for c in origin.agents_changes(origin.due(late), late)] == ["a.py"]
    assert [c.target.rel for c in origin.agents_changes(_changes(repo.path, "modified|a.py"), late + 1)] == ["a.py"]


def test_a_stopped_merge_staged_result_is_gits_and_its_conflicts_are_reported(bare_repo: Repo) -> None:
    from gridgit.watch.origin import GitOrigin

    repo = bare_repo
    commit_files(repo, {"both.py": "0\n", "theirs.py": "0\n"})
    repo.git("switch", "-q", "-c", "other")
    commit_files(repo, {"both.py": "other\n", "theirs.py": "other\n"})
    repo.git("switch", "-q", "main")
    commit_files(repo, {"both.py": "main\n"})
    repo.git("merge", "-q", "other", check=False, env=NO_HOOKS)  # stops: both.py conflicts
    assert (repo.path / ".git" / "MERGE_HEAD").exists()
    origin = GitOrigin(lambda root: root / ".git", 0.1)
    kept = origin.agents_changes(_changes(repo.path, "modified|both.py", "modified|theirs.py"), 0.0)
    assert [c.target.rel for c in kept] == ["both.py"]  # conflict markers: someone must resolve them
    repo.write("theirs.py", "hand edit during the merge\n")
    kept = origin.agents_changes(_changes(repo.path, "modified|theirs.py"), 0.0)
    assert [c.target.rel for c in kept] == ["theirs.py"]


# ---- the debouncer on its own (pure: time is passed in) -------------------------------------


def _debouncer(known: set[str], on_disk: set[str]) -> Any:
    from gridgit.watch.debounce import Debouncer

    return Debouncer(0.1, lambda t: t.rel in known, lambda t: t.rel in on_disk, bulk_threshold=5, group_min=5)


def _target(rel: str) -> Any:
    from pathlib import Path

    from gridgit.watch.scope import Target

    return Target("work", rel, Path("/repo"))


def test_debouncer_nets_bursts_per_path() -> None:
    deb = _debouncer(known={"a.py", "gone.py"}, on_disk={"a.py", "b.py"})
    deb.touch(_target("a.py"), 0.0, open_for_write=True)
    deb.touch(_target("a.py"), 0.05, closed=True)
    deb.touch(_target("b.py"), 0.0, closed=True)
    deb.touch(_target("tmp.py"), 0.0, closed=True)  # created and gone again within the window: nothing
    deb.touch(_target("gone.py"), 0.0, closed=True)
    assert deb.next_deadline() == 0.1
    first = deb.ready(0.12)  # a.py was touched again at 0.05: not quiet yet
    assert sorted((c.target.rel, c.operation) for c in first.changes) == [("b.py", "created"), ("gone.py", "deleted")]
    assert [(c.target.rel, c.operation) for c in deb.ready(0.16).changes] == [("a.py", "modified")]
    assert deb.next_deadline() is None


def test_debouncer_waits_for_the_writer_to_close() -> None:
    deb = _debouncer(known={"a.py"}, on_disk={"a.py"})
    deb.touch(_target("a.py"), 0.0, open_for_write=True)
    assert deb.ready(0.5).changes == []
    assert [c.operation for c in deb.ready(2.1).changes] == ["modified"]


def test_debouncer_atomic_save_and_real_move() -> None:
    on_disk = {"a.py", "new.py"}
    deb = _debouncer(known={"a.py", "old.py"}, on_disk=on_disk)
    deb.touch(_target("a.py.new"), 0.0, closed=True)
    deb.move(_target("a.py.new"), _target("a.py"), 0.01)
    deb.move(_target("old.py"), _target("new.py"), 0.01)
    batch = deb.ready(0.2)
    assert sorted((c.target.rel, c.operation, c.old_path) for c in batch.changes) == [
        ("a.py", "modified", None),
        ("new.py", "moved", "old.py"),
    ]


def test_debouncer_storm_is_one_bulk_batch() -> None:
    deb = _debouncer(known=set(), on_disk={f"f{i}" for i in range(30)})
    for i in range(30):
        deb.touch(_target(f"f{i}"), i * 0.05, closed=True)
    assert deb.ready(1.0).changes == []  # a storm is held while it goes on
    batch = deb.ready(1.45 + 0.11)
    assert len(batch.changes) == 30 and not deb.pending
