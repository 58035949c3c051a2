"""The Blackboard on its own ref, with real clones of a bare origin: git never in the way, sync
converges, a killed sync recovers, an old repository migrates (DESIGN.md "Git integration")."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gridgit import Blackboard
from gridgit.model.learnings import LearningsFile
from gridgit.scratchpad.archive import Archive
from gridgit.scratchpad.document import Scratchpad
from gridgit.scratchpad.entry import Entry
from tests.conftest import Repo, git

PHASES = ["01-foundation:Foundation", "02-core:Core", "03-ship:Ship"]


def origin_with_clones(tmp_path: Path, names: list[str]) -> list[Repo]:
    """A bare origin whose main has one commit and a Blackboard (on refs/heads/grid), and clones of it."""
    bare = tmp_path / "origin.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(bare))
    first = Repo(tmp_path / names[0])
    git(tmp_path, "clone", "-q", str(bare), str(first.path))
    first.write("README.md", "# shop\n")
    first.gridgit("init", "--mission", "sync", *[a for p in PHASES for a in ("--phase", p)])
    first.git("add", "-A")
    first.git("commit", "-q", "-m", "start")  # post-commit: the first snapshot
    first.git("push", "-q", "origin", "main")  # pre-push: the grid ref too
    clones = [first]
    for name in names[1:]:
        clone = Repo(tmp_path / name)
        git(tmp_path, "clone", "-q", str(bare), str(clone.path))
        clone.gridgit("init")  # the team's Blackboard, from origin/grid
        clones.append(clone)
    return clones


def entries(repo: Repo) -> list[Entry]:
    """Every entry of every scratchpad and archive of REPO's .grid/."""
    found: list[Entry] = []
    for path in sorted((repo.grid / "phases").glob("*/scratchpad*.md")):
        parse = Archive.parse if "archived" in path.name else Scratchpad.parse
        found += parse(path.read_text(encoding="utf-8"), str(path)).entries
    return found


def shared(repo: Repo) -> dict[str, bytes]:
    """What a snapshot holds of REPO's .grid/ (the machine-local files aside)."""
    return {k: v for k, v in repo.snapshot().items() if not k.startswith(("events/", ".board"))}


WRITER = """
import sys, time
from pathlib import Path
from gridgit.scratchpad import store
from gridgit.store.layout import Layout
layout = Layout.find(sys.argv[1])
stop = Path(sys.argv[2])
n = 0
while not stop.exists() or n < 100:
    marker = f"w{n:04d}"
    store.write_entry(layout, "01-foundation", "executor-009", "discovery", f"topic-{n % 7}", marker, [])
    print(marker, flush=True)  # acknowledged: written and returned
    n += 1
    time.sleep(0.01)
"""


def test_a_writer_loses_nothing_while_git_pulls_pushes_stashes_and_switches(tmp_path: Path) -> None:
    a, b = origin_with_clones(tmp_path, ["a", "b"])
    stop = tmp_path / "stop"
    env = {**os.environ, "GRIDGIT_LOCK_TIMEOUT": "60"}
    writer = subprocess.Popen([sys.executable, "-c", WRITER, str(a.path), str(stop)], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, env=env)  # fmt: skip
    try:
        quiet = {"GRIDGIT_SKIP": "1"}  # b only makes A's pulls bring something: its hooks are not the subject
        for cycle in range(12):
            b.write(f"b{cycle}.txt", "b\n")
            b.git("add", "-A")
            b.git("commit", "-q", "-m", f"b {cycle}", env=quiet)
            b.git("pull", "-q", "--rebase", "origin", "main", env=quiet)
            b.git("push", "-q", "origin", "main", env=quiet)
            a.write(f"a{cycle}.txt", "a\n")
            a.git("add", "-A")
            a.git("commit", "-q", "-m", f"a {cycle}")
            a.git("pull", "-q", "--rebase", "origin", "main")
            a.git("push", "-q", "origin", "main")
            a.write(f"a{cycle}.txt", "work in progress\n")
            a.git("stash", "-q")
            a.git("switch", "-q", "-c", f"away{cycle}")
            a.git("switch", "-q", "main")
            a.git("stash", "pop", "-q")
            a.git("checkout", "-q", "--", f"a{cycle}.txt")
        stop.touch()
        out, err = writer.communicate(timeout=300)
    finally:
        if writer.poll() is None:
            writer.kill()
    assert writer.returncode == 0, err
    acknowledged = out.split()
    assert len(acknowledged) >= 100
    on_board = [e.content for e in entries(a)]
    assert sorted(m for m in acknowledged if m not in on_board) == []  # every acknowledged write is there
    assert len(on_board) == len(set(on_board))
    assert a.git("status", "--porcelain") == ""
    b.gridgit("sync")
    a.gridgit("sync")
    b.gridgit("sync")
    assert shared(a) == shared(b)


