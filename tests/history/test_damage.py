"""Only operations remove; damage is never shared (DESIGN.md invariant 6, issue 24): real clones
of a bare origin, real processes. Whatever happens to a clone's `.grid/` by hand, its snapshot
keeps the last good version on the grid ref, sync never turns it into a deletion in another
clone, and `gridgit restore --all` brings everything back."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from gridgit.model.learnings import LearningsFile
from tests.conftest import Repo
from tests.history.test_sync import entries, origin_with_clones, shared

PAD = ".grid/phases/01-foundation/scratchpad.md"


def _uids(repo: Repo) -> set[str]:
    return {e.uid for e in entries(repo)}


def _learnings(repo: Repo) -> set[str]:
    return {item.id for item in LearningsFile.parse((repo.grid / "LEARNINGS.md").read_text("utf-8")).learnings()}


def _deletions(repo: Repo) -> str:
    """Every file any grid commit deleted (none may be, but by an operation that says so)."""
    return repo.git("log", "--diff-filter=D", "--name-only", "--format=", "grid").strip()


def _drop_one_entry(repo: Repo) -> None:
    """An entry deleted by hand (its header to the next one's), then the index rebuilt as the watcher would."""
    path = repo.path / PAD
    text = path.read_text("utf-8")
    start = text.index("### [2] ")
    end = text.index("### [3] ")
    path.write_text(text[:start] + text[end:], "utf-8")
    repo.gridgit("reindex", "--phase", "01-foundation")


def _halve(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def _replace_with_folder(path: Path) -> None:
    path.unlink()
    (path / "sub").mkdir(parents=True)
    (path / "sub" / "keep").write_text("x\n", "utf-8")


def _replace_with_symlink(path: Path, target: Path) -> None:
    target.write_text("## gotchas\n", "utf-8")
    path.unlink()
    path.symlink_to(target)


def _damages(tmp: Path) -> list[tuple[str, Callable[[Repo], None]]]:
    return [
        ("delete a phase folder", lambda r: shutil.rmtree(r.grid / "phases" / "01-foundation")),
        ("delete STATE.md", lambda r: (r.grid / "STATE.md").unlink()),
        ("delete LEARNINGS.md", lambda r: (r.grid / "LEARNINGS.md").unlink()),
        ("delete config.json", lambda r: (r.grid / "config.json").unlink()),
        ("truncate a scratchpad to 0 bytes", lambda r: (r.path / PAD).write_bytes(b"")),
        ("truncate a scratchpad to half", lambda r: _halve(r.path / PAD)),
        ("overwrite a scratchpad with prose", lambda r: (r.path / PAD).write_text("I cleaned this up.\n", "utf-8")),
        ("delete one entry by hand", _drop_one_entry),
        ("STATE.md replaced by a folder", lambda r: _replace_with_folder(r.grid / "STATE.md")),
        ("LEARNINGS.md replaced by a symlink", lambda r: _replace_with_symlink(r.grid / "LEARNINGS.md", tmp / "l.md")),
    ]


def test_local_damage_is_never_shared_and_restore_brings_everything_back(tmp_path: Path) -> None:
    a, b = origin_with_clones(tmp_path, ["a", "b"])
    for n in range(4):
        a.gridgit("write", "-c", "gotcha", "-t", f"a{n}", "--content", f"a-{n}", "--tags", "promote",
                  agent="executor-001")  # fmt: skip
        b.gridgit("write", "-c", "decision", "-t", f"b{n}", "--content", f"b-{n}", agent="executor-002")
    a.gridgit("promote", "--phase", "01-foundation", agent="memory-001")
    a.gridgit("sync")
    b.gridgit("sync")
    a.gridgit("sync")
    all_uids, all_learnings = _uids(a), _learnings(a)
    assert len(all_uids) == 8 and len(all_learnings) == 4 and _uids(b) == all_uids

    for step, (name, damage) in enumerate(_damages(tmp_path)):
        damage(a)
        a.write(f"src/{step}.py", "x\n")
        a.git("add", "src")
        a.git("commit", "-q", "-m", f"code {step}")  # post-commit: a snapshot, in the foreground here
        a.git("push", "-q", "origin", "main")  # pre-push: syncs the grid ref with origin
        b.gridgit("sync")
        # The other clone loses nothing, and stays valid.
        assert _uids(b) >= all_uids and _learnings(b) >= all_learnings, name
        assert b.gridgit("validate", check=False).returncode == 0, name
        assert (b.grid / "config.json").is_file() and (b.grid / "STATE.md").is_file(), name
        assert _deletions(a) == _deletions(b) == "", name
        assert not [p for p in a.git("ls-tree", "-r", "--name-only", "grid").split() if p.startswith("STATE.md/")]
        assert a.events("damage_kept") or not (a.grid / "STATE.md").is_file(), name  # announced (and said on stderr)
        # The damaged clone says so, and gets everything back with the one documented command.
        doctor = json.loads(a.gridgit("doctor", "--json", check=False).stdout)["data"]
        assert not doctor["healthy"] and any("gridgit" in f["fix"] for f in doctor["findings"] if f["level"] == "fail")
        if (a.grid / "STATE.md").is_file():
            assert a.gridgit_json("status")["history"]["damage"], name
        if (a.grid / "STATE.md").is_dir():
            shutil.rmtree(a.grid / "STATE.md")  # restore will not delete a folder: moved out of the way first
        if (a.grid / "LEARNINGS.md").is_symlink():
            (a.grid / "LEARNINGS.md").unlink()
        restored = a.gridgit_json("restore", "--all")
        assert restored and all(r["how"] in ("restored", "merged") for r in restored), (name, restored)
        assert _uids(a) >= all_uids and _learnings(a) >= all_learnings, name
        assert a.gridgit("validate", check=False).returncode == 0, name
        assert a.gridgit_json("status")["history"]["damage"] == [], name

    a.gridgit("sync")
    b.gridgit("sync")
    assert shared(a) == shared(b)
    assert _deletions(a) == ""
    kept = list((a.path / ".git" / "gridgit" / "restored").rglob("*"))
    assert any(p.name == "scratchpad.md" for p in kept)  # the damaged bytes were kept, not thrown away


RACER = """
import os, random, sys, time
from pathlib import Path
grid, stop = Path(sys.argv[1]), Path(sys.argv[2])
files = [grid / "STATE.md", grid / "LEARNINGS.md", grid / "phases/01-foundation/scratchpad.md", grid / "config.json"]
saved = {p: p.read_bytes() for p in files}
rng = random.Random(5)
rounds = 0
while not stop.exists() or rounds < 200:
    rounds += 1
    victim = rng.choice(files)
    victim.unlink()
    time.sleep(rng.uniform(0, 0.004))
    victim.write_bytes(saved[victim])
    time.sleep(rng.uniform(0, 0.004))
print(rounds)
"""

SNAPSHOTTER = """
import sys
from gridgit.errors import GridError
from gridgit.history import snapshot
from gridgit.scratchpad import store
from gridgit.store.layout import Layout
layout = Layout.find(sys.argv[1])
for n in range(int(sys.argv[2])):
    if n % 4 == 0:
        try:  # STATE.md or config.json may be gone for a moment: then this write is refused, and that is fine
            store.write_entry(layout, "02-core", "executor-003", "discovery", "race", f"r{n}", [])
        except GridError:
            pass
    snapshot.snapshot(layout, f"race {n}", "system")
"""


def test_rm_racing_snapshots_never_becomes_a_deletion_in_the_history(repo: Repo) -> None:
    repo.gridgit("write", "-c", "gotcha", "-t", "x", "--content", "kept", agent="executor-001")
    repo.gridgit("phase", "start", "02-core", "--force", agent="mc")  # 01-foundation completed into it: archived
    repo.gridgit("snapshot")
    env = {**os.environ, "GRIDGIT_LOCK_TIMEOUT": "60"}
    stop = repo.path.parent / "stop"
    racer = subprocess.Popen([sys.executable, "-c", RACER, str(repo.grid), str(stop)], env=env, stdout=subprocess.PIPE,
                             text=True)  # fmt: skip
    try:
        snapper = subprocess.run([sys.executable, "-c", SNAPSHOTTER, str(repo.path), "200"], env=env,
                                 capture_output=True, text=True, timeout=600)  # fmt: skip
    finally:
        stop.touch()
        out, _ = racer.communicate(timeout=600)
    assert snapper.returncode == 0, snapper.stderr
    assert racer.returncode == 0 and int(out) >= 200  # an `rm` racing every one of the 200 snapshots
    commits = repo.git("rev-list", "grid").split()
    assert len(commits) > 25  # the entries written meanwhile made new snapshots all along
    assert _deletions(repo) == ""
    assert "kept" in repo.git("show", "grid:phases/01-foundation/scratchpad_archived.md")
    for commit in commits:  # every snapshot holds every file: none was ever committed missing
        tree = repo.git("ls-tree", "-r", "--name-only", commit).split()
        assert {"STATE.md", "LEARNINGS.md", "config.json", "phases/01-foundation/scratchpad.md"} <= set(tree)


def test_restore_takes_the_newest_valid_version_not_only_the_tip_and_rebuilds_state_with_every_phase(
    repo: Repo,
) -> None:
    repo.gridgit("write", "-c", "gotcha", "-t", "x", "--content", "kept", agent="executor-001")
    good = repo.gridgit_json("snapshot")["commit"]
    # A tip that lost STATE.md (as an earlier gridgit recorded an `rm` racing its snapshot).
    tree = repo.git("ls-tree", "grid").replace("\n", "\0")
    kept_lines = "".join(line + "\n" for line in tree.split("\0") if line and not line.endswith("\tSTATE.md"))
    headless = subprocess.run(["git", "mktree"], cwd=repo.path, input=kept_lines, capture_output=True, text=True)
    tip = repo.git("commit-tree", headless.stdout.strip(), "-p", good, "-m", "an old gridgit's deletion").strip()
    repo.git("update-ref", "refs/heads/grid", tip)
    repo.git("update-ref", "refs/gridgit/board", tip)
    (repo.grid / "STATE.md").unlink()
    done = repo.gridgit_json("restore", "STATE.md")
    assert done == [{"path": "STATE.md", "how": "restored", "source": f"grid commit {good[:10]}", "detail": ""}]
    assert repo.gridgit_json("state", "show")["phases"]["total"] == 2  # 02-core, that only STATE knew, is kept

    # No valid STATE.md anywhere in the history: rebuilt with every phase a STATE.md copy or a folder knows.
    state = repo.grid / "STATE.md"
    broken = state.read_text("utf-8").replace("status: planning", "status: not-a-status")
    blob = subprocess.run(["git", "hash-object", "-w", "--stdin"], cwd=repo.path, input=broken, capture_output=True,
                          text=True).stdout.strip()  # fmt: skip
    only = subprocess.run(["git", "mktree"], cwd=repo.path, input=f"100644 blob {blob}\tSTATE.md\n",
                          capture_output=True, text=True).stdout.strip()  # fmt: skip
    orphan = repo.git("commit-tree", only, "-m", "a history whose STATE.md never validated").strip()
    state.unlink()
    from gridgit import Blackboard

    rebuilt = Blackboard(repo.path).restore(["STATE.md"], rev=orphan)  # the Python API: the same call
    assert [(r.path, r.how) for r in rebuilt] == [("STATE.md", "rebuilt")]
    phases = [d["id"] for d in repo.gridgit_json("state", "show")["phases"]["definitions"]]
    assert phases == ["01-foundation", "02-core"]
    assert repo.gridgit("validate").returncode == 0
    # A folder names every file the history has under it.
    shutil.rmtree(repo.grid / "phases")
    lines = repo.gridgit("restore", "phases/01-foundation").stdout.splitlines()
    assert lines == [f".grid/phases/01-foundation/scratchpad.md: restored from grid commit {good[:10]}"]
    assert "kept" in (repo.path / PAD).read_text("utf-8")


def test_a_secret_typed_by_hand_into_a_grid_file_is_redacted_in_the_history(repo: Repo) -> None:
    secrets = json.loads((Path(__file__).parent.parent / "fixtures" / "secrets.json").read_text("utf-8"))["secrets"]
    repo.gridgit("write", "-c", "gotcha", "-t", "x", "--content", "before", agent="executor-001")
    pad = repo.path / PAD
    typed = "".join(f"\nnote {n}: {s['text']}\n" for n, s in enumerate(secrets))
    pad.write_text(pad.read_text("utf-8").replace("before", "before" + typed), "utf-8")
    out = repo.gridgit("snapshot").stdout
    assert "redacted in the snapshot" in out
    history = repo.git("log", "-p", "grid")
    leaked = [s["name"] for s in secrets if s["secret"] in history]
    assert leaked == []
    assert "note 0:" in repo.git("show", "grid:phases/01-foundation/scratchpad.md")  # the rest of the edit is kept
    assert typed in pad.read_text("utf-8")  # the file on disk is the user's to fix
    assert any(e["type"] == "secret_redacted" for e in repo.events())
    doctor = json.loads(repo.gridgit("doctor", "--json", check=False).stdout)["data"]
    assert next(f for f in doctor["findings"] if f["check"] == "secrets")["details"]
    # A file whose redaction would break it stays out of the history until the secret is gone.
    # (A key named like a secret: its value "[REDACTED]" would be no agent type.)
    kept = repo.git("show", "grid:config.json")
    (repo.grid / "config.json").write_text('{"agents": {"custom_types": {"api_key": "scout"}}}\n', "utf-8")
    damage = repo.gridgit_json("snapshot")["damage"]
    assert [d["kind"] for d in damage if d["path"] == "config.json"] == ["secret"]
    assert repo.git("show", "grid:config.json") == kept


def test_restore_merges_back_into_a_scratchpad_whose_index_is_only_stale(repo: Repo) -> None:
    for n in range(3):
        repo.gridgit("write", "-c", "gotcha", "-t", f"g{n}", "--content", f"g-{n}", agent="executor-001")
    repo.gridgit("snapshot")
    path = repo.path / PAD
    text = path.read_text("utf-8")
    hand = text[: text.index("### [2] ")] + text[text.index("### [3] ") :]  # no reindex: the index is stale
    path.write_text(hand.replace("g-2", "g-2, edited by hand"), "utf-8")
    done = repo.gridgit_json("restore", "phases/01-foundation/scratchpad.md")
    assert [r["how"] for r in done] == ["merged"]
    assert sorted(e.content for e in entries(repo)) == ["g-0", "g-1", "g-2, edited by hand"]  # the edit stays
    assert repo.gridgit("validate").returncode == 0
