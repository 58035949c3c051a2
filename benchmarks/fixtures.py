"""Test data: scratchpads of a given size and event logs of a given length, built once per run."""

from __future__ import annotations

import json
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from benchmarks import api
from benchmarks.harness import Workspace

PHASE = "01-foundation"
NEXT_PHASE = "02-core"
AGENTS = ("executor-001", "executor-002", "recognizer-001", "memory-001")
CATEGORIES = ("discovery", "decision", "gotcha", "pattern", "warning", "question", "handoff", "blocker")
TOPICS = ("auth", "database", "api", "frontend", "testing", "deploy", "cache", "search", "billing", "infra")
HOT_TOPIC = "auth"


def content(i: int) -> str:
    """About 300 bytes of plausible agent prose, different for every entry."""
    return (
        f"Finding {i}: the session middleware re-reads the token on every request, which costs one "
        f"round trip per call. Evidence: src/auth/session_{i % 7}.py lines {i}-{i + 12}.\n\n"
        f"- Files: src/auth/session_{i % 7}.py, tests/test_session.py\n"
        f"- Next: cache the decoded token for the request's lifetime (see entry {max(1, i - 3)})."
    )


def entry_args(i: int) -> tuple[str, str, str, str]:
    """(agent, category, topic, content) of setup entry I; (category, topic) pairs never repeat
    within 80 entries, so the merge protocol folds none of them together."""
    return (
        AGENTS[i % len(AGENTS)],
        CATEGORIES[(i // len(TOPICS)) % len(CATEGORIES)],
        TOPICS[i % len(TOPICS)],
        content(i),
    )


def fill_scratchpad(path: Path, count: int, phase: str = PHASE) -> None:
    """Write COUNT entries into PHASE's scratchpad through the API."""
    board = api.board(path)
    write = api.writer(board)
    for i in range(count):
        agent, category, topic, text = entry_args(i)
        # Past 80 entries pairs repeat: a per-entry topic keeps the merge protocol out of set-up.
        write(phase, agent, category, topic if i < 80 else f"{topic}-{i}", text)


_PADS: dict[tuple[Path, int], Path] = {}


def shared_pad_repo(ws: Workspace, entries: int) -> Path:
    """A Blackboard with ENTRIES entries in phase 01, built once per run for benchmarks that only read it."""
    key = (ws.root, entries)
    if key not in _PADS:
        path = ws.grid_repo(f"pad-{entries}")
        fill_scratchpad(path, entries)
        _PADS[key] = path
    return _PADS[key]


def set_max_entries(path: Path, max_entries: int) -> None:
    """Raise the scratchpad limit in config.json (the user-facing knob)."""
    config_path = path / ".grid" / "config.json"
    config = json.loads(config_path.read_text(encoding="utf-8"))
    config.setdefault("scratchpad", {})["max_entries"] = max_entries
    config_path.write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")


def raise_pad_limit(path: Path, max_entries: int, phase: str = PHASE) -> None:
    """Let PHASE's scratchpad grow to MAX_ENTRIES: config.json and the scratchpad's own index."""
    from gridgit.scratchpad import store
    from gridgit.store import fileio

    set_max_entries(path, max_entries)
    pad_path = path / ".grid" / "phases" / phase / "scratchpad.md"
    pad = store.load_path(pad_path)
    pad.meta["index"]["max_entries"] = max_entries
    fileio.atomic_write(pad_path, pad.render())


def set_config(path: Path, section: str, key: str, value: Any) -> None:
    config_path = path / ".grid" / "config.json"
    config = json.loads(config_path.read_text(encoding="utf-8"))
    config.setdefault(section, {})[key] = value
    config_path.write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")


def _iso(moment: datetime) -> str:
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def append_filler_events(path: Path, count: int, age_minutes: float = 120.0, agent: str = "executor-009") -> None:
    """Append COUNT old events (outside any conflict window) in the log's documented line format.

    Most are file_modified for paths nobody checks, the rest entry_written; ids sort by time
    and stay below every id the API emits afterwards.
    """
    log = path / ".grid" / "events" / "current.jsonl"
    log.parent.mkdir(parents=True, exist_ok=True)
    stamp = _iso(datetime.now(timezone.utc) - timedelta(minutes=age_minutes))
    base_ns = time.time_ns() - int(age_minutes * 60e9)
    chunk: list[str] = []
    with open(log, "a", encoding="utf-8") as handle:
        for i in range(count):
            event_id = f"{base_ns + i:016x}-{1:07x}-{i & 0xFFFFFF:06x}"
            if i % 4:
                payload = f'{{"path":"src/mod_{i % 997}/file_{i % 89}.py","agent":"{agent}","operation":"modified"}}'
                kind = "file_modified"
            else:
                payload = f'{{"phase_id":"01-foundation","entry_id":{i % 50 + 1},"topic":"api","agent":"{agent}"}}'
                kind = "entry_written"
            chunk.append(f'{{"id":"{event_id}","type":"{kind}","timestamp":"{stamp}","payload":{payload}}}\n')
            if len(chunk) >= 20000:
                handle.write("".join(chunk))
                chunk.clear()
        handle.write("".join(chunk))


_LOGS: dict[tuple[Path, int, int], Path] = {}


def event_log_repo(ws: Workspace, lines: int, recent_touches: int = 100) -> Path:
    """A Blackboard whose log holds LINES old events plus RECENT_TOUCHES fresh file_modified events
    through the API (the checking agent's own, so a check scans the window and finds no conflict).

    Built once per run and size: a million-line log takes seconds to write.
    """
    key = (ws.root, lines, recent_touches)
    if key in _LOGS:
        return _LOGS[key]
    path = ws.grid_repo(f"events-{lines}-{recent_touches}")
    _LOGS[key] = path
    set_config(path, "events", "rotate_bytes", 1 << 40)  # the benchmark measures a long log, not rotation
    append_filler_events(path, lines)
    board = api.board(path)
    try:
        touch = api.toucher(board)
    except Exception:
        return path
    for i in range(recent_touches):
        touch(f"src/recent_{i % 20}.py", "executor-001")
    return path


def count_lines(path: Path) -> int:
    with open(path, "rb") as handle:
        return sum(chunk.count(b"\n") for chunk in iter(lambda: handle.read(1 << 20), b""))