def _round(repo: Repo, board: Blackboard, rng: random.Random, step: int) -> None:
    roll = rng.random()
    phase = board.phase()
    if roll < 0.55:
        tags = rng.choice([[], ["promote"], ["user_preference"]])
        board.write(rng.choice(["discovery", "decision", "gotcha"]), rng.choice(["auth", "db"]), f"mark-{step}",
                    tags=tags, agent=f"executor-{step % 3}")  # fmt: skip
    elif roll < 0.65:
        board.promote(phase, agent="memory-001")
    elif roll < 0.72:
        board.archive(phase, agent="mc")
    elif roll < 0.78 and phase != PHASES[-1].split(":")[0]:
        board.complete_phase(phase, agent="mc")
    elif roll < 0.88:
        repo.write(f"src/{step}.py", "x\n")
        repo.git("add", "-A")
        repo.git("commit", "-q", "-m", f"step {step}")
    else:
        board.sync(agent="mc")


@pytest.mark.parametrize("seed", [7])
def test_three_clones_in_random_rounds_converge_losing_and_doubling_nothing(tmp_path: Path, seed: int) -> None:
    clones = origin_with_clones(tmp_path, ["a", "b", "c"])
    boards = [Blackboard(c.path) for c in clones]
    rng = random.Random(seed)
    seen: set[str] = set()
    for step in range(45):
        n = rng.randrange(3)
        _round(clones[n], boards[n], rng, step)
        seen |= {e.uid for e in entries(clones[n])}
    for n in (0, 1, 2, 0, 1):
        boards[n].sync(agent="mc")
    trees = [shared(c) for c in clones]
    assert trees[0] == trees[1] == trees[2]
    assert not [p for p, data in trees[0].items() if b"<<<<<<<" in data or b">>>>>>>" in data]
    uids = [e.uid for e in entries(clones[0])]
    assert len(uids) == len(set(uids)), "an entry is doubled"
    assert seen <= set(uids), "an entry was lost"
    items = LearningsFile.parse(trees[0]["LEARNINGS.md"].decode()).learnings()
    assert len({i.id for i in items}) == len(items) and len({i.origin for i in items}) == len(items)
    assert clones[0].gridgit("validate").returncode == 0
    heads = {c.git("rev-parse", "grid").strip() for c in clones}
    assert len(heads) == 1 and heads == {clones[0].git("rev-parse", "origin/grid").strip()}


def test_a_sync_killed_at_any_point_leaves_ref_and_files_consistent_and_a_rerun_converges(tmp_path: Path) -> None:
    a, b = origin_with_clones(tmp_path, ["a", "b"])
    for n in range(60):  # enough on each side that a merge writes for a while
        (a if n % 2 else b).gridgit("write", "-c", "discovery", "-t", f"t{n % 5}", "--content", f"k{n}",
                                    agent=f"executor-{n % 2}")  # fmt: skip
    b.gridgit("sync")
    rng = random.Random(3)
    for _ in range(6):
        a.gridgit("write", "-c", "gotcha", "-t", "late", "--content", f"late-{rng.random()}", agent="executor-1")
        proc = subprocess.Popen([sys.executable, "-m", "gridgit", "sync"], cwd=a.path,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)  # fmt: skip
        time.sleep(rng.uniform(0.05, 0.6))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        ref = a.git("rev-parse", "-q", "--verify", "grid", check=False).strip()
        assert ref and a.git("cat-file", "-t", ref).strip() == "commit"  # the ref names a whole commit
        assert a.gridgit("validate", check=False).returncode == 0  # every file is old or new, never half
    a.gridgit("sync")  # finishes what a kill cut short, then syncs
    b.gridgit("sync")
    a.gridgit("sync")
    assert shared(a) == shared(b)
    contents = [e.content for e in entries(a)]
    assert {f"k{n}" for n in range(60)} <= set(contents) and len(contents) == len(set(contents))
    assert sum(1 for c in contents if c.startswith("late-")) == 6
    assert not (a.path / ".git" / "gridgit" / "sync-journal").exists()


