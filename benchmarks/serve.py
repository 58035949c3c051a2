"""`gridgit serve`: page load and write-to-screen latency in headless Chromium, the same over plain HTTP, an action's
round trip (over HTTP, and from a click to the board showing it), idle CPU.

The mission served: 10 registered agents with a heartbeat each, 40 more entries (a full
50-entry phase) and 8 blocks on the board; the server acts as Master Control `mc-bench`. Writes go through the Python API in this process, so a latency is the
server's and the page's part, not a CLI start-up: from just before `Blackboard.write` to
the moment the page's DOM holds the entry (a MutationObserver stamps `Date.now()`, the same
wall clock as this process's `time.time()`). Samples are spaced by varied pauses: a write
started right after the previous one arrived would be in step with the feed's 100 ms look at
the log, and every sample would measure the same phase of it.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import select
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from benchmarks import api
from benchmarks.fixtures import PHASE, fill_scratchpad
from benchmarks.harness import GRIDGIT, Config, Row, Target, Unavailable, Workspace
from benchmarks.suite import benchmark
from benchmarks.watcher import cpu_seconds

AGENTS = [f"executor-{n:03d}" for n in range(1, 8)] + ["recognizer-001", "memory-001", "scout-001"]
ROUTES = (
    "/",
    "/api/status",
    "/api/agents",
    "/api/blocks",
    "/api/entries",
    "/api/conflicts",
    "/api/learnings",
    "/api/messages",
    "/api/events?limit=50",
    "/api/phases",
    "/api/repo",
)
BLOCKS = 8
# Before the page's own script: the moment (ms since navigation start) it first shows everything.
RENDERED = """
new MutationObserver(() => {
  if (window.__rendered === undefined && document.body && document.body.dataset.state === 'ready')
    window.__rendered = performance.now();
}).observe(document, {subtree: true, attributes: true, attributeFilter: ['data-state']});
"""
# In the page: stamp the wall-clock time card 01-02 first shows the awaited priority.
BOARD_STAMP = """
window.__want = null; window.__seenAt = null;
new MutationObserver(() => {
  const card = document.querySelector("#board .card[data-block='01-02']");
  if (window.__want && window.__seenAt === null && card && card.textContent.includes(window.__want))
    window.__seenAt = Date.now();
}).observe(document.getElementById('board'), {childList: true, subtree: true, characterData: true});
"""
# In the page: stamp the wall-clock time an awaited text first appears among the entries.
STAMP = """
window.__want = null; window.__seenAt = null;
new MutationObserver(() => {
  if (window.__want && window.__seenAt === null && document.getElementById('entries').textContent.includes(window.__want))
    window.__seenAt = Date.now();
}).observe(document.getElementById('entries'), {childList: true, subtree: true, characterData: true});
"""


def mission(ws: Workspace) -> Path:
    """10 registered agents, each with a heartbeat, 40 entries (50 in the phase) and 8 blocks."""
    path = ws.grid_repo("serve")
    board = api.board(path)
    board.update_state({"agents": {"active": [{"id": a, "task": f"task of {a}"} for a in AGENTS]}}, agent="mc")
    for n, agent in enumerate(AGENTS):
        if agent.startswith("scout"):  # scouts send no heartbeats: one more entry instead
            api.writer(board)(PHASE, "executor-001", "warning", "scouting", "Scout is mapping the payment API.")
            continue
        board.heartbeat(10 * n, f"step {n} of the plan", phase=PHASE, agent=agent)
    fill_scratchpad(path, 40)
    for n in range(1, BLOCKS + 1):
        board.plan_block(f"01-{n:02d}", "## Goal\nA part of the shop", name=f"Part {n}", files=[f"src/part{n}.py"],
                         agent="mc")  # fmt: skip
    return path


@contextlib.contextmanager
def serving(path: Path, ws: Workspace) -> Iterator[tuple[subprocess.Popen[str], int, str]]:
    proc = subprocess.Popen(
        [GRIDGIT, "serve", "--port", "0", "--json", "--as", "mc-bench"],
        cwd=path,
        env=ws.env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline() if select.select([proc.stdout], [], [], 30)[0] else ""
        if not line:
            proc.kill()
            _, err = proc.communicate()
            raise Unavailable(f"unavailable: gridgit serve: {err.strip()[-200:]}")
        info = json.loads(line)["data"]
        yield proc, int(info["port"]), str(info["url"])
    finally:
        if proc.poll() is None:
            proc.terminate()
            proc.communicate(timeout=10)


def _pause(i: int) -> None:
    """50-250 ms, varied: out of step with the feed's polling (see the module's docstring)."""
    time.sleep(0.05 + (i * 0.037) % 0.2)


def _get(port: int, route: str) -> bytes:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("GET", route)
        response = conn.getresponse()
        body = response.read()
        if response.status != 200:
            raise RuntimeError(f"GET {route}: {response.status} {body[:200]!r}")
        return body
    finally:
        conn.close()


def _act(port: int, token: str, action: str, fields: dict[str, Any]) -> dict[str, Any]:
    """POST an action as the page does (its token, its origin, a JSON body); the answer's data."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    headers = {"Content-Type": "application/json", "Origin": f"http://127.0.0.1:{port}", "X-Gridgit-Token": token}
    try:
        conn.request("POST", f"/api/act/{action}", json.dumps(fields), headers)
        response = conn.getresponse()
        body = response.read()
        if response.status != 200:
            raise RuntimeError(f"POST {action}: {response.status} {body[:200]!r}")
        data: dict[str, Any] = json.loads(body)["data"]
        return data
    finally:
        conn.close()


