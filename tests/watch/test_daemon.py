"""The watcher as a process: start, stop, status, one per repository, stale pids, signals."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import Daemons, Repo, pid_alive, wait_for


def _status(repo: Repo) -> dict[str, object]:
    data: dict[str, object] = repo.gridgit_json("daemon", "status")
    return data


def _start_time(pid: int) -> int:
    stat = Path(f"/proc/{pid}/stat").read_text()
    return int(stat[stat.rfind(")") + 2 :].split()[19])


@pytest.mark.parametrize(
    "command",
    [("watch",), ("daemon",), ("daemon", "start"), ("daemon", "stop"), ("daemon", "status"), ("daemon", "logs")],
)
def test_help(repo: Repo, command: tuple[str, ...]) -> None:
    result = repo.gridgit(*command, "--help")
    assert result.stdout.startswith("Usage: gridgit")
    assert "--daemon-child" not in result.stdout


def test_start_status_stop(daemons: Daemons) -> None:
    repo = daemons.repo
    assert _status(repo)["state"] == "stopped"
    started = daemons.start()
    assert started["action"] == "started" and started["state"] == "running"
    assert pid_alive(started["pid"])
    status = _status(repo)
    assert status["pid"] == started["pid"] and status["mode"] == "background"
    assert status["observer"] == "native" and isinstance(status["watches"], int) and status["watches"] >= 3
    assert status["since"] == status["started_at"] and status["started_at"]
    pid_file = repo.grid / ".daemon" / "daemon.pid"
    assert pid_file.read_text().split() == [str(started["pid"]), str(_start_time(started["pid"]))]
    human = repo.gridgit("daemon", "status").stdout
    assert human.startswith(f"running (pid {started['pid']}")

    stopped = repo.gridgit_json("daemon", "stop")
    assert stopped["action"] == "stopped" and stopped["state"] == "stopped"
    assert not pid_alive(started["pid"])
    assert not pid_file.exists()
    assert (repo.grid / ".daemon" / "daemon.lock").exists()  # the lock file is never deleted
    assert repo.gridgit("daemon", "status").stdout.startswith("stopped since ")
    assert repo.gridgit("daemon", "stop").stdout.strip() == "daemon was not running"
    assert "watcher stopped" in "\n".join(repo.gridgit_json("daemon", "logs")["lines"])
    # .grid/.daemon/ is machine-local: git never sees it
    assert ".daemon" not in repo.git("status", "--porcelain", "--untracked-files=all")


def test_double_start_starts_one(daemons: Daemons) -> None:
    repo = daemons.repo
    first = daemons.start()
    second = daemons.start()
    assert second["action"] == "already-running" and second["pid"] == first["pid"]
    assert "already running" in repo.gridgit("daemon", "start").stdout


def test_concurrent_starts_leave_one_daemon(daemons: Daemons) -> None:
    repo = daemons.repo
    env = {k: v for k, v in os.environ.items() if k != "GRID_AGENT_ID"}
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "gridgit", "daemon", "start", "--json"],
            cwd=repo.path,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        for _ in range(3)
    ]
    results = [p.communicate(timeout=60) for p in procs]
    pids = {json.loads(out)["data"]["pid"] for out, _ in results}
    daemons.pids.extend(pids)
    assert len(pids) == 1, results

    def children() -> list[int]:
        return [
            int(p)
            for p in os.listdir("/proc")
            if p.isdigit() and b"--daemon-child" in _cmdline(int(p)) and _cwd(int(p)) == repo.path
        ]

    # A loser that got as far as spawning a child finds the watcher's lock taken and exits on its
    # own (saying so in daemon.out); whether any got that far is the scheduler's choice.
    wait_for(lambda: children() == list(pids))


def _cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def _cwd(pid: int) -> Path | None:
    try:
        return Path(os.readlink(f"/proc/{pid}/cwd"))
    except OSError:
        return None


def test_stale_pid_of_dead_process_is_cleaned_by_start(daemons: Daemons) -> None:
    repo = daemons.repo
    gone = subprocess.Popen(["true"])
    gone.wait()
    folder = repo.grid / ".daemon"
    folder.mkdir(exist_ok=True)
    (folder / "daemon.pid").write_text(f"{gone.pid}\n12345\n")
    status = _status(repo)
    assert status["state"] == "stale-pid" and status["pid"] == gone.pid
    assert "stale-pid" in repo.gridgit("daemon", "status").stdout
    started = daemons.start()
    assert started["action"] == "started" and started["pid"] != gone.pid
    assert f"removed the stale pid file of pid {gone.pid}" in "\n".join(repo.gridgit_json("daemon", "logs")["lines"])


def test_recycled_pid_is_never_signalled(repo: Repo) -> None:
    """A pid file naming a live, unrelated process (a recycled pid) is stale: stop never kills it."""
    stranger = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        folder = repo.grid / ".daemon"
        folder.mkdir(exist_ok=True)
        (folder / "daemon.pid").write_text(f"{stranger.pid}\n{_start_time(stranger.pid) + 1}\n")
        assert _status(repo)["state"] == "stale-pid"
        result = repo.gridgit_json("daemon", "stop")
        assert result["action"] == "cleaned"
        assert stranger.poll() is None and pid_alive(stranger.pid)
        assert not (folder / "daemon.pid").exists()
    finally:
        stranger.kill()
        stranger.wait()


def test_pid_file_without_start_time_is_not_trusted(repo: Repo) -> None:
    stranger = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        folder = repo.grid / ".daemon"
        folder.mkdir(exist_ok=True)
        (folder / "daemon.pid").write_text(f"{stranger.pid}\n")
        assert _status(repo)["state"] == "stale-pid"
        repo.gridgit("daemon", "stop")
        assert stranger.poll() is None
    finally:
        stranger.kill()
        stranger.wait()


def test_sigterm_stops_cleanly_and_leaves_no_pid_file(daemons: Daemons) -> None:
    repo = daemons.repo
    pid = daemons.start()["pid"]
    os.kill(pid, signal.SIGTERM)
    wait_for(lambda: not pid_alive(pid))
    assert not (repo.grid / ".daemon" / "daemon.pid").exists()
    assert _status(repo)["state"] == "stopped"
    log = "\n".join(repo.gridgit_json("daemon", "logs")["lines"])
    assert "received SIGTERM" in log and "watcher stopped" in log


def test_sigkill_then_start_cleans_up(daemons: Daemons) -> None:
    repo = daemons.repo
    pid = daemons.start()["pid"]
    os.kill(pid, signal.SIGKILL)
    wait_for(lambda: not pid_alive(pid))
    assert _status(repo)["state"] == "stale-pid"
    again = daemons.start()
    assert again["action"] == "started" and again["pid"] != pid
    assert _status(repo)["state"] == "running"


def test_foreground_watch_stops_on_ctrl_c_and_refuses_a_second_watcher(daemons: Daemons) -> None:
    repo = daemons.repo
    proc = subprocess.Popen(
        [sys.executable, "-m", "gridgit", "watch"], cwd=repo.path, stderr=subprocess.PIPE, text=True
    )
    daemons.pids.append(proc.pid)
    try:
        wait_for(lambda: _status(repo)["state"] == "running")
        assert _status(repo)["mode"] == "foreground"
        second = repo.gridgit("daemon", "start", check=False)
        assert second.returncode == 0 and "already running" in second.stdout
        other = repo.gridgit("watch", check=False)
        assert other.returncode == 1
        assert other.stderr.startswith("gridgit: error: a watcher already runs") and other.stderr.count("\n") == 1
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=15)
        assert proc.returncode == 0, err
        assert "received SIGINT" in err and "watcher stopped" in err
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert not (repo.grid / ".daemon" / "daemon.pid").exists()


def test_daemon_needs_an_initialised_blackboard(bare_repo: Repo) -> None:
    result = bare_repo.gridgit("daemon", "start", check=False)
    assert result.returncode == 3
    assert result.stderr.startswith("gridgit: error: no Blackboard") and result.stderr.count("\n") == 1
    assert not (bare_repo.path / ".grid").exists()
    assert bare_repo.gridgit("daemon", "status").stdout.startswith("stopped")


def test_python_api(daemons: Daemons) -> None:
    from gridgit import Blackboard

    board = Blackboard(daemons.repo.path)
    started = board.daemon_start()
    daemons.pids.append(started.pid)
    assert started.action == "started" and board.daemon_status().state == "running"
    stopped = board.daemon_stop()
    assert stopped.action == "stopped" and not pid_alive(started.pid)
    assert board.daemon_status().state == "stopped"


def test_the_daemon_snapshots_on_its_timer(daemons: Daemons) -> None:
    repo = daemons.repo
    config = repo.grid / "config.json"
    data = json.loads(config.read_text())
    data["sync"]["snapshot_seconds"] = 1
    config.write_text(json.dumps(data))
    daemons.start()
    repo.gridgit("write", "-c", "decision", "-t", "db", "--content", "timer-made", agent="executor-001")

    def snapshotted() -> bool:
        shown = repo.git("show", "grid:phases/01-foundation/scratchpad.md", check=False)
        return "timer-made" in shown

    wait_for(snapshotted, timeout=30)
    assert "daemon timer" in repo.git("log", "-1", "--format=%s", "grid")


def test_process_identity_without_proc(tmp_path: Path) -> None:
    """Where there is no /proc (macOS, the BSDs) the start time comes from `ps`: live, zombie, gone."""
    import time

    from gridgit.watch.instance import is_alive, start_time

    no_proc = tmp_path / "no-proc"
    before = int(time.time())
    child = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE)
    started = start_time(child.pid, proc=no_proc)
    assert started is not None and before - 2 <= started <= time.time() + 1
    assert start_time(child.pid, proc=no_proc) == started
    assert child.stdin is not None
    child.stdin.close()
    wait_for(lambda: start_time(child.pid, proc=no_proc) is None)  # exited: a zombie until waited for
    child.wait()
    assert start_time(child.pid, proc=no_proc) is None
    assert not is_alive(child.pid, started)