def test_migrating_a_repository_that_tracks_the_blackboard(tmp_path: Path) -> None:
    bare = tmp_path / "origin.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(bare))
    old = Repo(tmp_path / "old")
    git(tmp_path, "clone", "-q", str(bare), str(old.path))
    old.gridgit("init", "--no-hooks", "--mission", "legacy")
    (old.path / ".gitignore").unlink()  # the first design: .grid/ tracked by the code branch
    for n in range(3):
        old.gridgit("write", "-c", "decision", "-t", "db", "--content", f"tracked-{n}", agent="executor-001")
        old.git("add", "-A")
        old.git("commit", "-q", "-m", f"history {n}")
    old.git("push", "-q", "origin", "main")
    clean_clone, busy_clone = Repo(tmp_path / "clean"), Repo(tmp_path / "busy")
    for clone in (clean_clone, busy_clone):
        git(tmp_path, "clone", "-q", str(bare), str(clone.path))
        clone.gridgit("hooks", "install")  # the new gridgit, before anyone migrated
    assert "gridgit migrate" in old.gridgit_json("init")["advice"][0]  # offered by init
    doctor = json.loads(old.gridgit("doctor", "--json", check=False).stdout)["data"]
    assert next(f for f in doctor["findings"] if f["check"] == "grid-ref")["fix"] == "gridgit migrate"

    result = old.gridgit_json("migrate")
    assert result["untracked"] > 3 and result["commit"]
    assert old.git("ls-files", ".grid") == "" and old.git("status", "--porcelain") == ""
    assert "tracked-2" in old.git("show", "grid:phases/01-foundation/scratchpad.md")
    assert [e.content for e in entries(old)] == ["tracked-0", "tracked-1", "tracked-2"]  # nothing moved on disk
    assert old.gridgit_json("migrate")["changed"] == []  # idempotent
    old.git("push", "-q", "origin", "main")  # pushes the grid ref too

    # A clone with nothing pending pulls the untracking commit: git deletes the tracked files,
    # post-merge writes them back and syncs with the team's grid ref.
    clean_clone.git("pull", "-q", "--no-rebase", "origin", "main")
    assert [e.content for e in entries(clean_clone)] == ["tracked-0", "tracked-1", "tracked-2"]
    assert clean_clone.git("status", "--porcelain") == ""
    # A clone with unsynced writes in the tracked files migrates first (git would refuse the pull).
    busy_clone.gridgit("write", "-c", "gotcha", "-t", "cache", "--content", "unsynced", agent="executor-002")
    assert busy_clone.gridgit_json("migrate")["commit"]
    busy_clone.git("pull", "-q", "--no-rebase", "--no-edit", "origin", "main")
    busy_clone.gridgit("sync")
    for clone in (old, clean_clone, busy_clone, old):
        clone.gridgit("sync")
    assert shared(old) == shared(clean_clone) == shared(busy_clone)
    assert {"tracked-0", "tracked-1", "tracked-2", "unsynced"} == {e.content for e in entries(old)}
    assert any(
        "unsynced" in c["what"] or c["kind"] == "wrote" for item in old.gridgit_json("log") for c in item["changes"]
    )


def test_a_peer_pushing_into_this_repositorys_grid_ref_is_merged_not_overwritten(tmp_path: Path) -> None:
    a, b = origin_with_clones(tmp_path, ["a", "b"])
    b.gridgit("write", "-c", "decision", "-t", "db", "--content", "from-b", agent="executor-002")
    b.gridgit("snapshot")
    b.git("push", "-q", "--no-verify", str(a.path), "grid:grid")  # straight into A's ref, A's files untouched
    a.gridgit("write", "-c", "gotcha", "-t", "ui", "--content", "from-a", agent="executor-001")
    a.gridgit("snapshot")
    assert {"from-a", "from-b"} <= {e.content for e in entries(a)}
    pad = a.git("show", "grid:phases/01-foundation/scratchpad.md")
    assert "from-a" in pad and "from-b" in pad
    assert len(a.git("log", "-1", "--format=%P", "grid").split()) == 2  # a merge commit


