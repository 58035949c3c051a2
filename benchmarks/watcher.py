"""The watcher daemon: start-up and RSS on a big tree, write-to-event latency, idle CPU."""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from benchmarks.harness import GRIDGIT, Config, Row, Target, Unavailable, Workspace, run
from benchmarks.suite import benchmark

FILES_PER_DIR = 20
CLK_TCK = os.sysconf("SC_CLK_TCK")


class EventTail:
    """Reads the event log from a byte offset, complete lines only (what any reader must do)."""

    def __init__(self, log: Path) -> None:
        self.log = log
        self.offset = log.stat().st_size if log.exists() else 0

    def new(self) -> list[dict[str, Any]]:
        if not self.log.exists():
            return []
        with open(self.log, "rb") as handle:
            handle.seek(self.offset)
            data = handle.read()
        end = data.rfind(b"\n") + 1
        self.offset += end
        found = []
        for line in data[:end].splitlines():
            with contextlib.suppress(ValueError):
                found.append(json.loads(line))
        return found


def _paths_of(events: list[dict[str, Any]]) -> set[str]:
    return {
        str(e.get("payload", {}).get("path"))
        for e in events
        if e.get("type") == "file_modified" and isinstance(e.get("payload"), dict)
    }


def tree_repo(ws: Workspace, files: int) -> Path:
    """A Blackboard in a repository with FILES tracked files, FILES_PER_DIR to a folder."""
    path = ws.grid_repo(f"tree-{files}")
    for i in range(files):
        folder = path / "src" / f"d{i // FILES_PER_DIR:04d}"
        if i % FILES_PER_DIR == 0:
            folder.mkdir(parents=True)
        (folder / f"f{i % FILES_PER_DIR:02d}.txt").write_text(f"file {i}\n", encoding="utf-8")
    run(["git", "add", "-A"], path, ws.env)
    run(["git", "commit", "-q", "-m", "big tree"], path, ws.env)
    return path


def daemon_pid(path: Path) -> int:
    pid_file = path / ".grid" / ".daemon" / "daemon.pid"
    found = re.search(r"\d+", pid_file.read_text(encoding="utf-8")) if pid_file.exists() else None
    if not found:
        raise RuntimeError(f"no pid in {pid_file}")
    return int(found.group())


def cpu_seconds(pid: int) -> float:
    """utime + stime of PID from /proc/PID/stat (fields 14 and 15, counted after the comm)."""
    with open(f"/proc/{pid}/stat", encoding="ascii") as handle:
        fields = handle.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status", encoding="ascii") as handle:
        for line in handle:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS for pid {pid}")


def _stop(path: Path, ws: Workspace) -> None:
    pid = None
    with contextlib.suppress(Exception):
        pid = daemon_pid(path)
    with contextlib.suppress(Exception):
        run([GRIDGIT, "daemon", "stop"], path, ws.env)
    if pid is not None and Path(f"/proc/{pid}").exists():
        time.sleep(1)
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)  # the daemon this benchmark started, by its pid


@contextlib.contextmanager
def daemon(path: Path, ws: Workspace) -> Iterator[float]:
    """Start the daemon; yields its start-up time (ms): from `daemon start` until a write is seen.

    Probes edit a different tracked file every 50 ms; start-up ends at the probe write whose
    file_modified event comes back first (the watcher was live by then).
    """
    tail = EventTail(path / ".grid" / "events" / "current.jsonl")
    start = time.monotonic()
    try:
        run([GRIDGIT, "daemon", "start"], path, ws.env)
    except RuntimeError as exc:
        raise Unavailable(f"unavailable: gridgit daemon start: {exc}") from None
    try:
        written: dict[str, float] = {}
        k = 0
        deadline = start + 60
        startup = None
        while startup is None:
            if time.monotonic() > deadline:
                raise RuntimeError("the daemon reported no file_modified within 60 s of start")
            rel = f"src/d{k:04d}/f00.txt"
            written[rel] = time.monotonic()
            (path / rel).write_text(f"probe {k}\n", encoding="utf-8")
            k += 1
            time.sleep(0.05)
            seen = [written[p] for p in _paths_of(tail.new()) if p in written]
            if seen:
                startup = (min(seen) - start) * 1000
        time.sleep(0.5)  # let the remaining probes' events drain
        yield startup
    finally:
        _stop(path, ws)


def _latency(path: Path, count: int, files: int) -> list[float]:
    """Write a tracked file, wait for its file_modified event; COUNT samples (ms)."""
    dirs = files // FILES_PER_DIR
    tail = EventTail(path / ".grid" / "events" / "current.jsonl")
    tail.new()
    samples = []
    for i in range(count):
        rel = f"src/d{(dirs // 2 + i) % dirs:04d}/f{1 + i // dirs % (FILES_PER_DIR - 1):02d}.txt"
        start = time.monotonic()
        (path / rel).write_text(f"latency {i}\n", encoding="utf-8")
        while True:
            if rel in _paths_of(tail.new()):
                samples.append((time.monotonic() - start) * 1000)
                break
            if time.monotonic() - start > 10:
                raise RuntimeError(f"no file_modified for {rel} within 10 s")
            time.sleep(0.002)
        time.sleep(0.2)  # past the debounce, so samples do not overlap
    return samples


@benchmark("watcher", "watcher", "watcher daemon")
def watcher(cfg: Config, ws: Workspace) -> list[Row]:
    files = cfg.size(20_000, 1_000)
    path = tree_repo(ws, files)
    startups: list[float] = []
    for _ in range(cfg.repeats(3, 1) - 1):
        with daemon(path, ws) as startup:
            startups.append(startup)
    with daemon(path, ws) as startup:
        startups.append(startup)
        pid = daemon_pid(path)
        rss = [rss_mb(pid)]
        latencies = _latency(path, cfg.repeats(40, 5), files)
        idle_s = cfg.size(60, 10)
        time.sleep(1)
        cpu0, t0 = cpu_seconds(pid), time.monotonic()
        time.sleep(idle_s)
        idle = (cpu_seconds(pid) - cpu0) / (time.monotonic() - t0) * 100
        rss.append(rss_mb(pid))
    return [
        Row("watcher", f"watcher start-up, {files:,}-file tree", "ms", startups, [Target("p50", "<=", 5000.0)]),
        Row("watcher", f"watcher RSS, {files:,}-file tree", "MB", [max(rss)], [Target("max", "<=", 100.0)]),
        Row(
            "watcher",
            "watcher write-to-event latency",
            "ms",
            latencies,
            [Target("p50", "<=", 150.0), Target("p95", "<=", 300.0)],
        ),
        Row("watcher", f"watcher idle CPU over {idle_s} s", "%", [idle], [Target("max", "<", 1.0)]),
    ]
