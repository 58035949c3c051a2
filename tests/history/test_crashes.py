"""Finding 4 of issue 39: nothing a kill leaves behind wedges a clone.

On the landed main a SIGKILL of the post-commit snapshot or of `sync` could leave
`.git/gridgit/merge-index.lock`; from then on no snapshot and no sync succeeded ("remove the file
manually to continue", naming no file), doctor said "all good", and the clones diverged. Now
every temporary index is the process's own, what a dead process left is cleared, git's lock of a
gridgit ref left by a killed git is removed, every lock message names its file, and doctor
names what is left with a fix that works. The kill loop here is a bounded drill; the 200-round
one is `benchmarks/faults.py`.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.conftest import Repo
from tests.history.test_sync import entries, origin_with_clones, shared


def killed(repo: Repo, args: list[str], after: float, env: dict[str, str] | None = None) -> None:
    """Run ARGS in REPO in a session of its own and SIGKILL the whole session (git children too) AFTER seconds."""
    proc = subprocess.Popen(args, cwd=repo.path, start_new_session=True, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, env={**os.environ, **(env or {})})  # fmt: skip
    try:
        proc.wait(after)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


def recorded(repo: Repo) -> dict[str, int]:
    """Commit sha -> how many `commit_recorded` events the clone has for it."""
    counts: dict[str, int] = {}
    for event in repo.events("commit_recorded"):
        counts[event["payload"]["sha"]] = counts.get(event["payload"]["sha"], 0) + 1
    return counts


def test_what_a_killed_run_leaves_is_cleared_named_and_reported(tmp_path: Path) -> None:
    (a,) = origin_with_clones(tmp_path, ["a"])
    state_dir = a.path / ".git" / "gridgit"
    (state_dir / "merge-index.lock").write_text("")  # what main's killed snapshot left, every run's index
    (state_dir / "merge-index.99999999.0.lock").write_text("")  # a dead process's own index lock
    a.gridgit("write", "-c", "gotcha", "-t", "wedge", "--content", "after a kill", agent="executor-001")
    assert a.gridgit_json("snapshot")["created"] is True  # main: "Unable to create .../merge-index.lock"
    a.gridgit("sync")
    assert "after a kill" in a.git("show", "origin/grid:phases/01-foundation/scratchpad.md")
    assert not (state_dir / "merge-index.99999999.0.lock").exists()

    # git's lock of the grid ref: a live one (a second old at most) is named with what to do; one a killed
    # git left (older than any git holds a ref's lock) is removed and the snapshot goes on.
    lock = a.path / ".git" / "refs" / "heads" / "grid.lock"
    lock.write_text("")
    live = time.time() + 3600  # a git that holds it right now, however slow this machine is
    os.utime(lock, (live, live))
    a.gridgit("write", "-c", "gotcha", "-t", "wedge", "--content", "behind a ref lock", agent="executor-002")
    refused = a.gridgit("snapshot", check=False)
    assert refused.returncode == 1 and str(lock) in refused.stderr and "rm " in refused.stderr
    doctor = json.loads(a.gridgit("doctor", "--json", check=False).stdout)["data"]["findings"]
    assert [f for f in doctor if f["check"] == "stale-locks"] == []  # too fresh to call stale
    old = time.time() - 60
    os.utime(lock, (old, old))
    doctor = json.loads(a.gridgit("doctor", "--json", check=False).stdout)["data"]["findings"]
    stale = next(f for f in doctor if f["check"] == "stale-locks")
    assert stale["level"] == "fail" and str(lock) in stale["details"]
    subprocess.run(stale["fix"], shell=True, cwd=a.path, check=True)  # the fix doctor prints works
    doctor = json.loads(a.gridgit("doctor", "--json", check=False).stdout)["data"]["findings"]
    assert not [f for f in doctor if f["check"] == "stale-locks"]
    lock.write_text("")
    os.utime(lock, (old, old))
    assert a.gridgit_json("snapshot")["created"] is True  # and the snapshot clears such a lock itself
    assert not lock.exists() and "behind a ref lock" in a.git("show", "grid:phases/01-foundation/scratchpad.md")


def test_a_kill_loop_of_post_commit_snapshot_and_sync_leaves_no_wedge_and_clones_converge(tmp_path: Path) -> None:
    a, b = origin_with_clones(tmp_path, ["a", "b"])
    rng = random.Random(39)
    gridgit = [sys.executable, "-m", "gridgit"]
    for n in range(12):
        # A topic each: two agents' writes on one topic minutes apart merge into one entry (the merge protocol).
        a.gridgit("write", "-c", "discovery", "-t", f"ka{n}", "--content", f"kill-{n}", agent="executor-001")
        b.gridgit("write", "-c", "discovery", "-t", f"kb{n}", "--content", f"peer-{n}", agent="executor-002")
        a.write(f"src/f{n}.py", f"x = {n}\n")
        a.git("add", "-A")
        a.git("commit", "-q", "-m", f"c{n}", env={"GRIDGIT_SKIP": "1"})
        queue = a.path / ".git" / "gridgit" / "commits"  # what the post-commit shim does before anything can fail
        queue.mkdir(exist_ok=True)
        (queue / a.git("rev-parse", "HEAD").strip()).write_text("executor-001\n")
        killed(a, [*gridgit, "hook", "post-commit"], rng.uniform(0.05, 1.5))  # its recording and snapshot, killed
        killed(a, [*gridgit, rng.choice(["sync", "snapshot"])], rng.uniform(0.05, 1.2))
        killed(b, [*gridgit, "sync"], rng.uniform(0.05, 1.2))
    for clone in (a, b, a, b):
        clone.gridgit("sync")  # nothing wedged: each one succeeds
    assert shared(a) == shared(b)
    contents = [e.content for e in entries(a)]
    wanted = {f"kill-{n}" for n in range(12)} | {f"peer-{n}" for n in range(12)}
    assert wanted <= set(contents) and len(contents) == len(set(contents))  # 0 lost, 0 doubled
    made = a.git("rev-list", "HEAD").split()
    counts = recorded(a)
    assert {sha: counts.get(sha, 0) for sha in made} == dict.fromkeys(made, 1)  # each commit recorded once
    assert not [p.name for p in (a.path / ".git" / "gridgit").iterdir() if p.name.startswith(("merge-index", "blobs"))]
    assert a.gridgit("validate").returncode == 0 and b.gridgit("validate").returncode == 0