def test_log_diff_and_bad_input(repo: Repo) -> None:
    assert repo.gridgit("log", check=False).returncode == 1  # no snapshot yet: one line, no traceback
    repo.gridgit("write", "-c", "decision", "-t", "db", "--content", "postgres", "--tags", "promote", "-r", "HIGH",
                 agent="executor-001")  # fmt: skip
    repo.gridgit("write", "-c", "gotcha", "-t", "ui", "--content", "min width", agent="executor-002")
    first = repo.gridgit_json("snapshot")
    assert first["created"] is True and repo.gridgit_json("snapshot")["created"] is False  # nothing new: no commit
    repo.gridgit("promote", "--phase", "01-foundation", agent="memory-001")
    repo.gridgit("snapshot", "-m", "after promotion")
    items = repo.gridgit_json("log")
    assert items[0]["subject"] == "gridgit: after promotion"
    # The clone is named by a random id kept in its git config, never by its host or path (issue 24).
    assert items[0]["clone"] == repo.git("config", "gridgit.cloneid").strip()
    repo.git("config", "gridgit.clonename", "alice laptop")
    repo.gridgit("write", "-c", "discovery", "-t", "name", "--content", "named", agent="executor-001")
    repo.gridgit("snapshot")
    assert repo.gridgit_json("log", "-n", "1")[0]["clone"] == f"alice laptop ({items[0]['clone']})"
    assert str(repo.path) not in repo.git("log", "--format=%B", "grid")
    kinds = {(c["kind"], c["agent"]) for item in items for c in item["changes"]}
    assert ("wrote", "executor-001") in kinds and ("wrote", "executor-002") in kinds
    assert any(c["kind"] == "promoted" for c in items[0]["changes"])
    mine = repo.gridgit_json("log", "--agent", "executor-002")
    assert {c["agent"] for item in mine for c in item["changes"]} == {"executor-002"}
    assert repo.gridgit_json("log", "--phase", "02-core") == []
    assert "no change since the snapshot" in repo.gridgit("diff").stdout
    repo.gridgit("write", "-c", "pattern", "-t", "api", "--content", "retry with backoff", agent="executor-001")
    assert "+retry with backoff" in repo.gridgit("diff").stdout
    assert "scratchpad.md" in repo.gridgit("diff", "--stat", first["commit"]).stdout
    for args, code in ((("diff", "no-such-rev"), 1), (("sync", "nowhere"), 7), (("log", "--phase", "../x"), 1)):
        proc = repo.gridgit(*args, check=False)
        assert proc.returncode == code and proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr, args
    assert repo.git("status", "--porcelain") == "?? .gitignore\n"


def test_sync_with_a_remote_that_is_not_there_says_what_happened(repo: Repo, tmp_path: Path) -> None:
    before = repo.snapshot()
    repo.git("remote", "add", "origin", str(tmp_path / "gone" / "origin.git"))
    proc = repo.gridgit("sync", check=False)
    assert proc.returncode == 7 and proc.stderr.count("\n") == 1
    assert f"remote origin is {tmp_path}/gone/origin.git, which does not exist" in proc.stderr
    (tmp_path / "not-a-repo").mkdir()
    repo.git("remote", "set-url", "origin", str(tmp_path / "not-a-repo"))
    proc = repo.gridgit("sync", check=False)  # git's reason, not only its closing advice
    assert proc.returncode == 1 and proc.stderr.count("\n") == 1
    assert "does not appear to be a git repository; Could not read from remote repository." in proc.stderr
    assert repo.snapshot() == before


def test_an_invalid_file_is_left_out_of_the_snapshot_and_reported(repo: Repo) -> None:
    repo.gridgit("snapshot")
    state = repo.grid / "STATE.md"
    state.write_text(state.read_text(encoding="utf-8").replace("status: planning", "status: [broken"), "utf-8")
    repo.gridgit("write", "-c", "decision", "-t", "db", "--content", "still-snapshotted", "--phase", "01-foundation",
                 agent="executor-001")  # fmt: skip
    proc = repo.gridgit("snapshot")
    assert ".grid/STATE.md: line " in proc.stdout and "its last version is kept on the grid ref" in proc.stdout
    assert "status: planning" in repo.git("show", "grid:STATE.md")  # the last valid version stays
    assert "still-snapshotted" in repo.git("show", "grid:phases/01-foundation/scratchpad.md")
    assert "status: [broken" in state.read_text(encoding="utf-8")  # the user's file is left as it is
