"""Every commit recorded exactly once, and read your writes (issues 24 and 31): the post-commit
shim queues the commit it was fired for, its run in the background or the next gridgit command
records the queue. Real `git commit`s, hooks in the background as users get them."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from tests.conftest import Repo, git, wait_for


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("GRID_AGENT_ID", "GRIDGIT_HOOK_SYNC")}
    return {**env, **extra}


LOOP = """
set -e
i=0
while [ $i -lt "$2" ]; do
    echo "$i" > "src/$1$i.py"
    git add "src/$1$i.py"
    if [ $((i % 2)) -eq 0 ]; then echo "$i" >> "src/$1-shared.txt"; git add "src/$1-shared.txt"; fi
    git commit -q -m "$1 $i"
    i=$((i + 1))
done
"""


def _cite(repo: Repo, topic: str, path: str) -> None:
    repo.gridgit("write", "-c", "discovery", "-t", topic, "--content", f"Found: x\n\nEvidence:\n- File: {path}",
                 agent="executor-001")  # fmt: skip


def test_commits_in_a_tight_loop_from_two_worktrees_are_each_recorded_and_counted_once(
    repo: Repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo.git("add", "-A")
    repo.git("commit", "-q", "-m", "ignore the blackboard")
    linked = tmp_path / "linked"
    repo.git("worktree", "add", "-q", str(linked), "-b", "side")
    for where in (repo.path, linked):
        (where / "src").mkdir()
    cited = {f"src/m{n}.py" for n in (0, 7, 99)} | {f"src/w{n}.py" for n in (0, 25, 99)}
    for n, path in enumerate(sorted(cited)):
        _cite(repo, f"t{n}", path)
    before = repo.gridgit_json("state", "show", "--field", "progress")
    monkeypatch.delenv("GRIDGIT_HOOK_SYNC")  # post-commit in the background, as users get it
    loops = [
        subprocess.Popen(
            ["sh", "-c", LOOP, "loop", prefix, "100"], cwd=where, env=_env(), stderr=subprocess.PIPE, text=True
        )
        for prefix, where in (("m", repo.path), ("w", linked))
    ]
    for loop in loops:
        assert loop.wait(timeout=900) == 0, loop.stderr.read() if loop.stderr else ""
    made = set(repo.git("rev-list", "main", "side", "^main~100", "^side~100").split())
    assert len(made) == 200
    repo.gridgit("status")  # a command after the commits sees them all recorded (waiting for the last run)
    recorded = [e["payload"]["sha"] for e in repo.events("commit_recorded")]
    assert sorted(s for s in recorded if s in made) == sorted(made)  # each one, once
    assert len(recorded) == len(set(recorded))
    after = repo.gridgit_json("state", "show", "--field", "progress")
    # Exactly git's figures, however the background runs batched the commits: 200 commits, and
    # each one's files (one new file, and every other commit a shared one too) as `git log --stat` counts them.
    assert after["commits"] - before["commits"] == 200
    assert after["files_changed"] - before["files_changed"] == 2 * (100 + 50)
    pad = (repo.grid / "phases" / "01-foundation" / "scratchpad.md").read_text("utf-8")
    for path in cited:
        first = repo.git("log", "--format=%h", "--reverse", "main", "side", "--", path).split()[0]
        assert re.search(rf"- File: {re.escape(path)}\n- Commit: {first}\n", pad), path
    assert not os.listdir(repo.path / ".git" / "gridgit" / "commits")


def test_the_first_commit_after_init_counts_and_a_file_counts_in_each_commit_that_changes_it(
    repo: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert (
        repo.gridgit_json("state", "show", "--field", "resume.last_commit")
        == repo.git("rev-parse", "--short", "HEAD").strip()
    )  # init notes where the session starts
    monkeypatch.delenv("GRIDGIT_HOOK_SYNC")
    for n in range(20):  # 20 single-file commits over 5 files, recorded in whatever batches the hooks make
        repo.write(f"f{n % 5}.txt", f"{n}\n")
        repo.git("add", f"f{n % 5}.txt")
        subprocess.run(["git", "commit", "-q", "-m", f"c{n}"], cwd=repo.path, env=_env(), check=True)
    repo.gridgit("status")  # waits for the last background run
    progress = repo.gridgit_json("state", "show", "--field", "progress")
    assert (progress["commits"], progress["files_changed"]) == (20, 20)


def test_git_commit_then_gridgit_log_shows_the_new_snapshot_every_time(
    repo: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo.git("add", "-A")
    repo.git("commit", "-q", "-m", "ignore the blackboard")
    monkeypatch.delenv("GRIDGIT_HOOK_SYNC")
    for n in range(6):  # the README tour, as a new user runs it
        repo.gridgit("write", "-c", "decision", "-t", f"d{n}", "--content", f"decision {n}", agent="executor-001")
        repo.write(f"f{n}.txt", "x\n")
        repo.git("add", "-A")
        subprocess.run(["git", "commit", "-q", "-m", f"c{n}"], cwd=repo.path, env=_env(), check=True)
        short = repo.git("rev-parse", "--short=7", "HEAD").strip()
        newest = repo.gridgit_json("log", "-n", "1")[0]
        assert short in newest["subject"], (n, newest)
        assert any(f"decision {n}" in c["what"] or c["kind"] == "wrote" for c in newest["changes"]) or n


def test_a_huge_commit_is_recorded_with_a_summary_within_the_event_limit(repo: Repo) -> None:
    repo.git("add", "-A")
    repo.git("commit", "-q", "-m", "ignore the blackboard")
    _cite(repo, "big", "bulk/f04321.txt")
    (repo.path / "bulk").mkdir()
    for n in range(5000):
        (repo.path / "bulk" / f"f{n:05d}.txt").write_text(f"{n}\n", encoding="utf-8")
    repo.git("add", "bulk")
    proc = subprocess.run(["git", "commit", "-q", "-m", "5,000 files"], cwd=repo.path, env=_env(GRIDGIT_HOOK_SYNC="1"),
                          capture_output=True, text=True)  # fmt: skip
    assert proc.returncode == 0 and "failed" not in proc.stderr, proc.stderr
    sha = repo.git("rev-parse", "HEAD").strip()
    line = next(x for x in (repo.grid / "events" / "current.jsonl").read_text("utf-8").splitlines()
                if '"commit_recorded"' in x and sha in x)  # fmt: skip
    payload = json.loads(line)["payload"]
    assert payload["files_total"] == 5000 and payload["files_truncated"] is True
    assert 0 < len(payload["files"]) < 5000 and len(line.encode()) < 64 * 1024
    assert f"- Commit: {sha[:7]}" in (repo.grid / "phases/01-foundation/scratchpad.md").read_text("utf-8")
    assert sha[:7] in repo.git("log", "-1", "--format=%s", "grid")  # snapshotted


def test_a_commit_followed_at_once_by_worktree_remove_is_still_recorded(
    repo: Repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo.git("add", "-A")
    repo.git("commit", "-q", "-m", "ignore the blackboard")
    monkeypatch.delenv("GRIDGIT_HOOK_SYNC")
    made = []
    for n in range(5):
        where = tmp_path / f"wt{n}"
        repo.git("worktree", "add", "-q", str(where), "-b", f"agent{n}")
        (where / "w.txt").write_text(f"{n}\n", encoding="utf-8")
        git(where, "add", "w.txt")
        subprocess.run(["git", "commit", "-q", "-m", f"wt {n}"], cwd=where, env=_env(), check=True)
        made.append(git(where, "rev-parse", "HEAD").strip())
        repo.git("worktree", "remove", "--force", str(where))
    repo.gridgit("status")
    recorded = [e["payload"]["sha"] for e in repo.events("commit_recorded")]
    assert [s for s in made if recorded.count(s) != 1] == []


def test_a_gone_interpreter_and_a_failed_recording_are_visible_and_retried(
    repo: Repo, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo.git("add", "-A")
    repo.git("commit", "-q", "-m", "ignore the blackboard")
    folder = Path(repo.git("rev-parse", "--git-path", "hooks").strip())
    for hook in (
        (folder if folder.is_absolute() else repo.path / folder) / name for name in ("pre-commit", "post-commit")
    ):
        text = hook.read_text("utf-8")  # the venv gridgit was installed from, deleted
        hook.write_text(
            re.sub(r"^INSTALL_PYTHON=.*$", "INSTALL_PYTHON=/gone/venv/bin/python", text, flags=re.M), "utf-8"
        )
    monkeypatch.delenv("GRIDGIT_HOOK_SYNC")
    repo.write("a.txt", "a\n")
    repo.git("add", "a.txt")
    env = _env(PATH=f"{Path('/nonexistent')}{os.pathsep}/usr/bin:/bin")  # a python3 without gridgit, if any
    proc = subprocess.run(["git", "commit", "-q", "-m", "venv gone"], cwd=repo.path, env=env, capture_output=True,
                          text=True)  # fmt: skip
    assert proc.returncode == 0
    assert "/gone/venv/bin/python is gone" in proc.stderr  # said at once, by the hook git runs in the foreground
    sha = repo.git("rev-parse", "HEAD").strip()
    log = repo.path / ".git" / "gridgit" / "post-commit.log"
    wait_for(lambda: "not importable" in (log.read_text("utf-8") if log.exists() else ""))  # the background run
    doctor = json.loads(repo.gridgit("doctor", "--json", check=False).stdout)["data"]
    queued = next(f for f in doctor["findings"] if f["check"] == "post-commit")
    assert queued["message"] == "1 commit(s) not recorded yet" and "not importable" in " ".join(queued["details"])
    repo.gridgit("status")  # the next gridgit command records what the hook could not
    assert sha in [e["payload"]["sha"] for e in repo.events("commit_recorded")]

    # A recording that fails (a scratchpad broken by hand, citing the committed file): visible, retried.
    repo.gridgit("hooks", "install")
    monkeypatch.setenv("GRIDGIT_HOOK_SYNC", "1")
    _cite(repo, "b", "b.txt")
    repo.gridgit("write", "-c", "gotcha", "-t", "c", "--content", "new", "--phase", "02-core", agent="executor-001")
    pad = repo.grid / "phases" / "01-foundation" / "scratchpad.md"
    good = pad.read_text("utf-8")
    pad.write_text(good.replace("phase_id: 01-foundation", "phase_id: [broken"), "utf-8")
    repo.write("b.txt", "b\n")
    repo.git("add", "b.txt")
    proc = subprocess.run(["git", "commit", "-q", "-m", "b"], cwd=repo.path, env=_env(GRIDGIT_HOOK_SYNC="1"),
                          capture_output=True, text=True)  # fmt: skip
    assert proc.returncode == 0 and "failed" in proc.stderr  # the commit goes through; the failure is said
    b_sha = repo.git("rev-parse", "HEAD").strip()
    assert b_sha[:7] in repo.git("log", "-1", "--format=%s", "grid")  # the snapshot (of 02) did not depend on it
    status = repo.gridgit_json("status")["history"]
    assert status["queued"] == 1 and status["recording"]
    doctor = json.loads(repo.gridgit("doctor", "--json", check=False).stdout)["data"]
    finding = next(f for f in doctor["findings"] if f["check"] == "post-commit")
    assert finding["level"] == "fail" and finding["fix"] == "gridgit hook post-commit"
    pad.write_text(good, "utf-8")
    repo.gridgit("status")  # retried by the next command
    assert b_sha in [e["payload"]["sha"] for e in repo.events("commit_recorded")]
    assert "- Commit: " + b_sha[:7] in pad.read_text("utf-8")
    assert repo.gridgit_json("status")["history"] == {"damage": [], "redacted": [], "rejected": [], "recording": [],
                                                      "queued": 0}  # fmt: skip
