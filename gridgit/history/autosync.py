"""Auto-sync (`sync.auto: true`): the grid ref fetched, merged and pushed without anyone running `gridgit sync`.

One run is `gridgit sync` with the branch's remote (gridgit.history.sync), in a process of its own
(`python -m gridgit.history.autosync`), so a slow or dead remote never holds up a hook, a command
or the watcher. Who starts runs:
- the watcher daemon (`Timer`): every `sync.auto_seconds` (default 10), backing off while
  nothing moves or the remote cannot be reached (up to `sync.auto_max_seconds`), a second
  after a change to a shared `.grid/` file, and at once when `push_soon` asks it (SIGUSR1);
- without a daemon, the agent-tool hooks (`tick`): at most once per `sync.auto_seconds`, by the
  time of a stamp file, a run is started in the background and the hook goes on;
- `push_soon`, after a claim, take, message or resolve: the daemon's run, else one of its own.

One run at a time per clone (a flock); a run asked for while another one runs waits for it,
then goes ahead unless a run that started after it was asked (and so saw its write) covered
it. Nothing is lost on the way: a run that cannot fetch or push leaves the writes in `.grid/`
and on the local grid ref, and a later run pushes them (sync itself retries a lost race).
The files are machine-local, in `.grid/.daemon/`: `autosync.lock`, `autosync.stamp` (its
time: when the hooks may start the next run), `autosync.json` (the last run). docs/sync.md.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sys
import time
from typing import TYPE_CHECKING, Any

from gridgit.store import config, fileio
from gridgit.store.layout import Layout

if TYPE_CHECKING:
    import subprocess

LOCK = "autosync.lock"
STAMP = "autosync.stamp"
STATUS = "autosync.json"
RUN_SECONDS = 120  # a run that takes longer (a hung remote) is stopped; the next one retries
PUSH_DELAY = 1.0  # after a change to a shared .grid/ file: a burst of writes is one run
IDLE_RUNS = 6  # runs that moved nothing before the interval doubles (a minute at 10 s)
WAKE = signal.SIGUSR1  # push_soon's knock on the daemon's door
# Files of .grid/ that never leave this machine (its .gitignore): changing them shares nothing.
_LOCAL_NAMES = ("predictions.json",)


def settings(cfg: dict[str, Any]) -> tuple[bool, float, float]:
    """(on, interval, ceiling) from config.json's `sync` section."""
    sync = cfg.get("sync") or {}
    interval = float(sync.get("auto_seconds") or 10)
    return sync.get("auto") is True, interval, max(interval, float(sync.get("auto_max_seconds") or interval))


def enabled(layout: Layout) -> bool:
    try:
        return settings(config.current(layout))[0]
    except Exception:  # a broken config.json is reported by every command; auto-sync just stays off
        return False


