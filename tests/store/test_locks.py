"""Sidecar locks (`store.locks`): real processes, a killed holder, shared holders and an exclusive waiter."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gridgit.errors import BadInput, GridError, LockTimeout
from gridgit.store import locks
from tests.conftest import Repo, lock_holder

# Each worker adds 1 to the counter N times under the lock, reading and rewriting it: a lost
# update shows as a total below workers * N.
_COUNTER = """
import sys
from pathlib import Path
from gridgit.store.locks import locked
path = Path(sys.argv[1])
for _ in range(int(sys.argv[2])):
    with locked(path, timeout=60):
        path.write_text(str(int(path.read_text()) + 1))
"""

# Takes the lock (shared or not) and prints when it got it, then holds it for a moment.
_TAKER = """
import sys, time
from pathlib import Path
from gridgit.store.locks import locked
with locked(Path(sys.argv[1]), shared=sys.argv[2] == "shared", timeout=float(sys.argv[3])):
    print(time.time(), flush=True)
    time.sleep(float(sys.argv[4]))
"""


def _taker(path: Path, mode: str, timeout: float = 30, hold: float = 0) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", _TAKER, str(path), mode, str(timeout), str(hold)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _got_at(proc: subprocess.Popen[str]) -> float:
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    return float(out)


def test_sidecar_and_gate_names(tmp_path: Path) -> None:
    assert locks.lock_path(tmp_path / "STATE.md") == tmp_path / ".state.lock"
    assert locks.gate_path(tmp_path / ".state.lock") == tmp_path / ".state.gate.lock"


def test_a_blackboards_locks_are_in_its_locks_folder(repo: Repo) -> None:
    """One folder out of sight, none beside the data: a phase folder or events/ may be a symlink."""
    grid = repo.grid
    named = {
        grid / "STATE.md": "state.lock",
        grid / "phases": "phases.lock",
        grid / "phases" / "01-foundation" / "scratchpad.md": "phases.01-foundation.scratchpad.lock",
        grid / "events" / "current.jsonl": "events.current.lock",
        grid / "events" / "cursors" / "inbox" / "executor-001": "events.cursors.inbox.executor-001.lock",
    }
    assert {p: locks.lock_path(p) for p in named} == {p: grid / ".locks" / name for p, name in named.items()}
    repo.gridgit("write", "-c", "discovery", "-t", "auth", "--content", "x", agent="executor-001")
    repo.gridgit("inbox", agent="executor-001")
    assert [p for p in grid.rglob("*.lock") if p.parent != grid / ".locks"] == []
    (grid / "STATE.md").unlink()  # while STATE.md is being restored, its lock is the same file
    assert locks.lock_path(grid / "STATE.md") == grid / ".locks" / "state.lock"


def test_no_lock_file_is_created_through_a_symlinked_locks_folder(repo: Repo, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    shutil.rmtree(repo.grid / ".locks")
    (repo.grid / ".locks").symlink_to(outside, target_is_directory=True)
    proc = repo.gridgit("write", "-c", "discovery", "-t", "auth", "--content", "x", agent="executor-001", check=False)
    assert proc.returncode == 1 and "is a symlink" in proc.stderr and proc.stderr.count("\n") == 1
    assert list(outside.iterdir()) == []


def test_writers_in_many_processes_lose_no_update(tmp_path: Path) -> None:
    counter = tmp_path / "counter"
    counter.write_text("0")
    procs = [subprocess.Popen([sys.executable, "-c", _COUNTER, str(counter), "50"]) for _ in range(6)]
    assert [p.wait(120) for p in procs] == [0] * 6
    assert counter.read_text() == "300"


def test_a_lock_held_past_the_timeout_is_a_clear_error(tmp_path: Path) -> None:
    with (
        lock_holder(tmp_path / "STATE.md"),
        pytest.raises(LockTimeout, match=r"STATE\.md: lock \S*/\.state\.lock still held after 0\.2s"),
        locks.locked(tmp_path / "STATE.md", timeout=0.2),
    ):
        pass


def test_a_waiter_that_gave_up_does_not_keep_the_lock(tmp_path: Path) -> None:
    """The helper thread of a timed-out wait drops the lock when it finally gets it."""
    target = tmp_path / "STATE.md"
    with lock_holder(target), pytest.raises(LockTimeout), locks.locked(target, timeout=0.1):
        pass
    # The holder is gone; this process's abandoned waiter must not be holding the lock now.
    time.sleep(0.1)
    assert _got_at(_taker(target, "exclusive", timeout=5))
    with locks.locked(target, timeout=5):
        pass


def test_a_killed_holder_releases_the_lock(tmp_path: Path) -> None:
    target = tmp_path / "STATE.md"
    with lock_holder(target) as holder:
        waiter = _taker(target, "exclusive", timeout=30)
        time.sleep(0.3)
        assert waiter.poll() is None  # still waiting
        killed_at = time.time()
        os.kill(holder.pid, signal.SIGKILL)
        assert _got_at(waiter) >= killed_at


def test_shared_holders_together_and_an_exclusive_waiter_first(tmp_path: Path) -> None:
    """Shared holders overlap; an exclusive waiter gets in after them, before later shared takers."""
    target = tmp_path / "board"
    with lock_holder(target, shared=True), locks.locked(target, shared=True, timeout=5):
        # Two shared holders at once (another process and this one); an exclusive taker waits for both.
        writer = _taker(target, "exclusive", timeout=30, hold=0.5)
        time.sleep(0.3)
        assert writer.poll() is None
        late_reader = _taker(target, "shared", timeout=30)
        time.sleep(0.3)
        assert late_reader.poll() is None  # held back by the waiting writer, though the lock is shared now
        # This process takes its shared lock again without the gate the writer holds (no self-deadlock).
        with locks.locked(target, shared=True, timeout=1):
            pass
        released = time.time()
    written = _got_at(writer)
    assert written >= released
    assert _got_at(late_reader) >= written + 0.4


@pytest.mark.parametrize("value", ["soon", "-1", "inf"])
def test_a_bad_timeout_setting_is_bad_input(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("GRIDGIT_LOCK_TIMEOUT", value)
    with pytest.raises(BadInput, match="GRIDGIT_LOCK_TIMEOUT"):
        locks.default_timeout()


def test_a_symlinked_lock_file_is_refused(tmp_path: Path) -> None:
    (tmp_path / ".state.lock").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(BadInput, match="symlink"), locks.locked(tmp_path / "STATE.md", timeout=1):
        pass
    assert not (tmp_path / "elsewhere").exists()


def test_nested_takes_inside_an_exclusive_hold_pass(tmp_path: Path) -> None:
    """A snapshot holding the Blackboard lock exclusive may write files that take it shared."""
    board = tmp_path / "board"
    with locks.locked(board, timeout=1), locks.locked(board, shared=True, timeout=1), locks.locked(board, timeout=1):
        assert _taker(board, "shared", timeout=0.2).wait(30) == 1  # still held against other processes
    with (
        locks.locked(board, shared=True, timeout=1),
        pytest.raises(GridError, match="exclusive while"),
        locks.locked(board, timeout=1),
    ):
        pass
    with locks.locked(board, timeout=1):  # every hold above was released
        pass
