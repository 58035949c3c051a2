"""The screenshots of docs/serve.md: a mission in progress, served as Master Control, taken in headless Chromium.

    .venv/bin/python -m tests.serve.screenshots docs/

writes `serve-board-1440.png` and `serve-board-390.png` (what the viewport shows at 1440 and 390 CSS pixels
wide). The mission is made with the Python API in a temporary repository: every column of the board holds a
block, an agent asks a question, two agents hit a write conflict, a planner proposes a block in `hands_on`.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from tests.chromium import Chromium, find_browser
from tests.conftest import git
from tests.serve.conftest import Server, start_server

READY = (
    "document.body && document.body.dataset.state === 'ready' && document.getElementById('live').textContent === 'live'"
    " && document.body.dataset.canAct === 'true'"
)


def mission(path: Path) -> None:
    """A shop's back end, half built."""
    from gridgit import Blackboard

    path.mkdir(parents=True)
    git(path, "init", "-q", "-b", "main")
    git(path, "commit", "-q", "--allow-empty", "-m", "initial")
    board = Blackboard(path)
    board.init("Shop back end", ["01-foundation:Foundation", "02-api:API"], hooks=False)
    team = [("executor-001", "Settings loader"), ("executor-002", "Database schema"), ("executor-003", "Auth"),
            ("recognizer-001", "Review"), ("scout-001", "Map the payment API")]  # fmt: skip
    board.update_state({"agents": {"active": [{"id": a, "task": t} for a, t in team]}}, agent="mc")
    plans = [("01-01", "Settings loader", [], ["src/settings.py"], 1), ("01-02", "Database schema", [], ["db/**"], 0),
             ("01-03", "Auth endpoints", [], ["src/auth/**"], 2), ("01-04", "Login form", [], ["web/login/**"], 2),
             ("01-05", "Rate limits", ["01-03"], ["src/limits.py"], 3)]  # fmt: skip
    for block, name, deps, files, priority in plans:
        board.plan_block(block, f"## Goal\n{name}", name, deps, None, files, agent="mc", priority=priority)
    board.take("01-01", agent="executor-001")
    board.complete_block("01-01", "Settings load from env and file.", agent="executor-001")
    board.take("01-02", agent="executor-002")
    board.start_block("01-02", agent="executor-002")
    board.take("01-03", agent="executor-003")
    board.update_state({"mode": "hands_on"}, agent="mc")
    board.plan_block("01-06", "## Goal\nRetry the payment webhook", "Webhook retries", agent="planner-001")
    board.heartbeat(60, "migrating the orders table", thread="thread 2", files=["db/orders.sql"], agent="executor-002")
    board.heartbeat(20, "wiring the login route", files=["src/auth/login.py"], agent="executor-003")
    board.write("decision", "auth", "Decision: signed cookies\nRationale: no token store\nAffects: src/auth/",
                tags=["architectural"], relevance="HIGH", agent="executor-003")  # fmt: skip
    board.write("question", "payments", "Question: Stripe or Adyen for the EU shops?", agent="executor-003")
    board.touch("src/auth/session.py", agent="executor-003")
    board.touch("src/auth/session.py", agent="recognizer-001")
    board.send("executor-003", "Keep the session module small, please.", agent="recognizer-001")
    board.send("mc", "Blocked on the Stripe test key.", agent="executor-002")


def take(folder: Path) -> list[Path]:
    browser = find_browser()
    if browser is None:
        raise SystemExit("no Chromium on PATH")
    root = Path(tempfile.mkdtemp(prefix="gridgit-shots-")) / "repo"
    mission(root)
    server: Server = start_server(root, "--as", "mc-ana")
    shots = []
    try:
        for width, height, mobile in ((1440, 900, False), (390, 844, True)):
            with Chromium(browser, width, height) as chromium:
                page = chromium.open_page(server.url)
                chromium.resize(page, width, height, mobile)
                chromium.wait_for(page, READY, 30)
                time.sleep(0.5)  # the fresh-event highlight fades
                chromium.evaluate(page, "document.getElementById('toasts').replaceChildren()")
                shots.append(chromium.screenshot(page, folder / f"serve-board-{width}.png", whole=False))
    finally:
        server.stop()
    return shots


if __name__ == "__main__":
    for shot in take(Path(sys.argv[1] if len(sys.argv) > 1 else ".")):
        print(shot)
