"""Auto-sync (`sync.auto`) between real clones of a bare origin: watcher daemons on their timers, push_soon
after a message, agent hooks without a daemon, and remotes that are down, slow or refuse pushes."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

from gridgit.history import autosync
from gridgit.store.layout import Layout
from gridgit.watch.instance import flock_held
from tests.agents.helpers import command, payload, run
from tests.conftest import Repo, pid_alive, wait_for
from tests.history.test_sync import origin_with_clones


def enable(repo: Repo, seconds: float = 1, ceiling: float = 4) -> None:
    """sync.auto on, on a short timer (the default is 10 s; these tests prove what happens, not how soon)."""
    path = repo.grid / "config.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data["sync"].update(auto=True, auto_seconds=seconds, auto_max_seconds=ceiling)
    path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")


def status(repo: Repo) -> dict[str, object]:
    """REPO's last auto-sync run ({} before the first)."""
    path = repo.grid / ".daemon" / autosync.STATUS
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


def settled(repo: Repo) -> bool:
    """No auto-sync run in flight in REPO (its lock is free)."""
    return not flock_held(repo.grid / ".daemon" / autosync.LOCK)


@contextlib.contextmanager
def daemons_in(*repos: Repo) -> Iterator[list[int]]:
    """A watcher daemon in each of REPOS; all stopped (and proven gone), runs in flight finished, at the end."""
    pids: list[int] = []
    try:
        for repo in repos:
            started = repo.gridgit_json("daemon", "start")
            assert started["state"] == "running"
            pids.append(int(started["pid"]))
        yield pids
    finally:
        for repo in repos:
            repo.gridgit("daemon", "stop", check=False)
        leaked = [pid for pid in pids if pid_alive(pid)]
        for pid in leaked:
            os.kill(pid, signal.SIGKILL)
        for repo in repos:
            wait_for(lambda repo=repo: settled(repo), timeout=150)  # type: ignore[misc]
        assert not leaked, f"daemons outlived the test: {leaked}"


def inbox(repo: Repo, agent: str) -> list[dict[str, object]]:
    data: list[dict[str, object]] = repo.gridgit_json("inbox", "--peek", agent=agent)
    return data


def acks(repo: Repo, message_id: str) -> dict[str, str]:
    found = list((repo.grid / "messages").glob(f"*/{message_id}.md"))
    if not found:
        return {}
    thread = repo.gridgit_json("thread", message_id)
    return dict(next(m for m in thread if m["id"] == message_id)["acks"])


def test_two_agents_in_two_clones_talk_through_the_origin_with_daemons_and_no_manual_sync(tmp_path: Path) -> None:
    alice, bob = origin_with_clones(tmp_path, ["alice", "bob"])
    for repo in (alice, bob):
        enable(repo)
    with daemons_in(alice, bob):
        sent = alice.gridgit_json(
            "send", "--to", "executor-002", "--content", "Schema frozen: rebase", agent="executor-001"
        )

        def delivered() -> bool:
            return any(sent["id"] in str(item["summary"]) for item in inbox(bob, "executor-002"))

        wait_for(delivered, timeout=60)
        acked = bob.gridgit_json("ack", sent["id"], agent="executor-002")
        answer = bob.gridgit_json(
            "send", "--to", "executor-001", "--thread", sent["id"], "--content", "Rebased", agent="executor-002"
        )
        wait_for(lambda: "executor-002" in acks(alice, sent["id"]), timeout=60)
        assert acks(alice, sent["id"])["executor-002"] == acked["acks"]["executor-002"]
        wait_for(lambda: any(answer["id"] in str(i["summary"]) for i in inbox(alice, "executor-001")), timeout=60)

        # Written in one clone, merged into the other by the daemons alone (no push_soon for an entry).
        alice.gridgit("write", "-c", "decision", "-t", "db", "--content", "Decision: Postgres", agent="executor-001")
        wait_for(lambda: "Decision: Postgres" in bob.gridgit("read", "--topic", "db").stdout, timeout=60)
        wait_for(lambda: alice.git("rev-parse", "grid") == bob.git("rev-parse", "grid"), timeout=60)  # converged
    assert status(alice)["ok"] is True and status(bob)["ok"] is True
    assert [e for e in alice.events() + bob.events() if e["type"] == "validation_failed"] == []