def read_status(layout: Layout) -> dict[str, Any]:
    """The last run: started_at, finished_at (epoch seconds), ok, error, remote, changed, failures, written."""
    try:
        data = json.loads((layout.daemon_dir / STATUS).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _write_status(layout: Layout, data: dict[str, Any]) -> None:
    fileio.atomic_write(layout.daemon_dir / STATUS, json.dumps(data) + "\n", durable=False)


def _stamp(layout: Layout, at: float) -> None:
    """The hooks' next run may start once AT is `sync.auto_seconds` ago (AT may lie ahead: a back-off)."""
    path = layout.daemon_dir / STAMP
    with contextlib.suppress(OSError):
        path.touch()
        os.utime(path, (at, at))


# ---- starting a run ---------------------------------------------------------------------------


def spawn(layout: Layout) -> subprocess.Popen[bytes]:
    """Start one run in the background, detached (no terminal, no pipes a hook's caller waits on)."""
    import subprocess  # here: a hook that starts no run does not pay for it

    from gridgit.store import gitcmd

    layout.daemon_dir.mkdir(parents=True, exist_ok=True)
    return subprocess.Popen(
        [sys.executable, "-m", "gridgit.history.autosync", repr(time.time())],
        cwd=layout.root,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
        env=gitcmd.clean_env(),
    )


def _daemon_pid(layout: Layout) -> int | None:
    """The watcher daemon's pid when one runs for this clone and takes push_soon's signal."""
    from gridgit.watch import instance

    folder = layout.daemon_dir
    pid, started = instance.read_pid(folder)
    if pid is None or not instance.is_alive(pid, started) or not instance.read_status(folder).get("autosync"):
        return None
    return pid


def push_soon(layout: Layout) -> None:
    """Get a write that others must hear of (a claim, take, message, resolve) to the remote now.

    With `sync.auto` off: nothing. With a daemon: it is woken (SIGUSR1) and runs a sync at once;
    without one, a run starts in the background. Never blocks and never fails the caller.
    """
    if not enabled(layout):
        return
    try:
        pid = _daemon_pid(layout)
        if pid is not None:
            os.kill(pid, WAKE)
        else:
            spawn(layout)
    except OSError:  # the daemon just went, or no process could be started: the next tick or timer syncs
        return


def tick(layout: Layout, cfg: dict[str, Any]) -> None:
    """An agent hook's share of auto-sync: with no daemon, a background run at most every `sync.auto_seconds`."""
    on, interval, _ = settings(cfg)
    if not on:
        return
    try:
        if time.time() - os.stat(layout.daemon_dir / STAMP).st_mtime < interval:
            return
    except FileNotFoundError:
        pass
    from gridgit.watch import instance

    _stamp(layout, time.time())
    if not instance.lock_held(layout.daemon_dir):  # a daemon keeps its own timer
        with contextlib.suppress(OSError):
            spawn(layout)


def next_wait(failures: int, idle: int, interval: float, ceiling: float) -> float:
    """Seconds until the next run: INTERVAL, doubled for each failure in a row, else for each IDLE_RUNS
    runs in a row that moved nothing (IDLE of them); never more than CEILING."""
    steps = min(failures, 16) if failures else idle // IDLE_RUNS
    return float(min(interval * 2**steps, ceiling))


# ---- one run ------------------------------------------------------------------------------------


class _OutOfTime(BaseException):
    """Raised by the run's alarm; a BaseException so no `except Exception` on the way swallows it."""


def run_once(layout: Layout, requested: float) -> dict[str, Any]:
    """One sync for a write made before REQUESTED (epoch seconds); the status it leaves in autosync.json."""
    from gridgit.watch.instance import InstanceLock

    layout.daemon_dir.mkdir(parents=True, exist_ok=True)
    lock = InstanceLock(layout.daemon_dir, LOCK)
    if not lock.acquire(wait=RUN_SECONDS):
        return read_status(layout)  # a run is stuck on the remote; the next request tries again
    try:
        before = read_status(layout)
        if float(before.get("started_at") or 0) > requested:
            return before  # a run that started after the request saw its write
        status = {**before, "started_at": time.time(), "pid": os.getpid()}
        _write_status(layout, status)
        status.update(_sync(layout, before))
        status["finished_at"] = time.time()
        _write_status(layout, status)
        _, interval, ceiling = settings(config.current(layout))
        wait = next_wait(int(status["failures"]), 0, interval, ceiling)
        _stamp(layout, status["finished_at"] + wait - interval)  # the hooks' next run: WAIT from now
        return status
    finally:
        lock.release()


def _sync(layout: Layout, before: dict[str, Any]) -> dict[str, Any]:
    """Run the sync; what autosync.json records of it."""
    from gridgit.errors import LostRace
    from gridgit.history import sync

    if hasattr(signal, "SIGALRM"):
        signal.signal(signal.SIGALRM, _alarm)
        signal.setitimer(signal.ITIMER_REAL, RUN_SECONDS)
    try:
        result = sync.sync(layout, agent="system", ref=config.current(layout)["sync"]["ref"])
    except LostRace as exc:  # the remote is there and busy: the next run, on the usual timer, pushes
        return {"ok": False, "error": str(exc).splitlines()[0], "changed": True, "written": [], "failures": 0,
                "attempts": sync.ATTEMPTS, "pushed": False}  # fmt: skip
    except (Exception, _OutOfTime) as exc:
        detail = "timed out" if isinstance(exc, _OutOfTime) else (str(exc).splitlines() or [type(exc).__name__])[0]
        return {"ok": False, "error": detail, "changed": False, "written": [],
                "failures": int(before.get("failures") or 0) + 1}  # fmt: skip
    finally:
        if hasattr(signal, "SIGALRM"):
            signal.setitimer(signal.ITIMER_REAL, 0)
    remote = result.commit if result.pushed else result.fetched
    changed = result.fetched != before.get("remote") or result.commit != result.fetched
    return {"ok": True, "error": "", "remote": remote, "changed": changed, "written": result.written, "failures": 0,
            "attempts": result.attempts, "pushed": result.pushed and result.commit != result.fetched}  # fmt: skip


def _alarm(signum: int, frame: Any) -> None:
    raise _OutOfTime()


# ---- the daemon's timer -------------------------------------------------------------------------


class Timer:
    """The watcher daemon's auto-sync: when the next run is due, and the run in flight (a child process).

    Runs on the watcher's one thread: `request` (a change, push_soon's signal), `next_deadline`
    and `due` (its event loop). A run asked for while one is in flight follows right after it.
    """

    def __init__(self, layout: Layout) -> None:
        self.layout = layout
        self.child: subprocess.Popen[bytes] | None = None
        self.due_at = time.monotonic()  # a first run at start-up: catch up with the team
        self.again = False
        self.idle = 0
        self.written: set[str] = set()  # what the last run wrote: its own changes trigger nothing
        self.seen: set[str] = set()  # changes seen while a run was in flight, judged when it ends
        self.error: Any = None  # the last failure logged (each new one is logged once)
        self.quiet_until = 0.0

    def active(self) -> bool:
        return enabled(self.layout)

    def request(self, now: float, delay: float = 0.0) -> None:
        """A write to share: a run within DELAY seconds, or right after the one in flight."""
        self.idle = 0
        if self.child is not None:
            self.again = True
        else:
            self.due_at = min(self.due_at, now + delay)

    def changed(self, rels: list[str], now: float) -> None:
        """Shared .grid/ files changed (REL paths inside .grid/): share them soon."""
        shared = {r for r in rels if r not in _LOCAL_NAMES}
        if self.child is not None:
            self.seen |= shared
            return
        if now < self.quiet_until:
            shared -= self.written
        if shared:
            self.request(now, PUSH_DELAY)

    def next_deadline(self) -> float | None:
        if not self.active():
            return None
        return time.monotonic() + 0.25 if self.child is not None else self.due_at

    def run(self, now: float) -> None:
        """Reap a finished run, and start the next one when it is due (call on every loop turn)."""
        if self.child is not None:
            if self.child.poll() is None:
                return
            self.child = None
            self._schedule(now)
        if now >= self.due_at and self.active():
            self.child = spawn(self.layout)
            self.due_at = float("inf")

    def _schedule(self, now: float) -> None:
        status = read_status(self.layout)
        _, interval, ceiling = settings(config.current(self.layout))
        self.written = set(status.get("written") or [])
        self.again = self.again or bool(self.seen - self.written)
        self.seen = set()
        self.quiet_until = now + PUSH_DELAY + 1.0  # the watcher reports the run's own writes after it ended
        failures = int(status.get("failures") or 0)
        if failures and (failures == 1 or status.get("error") != self.error):
            import logging  # the daemon's log (`gridgit daemon logs`); it is loaded there already

            logging.getLogger(__name__).warning("auto-sync failed: %s (retrying, backing off)", status["error"])
        self.error = status.get("error") if failures else None
        self.idle = 0 if failures or status.get("changed") else self.idle + 1
        self.due_at = now if self.again else now + next_wait(failures, self.idle, interval, ceiling)
        self.again = False

    def stop(self) -> None:
        """Leave a run in flight to finish on its own (it holds the lock; killing it would only waste it)."""
        self.child = None


def main(argv: list[str]) -> int:
    """`python -m gridgit.history.autosync [REQUESTED]`: one run for the repository around the working directory."""
    try:
        requested = float(argv[0]) if argv else time.time()
        layout = Layout.find()
        if layout.state.exists():
            run_once(layout, requested)
    except Exception:  # a background run has nobody to tell: autosync.json says what went wrong
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
