"""Findings 2, 3, 7 and 8 of issue 39: what a peer pushes cannot redirect git, empty the shared history,
rewrite an entry, or stall everyone. Each peer variant is a grid commit made with git's plumbing and
pushed to a bare origin, as a buggy or hostile clone would push it."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

from gridgit.scratchpad.document import Scratchpad
from tests.conftest import Repo, git
from tests.history.test_peers import peer_commit
from tests.history.test_sync import entries, origin_with_clones

PAD = "phases/01-foundation/scratchpad.md"


def _mktree(repo: Repo, entries: list[tuple[str, str, str, str]]) -> str:
    lines = "".join(f"{mode} {kind} {sha}\t{name}\n" for mode, kind, sha, name in entries)
    return subprocess.run(["git", "mktree", "--missing"], cwd=repo.path, input=lines, capture_output=True,
                          text=True, check=True).stdout.strip()  # fmt: skip


def test_a_peers_config_cannot_point_sync_at_a_code_branch_or_at_git_options(tmp_path: Path) -> None:
    a, b = origin_with_clones(tmp_path, ["a", "b"])
    main_before = git(tmp_path, "--git-dir", str(tmp_path / "origin.git"), "rev-parse", "main").strip()
    for ref in ("main", "--upload-pack=touch pwned"):
        b.git("fetch", "-q", "origin", "+grid:refs/heads/grid")  # the peer builds on what origin has
        config = json.loads(b.git("show", "grid:config.json"))
        config["sync"]["ref"] = ref
        bad = peer_commit(b, {"config.json": ("100644", json.dumps(config).encode())}, f"sync.ref {ref}")
        b.git("push", "-q", "--no-verify", "origin", "grid")
        proc = a.gridgit("sync")  # main: merged .grid/ into refs/heads/main and pushed it
        assert f".grid/config.json of a peer (from clone c-0123456789ab, grid commit {bad[:10]})" in proc.stdout
        assert "sync.ref must name gridgit's own branch" in proc.stdout
        assert json.loads((a.grid / "config.json").read_text())["sync"]["ref"] == "grid"
        a.gridgit("snapshot")  # and every later snapshot and sync still works
    origin_main = git(tmp_path, "--git-dir", str(tmp_path / "origin.git"), "rev-parse", "main").strip()
    assert origin_main == main_before and "STATE.md" not in a.git("ls-tree", "--name-only", "main")
    assert not (a.path / "pwned").exists() and not (tmp_path / "pwned").exists()
    # This clone's own config.json saying so is refused with the rule, naming the file.
    config = json.loads((a.grid / "config.json").read_text())
    config["sync"]["ref"] = "main"
    (a.grid / "config.json").write_text(json.dumps(config))
    refused = a.gridgit("sync", check=False)
    assert refused.returncode == 1 and "sync.ref must name gridgit's own branch" in refused.stderr


def test_a_peers_gitignore_cannot_take_blackboard_files_out_of_the_history(tmp_path: Path) -> None:
    a, b = origin_with_clones(tmp_path, ["a", "b"])
    for n in range(3):
        a.gridgit("write", "-c", "decision", "-t", f"d{n}", "--content", f"kept-{n}", agent="executor-001")
    a.gridgit("sync")
    b.gridgit("sync")
    hostile = b.git("show", "grid:.gitignore") + "phases/\nSTATE.md\nLEARNINGS.md\n"
    bad = peer_commit(b, {".gitignore": ("100644", hostile.encode())}, "ignore the Blackboard")
    b.git("push", "-q", "--no-verify", "origin", "grid")
    proc = a.gridgit("sync")
    assert f".grid/.gitignore of a peer (from clone c-0123456789ab, grid commit {bad[:10]})" in proc.stdout
    # A line typed into this clone's own file: moved to a machine-local exclude, never dropping a Blackboard file.
    (a.grid / ".gitignore").write_text((a.grid / ".gitignore").read_text() + "phases/\nnotes-mine.md\n")
    doctor = json.loads(a.gridgit("doctor", "--json", check=False).stdout)["data"]["findings"]
    found = next(f for f in doctor if f["check"] == "gitignore")
    assert found["level"] == "fail" and "phases/" in found["details"]  # main: "all good"
    (a.grid / "notes-mine.md").write_text("mine alone\n")
    a.gridgit("write", "-c", "decision", "-t", "d9", "--content", "kept-9", agent="executor-001")
    a.gridgit("sync")
    tree = a.git("ls-tree", "-r", "--name-only", "grid").split()
    assert {PAD, "STATE.md", "LEARNINGS.md"} <= set(tree) and "notes-mine.md" not in tree
    assert "phases/" not in (a.grid / ".gitignore").read_text()
    fresh = Repo(tmp_path / "fresh")
    git(tmp_path, "clone", "-q", str(tmp_path / "origin.git"), str(fresh.path))
    fresh.gridgit("init")  # main: 0 of 13 entries
    assert {f"kept-{n}" for n in (0, 1, 2, 9)} <= {e.content for e in entries(fresh)}
    b.gridgit("sync")
    assert {f"kept-{n}" for n in (0, 1, 2, 9)} <= {e.content for e in entries(b)}


def test_a_peer_cannot_rewrite_an_entry_and_a_rejection_names_the_peer(tmp_path: Path) -> None:
    a, b = origin_with_clones(tmp_path, ["a", "b"])
    a.gridgit("write", "-c", "decision", "-t", "db", "--content", "Postgres, decided by the team", agent="executor-001")
    a.gridgit("sync")
    b.gridgit("sync")
    pad = Scratchpad.parse(b.git("show", f"grid:{PAD}"), PAD)
    pad.entries[0].content = "SQLite after all"  # same uid, same clone and agent: a rewrite
    b.gridgit("write", "-c", "gotcha", "-t", "ok", "--content", "a real new entry", agent="executor-002")
    b.gridgit("snapshot")
    new = Scratchpad.parse(b.git("show", f"grid:{PAD}"), PAD)
    pad.entries.append(new.entries[-1])
    bad = peer_commit(b, {PAD: ("100644", pad.render().encode())}, "rewrite")
    b.git("push", "-q", "--no-verify", "origin", "grid")
    proc = a.gridgit("sync")
    assert f"grid commit {bad[:10]}" in proc.stdout and "rewrites entry" in proc.stdout
    contents = {e.content for e in entries(a)}
    assert "Postgres, decided by the team" in contents and "SQLite after all" not in contents
    assert "a real new entry" in contents  # the rest of the peer's file is merged
    # Paths git cannot look up are blamed on the peer's commit and clone, never "?" or this clone's own commit.
    b.git("fetch", "-q", "origin", "+grid:refs/heads/grid")
    blob = subprocess.run(["git", "hash-object", "-w", "--stdin"], cwd=b.path, input="x\n", capture_output=True,
                          text=True).stdout.strip()  # fmt: skip
    base = b.git("rev-parse", "grid^{tree}").strip()
    listing = [line.split(None, 3) for line in b.git("ls-tree", base).splitlines()]
    phases = _mktree(b, [("100644", "blob", blob, "..")])
    top = [(m, k, s, n) for m, k, s, n in listing if n != "phases"]
    tree = _mktree(b, [*top, ("100644", "blob", blob, ".."), ("040000", "tree", phases, "phases")])
    trailer = "dot-dot\n\nGrid-Agent: executor-666\nGrid-Clone: c-0123456789ab\n"
    commit = b.git("commit-tree", tree, "-p", "grid", "-m", trailer).strip()
    b.git("update-ref", "refs/heads/grid", commit)
    b.git("push", "-q", "--no-verify", "origin", "grid")
    proc = a.gridgit("sync")
    for path in ("..", "phases/.."):
        assert f".grid/{path} of a peer (from clone c-0123456789ab, grid commit {commit[:10]})" in proc.stdout


WRITER = """
import sys, time
from gridgit.scratchpad import store
from gridgit.store.layout import Layout
layout = Layout.find(sys.argv[1])
deadline = time.time() + float(sys.argv[2])
n = 0
while time.time() < deadline:
    store.write_entry(layout, "02-core", "executor-009", "discovery", "busy", f"during-{n}", [])
    print(time.time(), flush=True)  # acknowledged
    n += 1