def _script(path: Path, body: str) -> str:
    path.write_text(f"#!/bin/sh\n{body}\n", encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return str(path)


def test_a_remote_down_refusing_or_slow_loses_nothing_and_never_holds_up_the_daemon(tmp_path: Path) -> None:
    alice, bob = origin_with_clones(tmp_path, ["alice", "bob"])
    origin = tmp_path / "origin.git"
    enable(alice)
    with daemons_in(alice):
        wait_for(lambda: settled(alice) and status(alice).get("ok") is True, timeout=60)

        # Down: the message waits in .grid/ and on the local grid ref; the daemon backs off and retries.
        origin.rename(tmp_path / "away.git")
        down = alice.gridgit_json("send", "--to", "executor-002", "--content", "while down", agent="executor-001")
        wait_for(lambda: int(status(alice).get("failures") or 0) >= 2, timeout=60)
        assert "which does not exist" in str(status(alice)["error"])
        assert (
            alice.gridgit("daemon", "logs").stdout.count("auto-sync failed: remote origin") == 1
        )  # once, not per retry
        (tmp_path / "away.git").rename(origin)

        # Refusing pushes: a pre-receive hook says no; the daemon keeps trying, nothing is lost.
        hook = origin / "hooks" / "pre-receive"
        _script(hook, "echo 'frozen for the release' >&2; exit 1")
        refused = alice.gridgit_json("send", "--to", "executor-002", "--content", "while refused", agent="executor-001")
        wait_for(lambda: "rejected" in str(status(alice).get("error") or "") or "lost the race" in str(
            status(alice).get("error") or ""), timeout=60)  # fmt: skip
        hook.unlink()
        wait_for(lambda: status(alice).get("ok") is True and settled(alice), timeout=60)

        # Slow: every fetch waits 6 s; meanwhile the daemon still reports a work-tree edit at once.
        slow = _script(tmp_path / "slow-upload-pack", 'sleep 6; exec git-upload-pack "$@"')
        alice.git("config", "remote.origin.uploadpack", slow)
        alice.gridgit("send", "--to", "executor-002", "--content", "while slow", agent="executor-001")
        wait_for(lambda: not settled(alice), timeout=30)
        alice.write("README.md", "# shop, edited while the remote is slow\n")
        wait_for(lambda: any(e["payload"].get("path") == "README.md" for e in alice.events("file_modified")), 20)
        assert not settled(alice)  # the edit was reported while the slow sync was still running
        wait_for(lambda: settled(alice) and status(alice).get("ok") is True, timeout=60)
        alice.git("config", "--unset", "remote.origin.uploadpack")
    bob.gridgit("sync")
    waiting = [str(i["summary"]) for i in inbox(bob, "executor-002")]
    for message in (down, refused):
        assert any(message["id"] in line for line in waiting)
    assert any("while slow" in line for line in waiting)


def test_without_a_daemon_the_hooks_and_push_soon_sync_in_the_background(tmp_path: Path) -> None:
    alice, bob = origin_with_clones(tmp_path, ["alice", "bob"])
    for repo in (alice, bob):
        enable(repo, seconds=1)
    sent = alice.gridgit_json("send", "--to", "executor-002", "--content", "no daemons here", agent="executor-001")
    wait_for(lambda: settled(alice) and status(alice).get("ok") is True, timeout=60)  # push_soon's own run
    assert sent["id"] in alice.git("ls-tree", "-r", "--name-only", "origin/grid")
    # A shared claim and a release (no compare-and-swap of their own) reach the origin with push_soon's run too.
    alice.gridgit("claim", "lib/**", agent="executor-001")
    wait_for(lambda: '"lib/**"' in alice.git("show", "origin/grid:claims.json", check=False), timeout=60)
    alice.gridgit("release", "lib/**", agent="executor-001")
    wait_for(
        lambda: '"released_by": "executor-001"' in alice.git("show", "origin/grid:claims.json", check=False), timeout=60
    )

    bob.gridgit("setup", "claude")
    slow = _script(tmp_path / "slow-upload-pack", 'sleep 3; exec git-upload-pack "$@"')
    bob.git("config", "remote.origin.uploadpack", slow)
    prompt = payload("claude", "prompt", session="s-bob", cwd=str(bob.path))
    done = run(command(bob.path, "claude", "prompt"), prompt, bob.path, {"GRID_AGENT_ID": "executor-002"})
    assert done.returncode == 0 and done.stderr == ""
    assert "finished_at" not in status(bob)  # the hook returned while its sync (3 s at least) went on
    wait_for(lambda: settled(bob) and status(bob).get("ok") is True, timeout=60)
    assert any(sent["id"] in str(item["summary"]) for item in inbox(bob, "executor-002"))

    # At most one run per sync.auto_seconds: a hook right after that finished starts none.
    (bob.grid / ".daemon" / autosync.STAMP).touch()
    before = status(bob)["started_at"]
    run(command(bob.path, "claude", "prompt"), prompt, bob.path, {"GRID_AGENT_ID": "executor-002"})
    assert settled(bob) and status(bob)["started_at"] == before


def test_a_run_records_the_rounds_a_refused_push_cost(tmp_path: Path) -> None:
    """autosync.json's `attempts` and `pushed` (what benchmarks/clonesim.py counts refused pushes from)."""
    alice, _ = origin_with_clones(tmp_path, ["alice", "bob"])
    enable(alice)
    hook = tmp_path / "origin.git" / "hooks" / "pre-receive"
    _script(hook, f'[ -e "{tmp_path}/refused" ] && exit 0; touch "{tmp_path}/refused"; echo "no, once" >&2; exit 1')
    alice.gridgit(
        "write", "-c", "gotcha", "-t", "rounds", "--content", "pushed on the second round", agent="executor-001"
    )
    subprocess.run([sys.executable, "-m", "gridgit.history.autosync"], cwd=alice.path, check=True, timeout=120)
    assert (status(alice)["ok"], status(alice)["pushed"], status(alice)["attempts"]) == (True, True, 2)
    assert "pushed on the second round" in alice.git("show", "origin/grid:phases/01-foundation/scratchpad.md")
    subprocess.run([sys.executable, "-m", "gridgit.history.autosync"], cwd=alice.path, check=True, timeout=120)
    assert (status(alice)["ok"], status(alice)["pushed"], status(alice)["attempts"]) == (True, False, 1)  # nothing new


def test_a_run_that_lost_every_race_keeps_the_timer_and_a_refusing_remote_still_backs_off(tmp_path: Path) -> None:
    """Issue 35's many-clones run: a run whose push lost 5 races (other clones pushing meanwhile) counted as a
    failure, so the clone with unpushed writes waited 20, 40, 80 s for its next run, as from a dead remote."""
    alice, _ = origin_with_clones(tmp_path, ["alice", "bob"])
    enable(alice)
    origin = tmp_path / "origin.git"
    # Another clone pushes just before each of alice's pushes: the grid ref moves to a new commit every time.
    bump = (f'git -C "{origin}" update-ref refs/heads/grid "$(git -C "{origin}" commit-tree '
            f'"$(git -C "{origin}" rev-parse grid^{{tree}})" -p grid -m bump)"')  # fmt: skip
    alice.git("config", "remote.origin.receivepack", _script(tmp_path / "busy", f'{bump}\nexec git-receive-pack "$@"'))
    alice.gridgit(
        "write", "-c", "gotcha", "-t", "busy", "--content", "written while the origin is busy", agent="executor-001"
    )
    subprocess.run([sys.executable, "-m", "gridgit.history.autosync"], cwd=alice.path, check=True, timeout=120)
    raced = status(alice)
    assert raced["ok"] is False and "lost the race 5 times" in str(raced["error"])
    assert raced["failures"] == 0  # no back-off: the next run comes on the usual timer
    alice.git("config", "--unset", "remote.origin.receivepack")

    # A remote that refuses without moving (a hook, a protected branch) is still a failure, backed off from.
    _script(origin / "hooks" / "pre-receive", "echo 'frozen for the release' >&2; exit 1")
    subprocess.run([sys.executable, "-m", "gridgit.history.autosync"], cwd=alice.path, check=True, timeout=120)
    refused = status(alice)
    assert refused["failures"] == 1 and "rejected 5 times while the remote did not move" in str(refused["error"])


def test_the_interval_backs_off_while_idle_or_failing_and_never_past_the_ceiling() -> None:
    idle = [autosync.next_wait(0, runs, 10, 300) for runs in (0, 5, 6, 11, 12, 18, 30, 60)]
    assert idle == [10, 10, 20, 20, 40, 80, 300, 300]  # doubled per six runs that moved nothing
    assert [autosync.next_wait(n, 0, 10, 300) for n in (1, 2, 3, 5, 40)] == [20, 40, 80, 300, 300]
    assert autosync.next_wait(3, 0, 10, 10) == 10  # a ceiling of the interval itself: no back-off at all


def test_one_watcher_and_one_run_at_a_time_per_clone(tmp_path: Path) -> None:
    (alice,) = origin_with_clones(tmp_path, ["alice"])
    enable(alice, seconds=300, ceiling=300)  # the timer stays out of the way: runs here are asked for
    with daemons_in(alice) as (pid,):
        again = alice.gridgit_json("daemon", "start")
        assert again["action"] == "already-running" and again["pid"] == pid
        second = alice.gridgit("watch", check=False)
        assert second.returncode == 1 and "a watcher already runs" in second.stderr
        wait_for(lambda: "finished_at" in status(alice) and settled(alice), timeout=60)  # the start-up run
        first = status(alice)["started_at"]
        autosync.push_soon(Layout.find(alice.path))  # what a claim, message or resolve calls: SIGUSR1
        wait_for(lambda: status(alice)["started_at"] != first and settled(alice), timeout=60)
        assert pid_alive(pid) and status(alice)["ok"] is True
    runs = [
        subprocess.Popen([sys.executable, "-m", "gridgit.history.autosync"], cwd=alice.path, stderr=subprocess.PIPE)
        for _ in range(3)
    ]
    assert [p.wait(120) for p in runs] == [0, 0, 0]
    assert status(alice)["ok"] is True