def _action_rows(port: int, url: str, cfg: Config, browser: str | None) -> list[Row]:
    """An action's round trip over HTTP, and from a person's click to the board showing its result."""
    token = parse_qs(urlsplit(url).query)["token"][0]
    trips = []
    for i in range(cfg.repeats(20, 5) + 1):  # priority 1 and 2 in turn: each a real change of the PLAN file
        start = time.perf_counter()
        _act(port, token, "plan_block", {"block": "01-01", "priority": 1 + i % 2})
        if i:
            trips.append((time.perf_counter() - start) * 1000)
    rows = [Row("serve", "serve: action round trip over HTTP (plan_block: a priority)", "ms", trips)]
    if browser is None:
        return rows
    from tests.chromium import Chromium

    shown = []
    with Chromium(browser) as chromium:
        page = chromium.open_page(url)
        chromium.wait_for(page, "document.body && document.body.dataset.canAct === 'true' && "
                          "document.getElementById('live').textContent === 'live' && "
                          "document.querySelector(\"#board .card[data-block='01-02']\") !== null", 30)  # fmt: skip
        chromium.evaluate(page, BOARD_STAMP)
        for i in range(cfg.repeats(10, 3)):
            _pause(i)
            card = "#board .card[data-block='01-02']"
            now = chromium.evaluate(page, f'Number(document.querySelector("{card}").dataset.priority || 2)')
            up = (now > 0 and i % 2 == 0) or now == 4
            want = now - 1 if up else now + 1
            chromium.evaluate(page, f"window.__want = 'P{want}'; window.__seenAt = null;")
            start = time.time() * 1000
            chromium.click(page, f"{card} button.priority-{'up' if up else 'down'}")
            seen = chromium.wait_for(page, "window.__seenAt", timeout=10, interval=0.005)
            shown.append(float(seen) - start)
    rows.append(Row("serve", "serve: click -> the board shows the action in Chromium", "ms", shown,
                    [Target("p95", "<=", 1000.0)]))  # fmt: skip
    return rows


def _sse_latency(port: int, board: Any, count: int) -> list[float]:
    """Write an entry, read the stream until its entry_written arrives (ms)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("GET", "/api/stream")
    response = conn.getresponse()
    response.readline()  # the preamble: the stream is fed from here on
    samples = []
    try:
        for i in range(count):
            _pause(i)
            topic = f"sse-{i}"
            start = time.time()
            board.write("discovery", topic, f"Found: sample {i}", phase=PHASE, agent="executor-002")
            while True:
                line = response.readline()
                if line.startswith(b"data: ") and json.loads(line[6:]).get("payload", {}).get("topic") == topic:
                    samples.append((time.time() - start) * 1000)
                    break
    finally:
        conn.close()
    return samples


def _browser_rows(url: str, board: Any, cfg: Config, browser: str) -> list[Row]:
    from tests.chromium import Chromium

    loads: list[float] = []
    latencies: list[float] = []
    with Chromium(browser) as chromium:
        for i in range(cfg.repeats(10, 3) + 1):  # the first load (cold browser cache) is not counted
            page = chromium.open_page(url, before_load=RENDERED)
            rendered = chromium.wait_for(page, "window.__rendered", timeout=30)
            if i:
                loads.append(float(rendered))
            chromium.close_page(page)
        page = chromium.open_page(url)
        chromium.wait_for(
            page,
            "document.body && document.body.dataset.state === 'ready' && document.getElementById('live').textContent === 'live'",
            30,
        )
        chromium.evaluate(page, STAMP)
        for i in range(cfg.repeats(20, 5)):
            _pause(i)
            marker = f"Gotcha {i}: seen on screen"
            chromium.evaluate(page, f"window.__want = {json.dumps(marker)}; window.__seenAt = null;")
            start = time.time() * 1000
            board.write("gotcha", f"screen-{i}", marker, phase=PHASE, agent="executor-003")
            seen = chromium.wait_for(page, "window.__seenAt", timeout=10, interval=0.005)
            latencies.append(float(seen) - start)
    return [
        Row("serve", "serve: page load to first render in Chromium (50 entries, 10 agents)", "ms", loads),
        Row("serve", "serve: write -> visible in Chromium", "ms", latencies, [Target("p95", "<=", 1000.0)]),
    ]


@benchmark("serve", "serve", "gridgit serve web view")
def serve(cfg: Config, ws: Workspace) -> list[Row]:
    from tests.chromium import find_browser

    path = mission(ws)
    board = api.board(path)
    browser = find_browser()
    rows: list[Row] = []
    with serving(path, ws) as (proc, port, url):
        # Reads first, while the phase holds its 50 entries (the latency writes below auto-archive).
        reads = []
        for i in range(cfg.repeats(20, 3) + 1):
            start = time.perf_counter()
            for route in ROUTES:
                _get(port, route)
            if i:
                reads.append((time.perf_counter() - start) * 1000)
        rows.append(
            Row("serve", f"serve: page + {len(ROUTES) - 1} API reads over HTTP (50 entries, 10 agents)", "ms", reads)
        )
        if browser is not None:
            rows += _browser_rows(url, board, cfg, browser)
        rows += _action_rows(port, url, cfg, browser)
        sse = _sse_latency(port, board, cfg.repeats(20, 5))
        rows.append(Row("serve", "serve: write -> SSE message (HTTP client)", "ms", sse, [Target("p95", "<=", 1000.0)]))
        idle_s = cfg.size(20, 3)
        cpu0, t0 = cpu_seconds(proc.pid), time.monotonic()
        time.sleep(idle_s)
        idle = (cpu_seconds(proc.pid) - cpu0) / (time.monotonic() - t0) * 100
        rows.append(
            Row("serve", f"serve idle CPU over {idle_s} s (no page open)", "%", [idle], [Target("max", "<", 1.0)])
        )
    if browser is None:
        rows[0].note = "no Chromium on PATH: the in-browser rows were skipped"
    return rows
