"""Auto-sync (issue 29): two clones of a bare origin on this machine, a watcher daemon in each with
`sync.auto: true`; the time from a write in one clone until it is in the other's `.grid/`."""

from __future__ import annotations

import json
import random
import time
from pathlib import Path

from benchmarks.gridref import _origin
from benchmarks.harness import GRIDGIT, Config, Row, Target, Workspace, percentile, run
from benchmarks.suite import benchmark

PAD = Path(".grid/phases/01-foundation/scratchpad.md")


def _auto(path: Path, on: bool, seconds: float | None) -> None:
    """Turn sync.auto on or off in PATH's config.json (SECONDS: sync.auto_seconds, None keeps the default)."""
    config = path / ".grid" / "config.json"
    data = json.loads(config.read_text(encoding="utf-8"))
    data["sync"]["auto"] = on
    if seconds is not None:
        data["sync"]["auto_seconds"] = seconds
    config.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")


def _until(found: object, timeout: float) -> float | None:
    """Poll FOUND() every 20 ms; the perf_counter time it first held, None after TIMEOUT seconds."""
    deadline = time.perf_counter() + timeout
    while time.perf_counter() < deadline:
        if found():  # type: ignore[operator]
            return time.perf_counter()
        time.sleep(0.02)
    return None


def _in_pad(path: Path, marker: str) -> bool:
    try:
        return marker in (path / PAD).read_text(encoding="utf-8")
    except OSError:
        return False


def _settled(path: Path) -> bool:
    """The daemon's first run (catching up at start-up) is done."""
    try:
        return bool(json.loads((path / ".grid/.daemon/autosync.json").read_text(encoding="utf-8")).get("finished_at"))
    except (OSError, ValueError):
        return False


@benchmark("autosync", "autosync", "a write in one clone until it is in the other, with and without auto-sync")
def visibility(cfg: Config, ws: Workspace) -> list[Row]:
    interval = 1.0 if cfg.quick else 10.0  # the full run: the default sync.auto_seconds
    rounds = cfg.repeats(12, 1)
    rng = random.Random(29)
    (a, b), env = _origin(ws, "auto", 2)
    for path in (a, b):
        _auto(path, True, interval if cfg.quick else None)
        run([GRIDGIT, "daemon", "start"], path, env)
    entry_ms: list[float] = []
    message_ms: list[float] = []
    try:
        for path in (a, b):
            if _until(lambda path=path: _settled(path), 120) is None:  # type: ignore[misc]
                raise RuntimeError(f"{path.name}: the daemon's first auto-sync run did not finish in 120 s")
        for i in range(rounds):
            time.sleep(rng.uniform(0, interval))  # a write lands at any point of the daemons' timers
            marker = f"visible-{i}-{rng.getrandbits(32):08x}"
            start = time.perf_counter()
            run([GRIDGIT, "write", "-c", "discovery", "-t", "auto", "--content", f"Found: {marker}"], a, env)
            seen = _until(lambda marker=marker: _in_pad(b, marker), 120)  # type: ignore[misc]
            if seen is None:
                raise RuntimeError(f"entry {marker} never reached the other clone (120 s)")
            entry_ms.append((seen - start) * 1000)
            time.sleep(rng.uniform(0, interval))
            start = time.perf_counter()
            out = run([GRIDGIT, "send", "--to", "executor-002", "--content", marker, "--json"], a, env)
            box = b / ".grid/messages/executor-002" / f"{json.loads(out)['data']['id']}.md"
            seen = _until(box.exists, 120)
            if seen is None:
                raise RuntimeError(f"message {marker} never reached the other clone (120 s)")
            message_ms.append((seen - start) * 1000)
    finally:
        for path in (a, b):
            run([GRIDGIT, "daemon", "stop"], path, env, check=False)

    # Without auto-sync (the default), the same clones: a write stays in its clone until someone syncs.
    for path in (a, b):
        _auto(path, False, None)
    c, d = a, b
    window = 1.5 if cfg.quick else 30.0
    run([GRIDGIT, "write", "-c", "discovery", "-t", "manual", "--content", "Found: never-synced"], c, env)
    never = _until(lambda: _in_pad(d, "never-synced"), window) is None
    manual_ms: list[float] = []
    for i in range(cfg.repeats(10, 1)):
        start = time.perf_counter()
        run([GRIDGIT, "write", "-c", "discovery", "-t", "manual", "--content", f"Found: manual-{i}"], c, env)
        run([GRIDGIT, "sync"], c, env)
        run([GRIDGIT, "sync"], d, env)
        if not _in_pad(d, f"manual-{i}"):
            raise RuntimeError(f"manual-{i} not in the other clone after both synced")
        manual_ms.append((time.perf_counter() - start) * 1000)

    def p90(samples: list[float]) -> str:
        return f"p90 {percentile(samples, 90) / 1000:.1f} s"

    every = f"sync.auto_seconds {interval:g}"
    timed = (
        ("entry written in A -> in B's .grid/", entry_ms, "A's daemon syncs a second after the write"),
        ("message sent in A -> in B's mailbox", message_ms, "`gridgit send` wakes A's daemon (push_soon)"),
    )
    return [
        *(
            Row(
                "autosync",
                f"auto-sync: {what}",
                "ms",
                samples,
                [Target("p90", "<=", 15_000.0)],
                note=f"{p90(samples)}; {every}: {how}, B's on its timer",
            )
            for what, samples, how in timed
        ),
        Row(
            "autosync",
            "without auto-sync: write, `gridgit sync` in A, then in B",
            "ms",
            manual_ms,
            note=f"with nobody syncing, the write was {'not ' if never else ''}in B after {window:g} s"
            + (" (never, until a sync)" if never else " (UNEXPECTED)"),
        ),
    ]