"""


def test_a_huge_peer_is_merged_outside_the_writers_lock_and_a_bigger_one_refused_unread(tmp_path: Path) -> None:
    from gridgit.scratchpad.entry import Entry
    from gridgit.store import ids

    a, b = origin_with_clones(tmp_path, ["a", "b"])
    path = b.grid / PAD
    pad = Scratchpad.parse(path.read_text(encoding="utf-8"), PAD)
    pad.meta["index"]["max_entries"] = 30_000
    for n in range(20_000):
        pad.entries.append(Entry(n + 1, f"2026-01-01T00:{n // 1000 % 60:02d}:{n % 60:02d}Z", "executor-002",
                                 "discovery", f"t{n % 50}", [], "LOW", "", f"peer entry {n}", "T", [], ids.new_id(),
                                 "", None))  # fmt: skip
    pad.renumber()
    path.write_text(pad.render(), encoding="utf-8")
    b.gridgit("snapshot")
    b.git("push", "-q", "--no-verify", "origin", "grid")
    writer = subprocess.Popen([sys.executable, "-c", WRITER, str(a.path), "600"], stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True)  # fmt: skip
    assert writer.stdout is not None
    writer.stdout.readline()  # writing
    started = time.time()
    a.gridgit("sync")
    ended = time.time()
    writer.terminate()
    stamps = [float(line) for line in writer.communicate()[0].split()]
    during = [t for t in stamps if started <= t <= ended]
    gaps = [y - x for x, y in zip([started, *during], [*during, ended], strict=True)]
    # main held the Blackboard's lock through the whole merge (32.6 s): the writer waited all of it.
    assert len(during) >= 3 and max(gaps) < (ended - started) / 2, (len(during), max(gaps), ended - started)
    assert len([e for e in entries(a) if e.content.startswith("peer entry")]) == 20_000
    assert {f"during-{n}" for n in range(len(stamps))} <= {e.content for e in entries(a)}
    # 100,000 entries: refused from their count alone, before anything parses them.
    b.git("fetch", "-q", "origin", "+grid:refs/heads/grid")
    header = b.git("show", f"grid:{PAD}").split("\n### [", 1)[0]
    huge = header + "".join(f"\n### [{n}] 2026-01-01T00:00:00Z executor-002 | discovery | x\n\nx\n\n---\n"
                            for n in range(100_001))  # fmt: skip
    bad = peer_commit(b, {PAD: ("100644", huge.encode())}, "too big")
    b.git("push", "-q", "--no-verify", "origin", "grid")
    proc = a.gridgit("sync")
    assert f"grid commit {bad[:10]}" in proc.stdout and "holds 100,001 entries" in proc.stdout
