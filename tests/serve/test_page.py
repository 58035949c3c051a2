"""The page in a real browser (headless Chromium over the DevTools protocol): it renders the mission,
keeps agents' text as text, and shows an entry written after it loaded, live. One test: the browser's
start is the slow part. `.ci/run` installs Debian's chromium; the test skips only without one."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.chromium import Chromium, find_browser
from tests.conftest import Repo
from tests.serve.conftest import HOSTILE, Server

BROWSER = find_browser()
pytestmark = pytest.mark.skipif(BROWSER is None, reason="no Chromium on PATH (apt-get install chromium; .ci/run does)")

# Runs before the page's own script: records any Content-Security-Policy violation.
WATCH_POLICY = "window.__csp = []; document.addEventListener('securitypolicyviolation', e => window.__csp.push(e.violatedDirective));"
READY = (
    "document.body && document.body.dataset.state === 'ready' && document.getElementById('live').textContent === 'live'"
)


def test_the_page_renders_the_mission_and_shows_a_new_entry_live(served: tuple[Repo, Server], tmp_path: Path) -> None:
    repo, server = served
    folder = Path(os.environ.get("GRIDGIT_TEST_ARTEFACTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    shot = folder / "gridgit-serve.png"
    assert BROWSER is not None
    with Chromium(BROWSER) as browser:
        page = browser.open_page(server.url, before_load=WATCH_POLICY)
        browser.wait_for(page, READY)

        def text(selector: str) -> str:
            value: str = browser.evaluate(page, f"document.querySelector({json.dumps(selector)}).textContent")
            return value

        assert text("#mission").startswith("Shop <script>") and text("#phase-line").startswith(
            "Phase 1/2: 01-foundation"
        )
        agents = text("#agents")
        assert "wiring the login route" in agents and "40%" in agents and "STALE" in agents and "n/a" in agents
        assert "executor-002" in agents and "seen" in agents
        # a finished agent stays in the panel, folded away and greyed; current agents come first
        done = "document.querySelector('#agents-done li[data-agent=\"executor-003\"]')"
        assert browser.evaluate(page, f"{done}.classList.contains('done')")
        assert "schema migrated" in browser.evaluate(page, f"{done}.textContent")
        assert browser.evaluate(page, f"getComputedStyle({done}).opacity") == "0.55"
        assert browser.evaluate(page, "document.getElementById('agents-done-box').open") is False
        order = browser.evaluate(page, "[...document.querySelectorAll('#agents > li')].map(l => l.dataset.agent)")
        stale = browser.evaluate(
            page, "[...document.querySelectorAll('#agents > li')].map(l => l.classList.contains('stale'))"
        )
        assert order[0] == "executor-001" and any(stale) and stale == sorted(stale)  # the stale after the others
        assert "src/shop.py" in text("#conflicts-open") and "src/api/**" in text("#claims")
        assert "Blocker: no Stripe key" in text("#open") and "decisions (1)" in text("#learnings")
        assert "executor-001 → recognizer-001" in text("#messages") and "not acknowledged yet" in text("#messages")
        assert browser.evaluate(page, "document.querySelector('#entries article').classList.contains('open')")
        assert "1a2b3c4" in text("#entries .commits")
        # No origin remote: a commit and a cited file link to this server's `git show`.
        href = "document.querySelector('#entries a.{}').getAttribute('href')"
        assert browser.evaluate(page, href.format("commit")) == "/show?rev=1a2b3c4d5e6f"
        assert browser.evaluate(page, href.format("file")) == "/show?path=src%2Fauth.py"
        assert "Current Action" not in text("#entries")  # heartbeats: in the agents panel, not among entries
        assert "1 heartbeats hidden" in text("#entries-count")
        lane = "document.querySelector('#board .lane[data-lane={}]').textContent"
        assert "01-01" in browser.evaluate(page, lane.format("taken"))
        assert "recognizer-001" in browser.evaluate(page, lane.format("taken"))
        assert "waits for 01-01" in browser.evaluate(page, lane.format("planned"))
        assert text("#taken").startswith("Taken:01-01 recognizer-001 (taken)")  # every taken block, in the header
        # read-only: the page shows no control that acts
        assert text("#actor") == "read-only" and browser.evaluate(page, "document.getElementById('mode').disabled")
        assert (
            browser.evaluate(page, "getComputedStyle(document.querySelector('#board .card .actions')).display")
            == "none"
        )
        assert text("#cost") == "$0.0480 (no limit set) · 1 model replies counted" and "Login loops <script>" in text(
            "#debug"
        )

        # What agents wrote stays text: no script ran, no element was made from it.
        assert HOSTILE in text("#entries") and HOSTILE in text("#messages")
        assert browser.evaluate(page, "window.__pwned") is None
        assert browser.evaluate(page, "document.scripts.length") == 1
        assert browser.evaluate(page, "document.querySelectorAll('img, b').length") == 0
        assert browser.exceptions(page) == []

        # A filter asks the API again.
        browser.evaluate(
            page,
            "const s = document.getElementById('filter-category'); s.value = 'blocker'; s.dispatchEvent(new Event('change'))",
        )
        browser.wait_for(page, "document.querySelectorAll('#entries article').length === 1")
        browser.evaluate(page, "document.getElementById('filter-reset').click()")

        # The search box asks /api/search; the words that matched are marked, agents' text stays text.
        submit = "document.getElementById('search-form').requestSubmit()"
        browser.evaluate(page, f"document.getElementById('search-q').value = 'signed cookies pwned'; {submit}")
        browser.wait_for(page, "document.querySelectorAll('#search-results article').length > 0")
        marks = browser.evaluate(page, "[...document.querySelectorAll('#search-results mark')].map(m => m.textContent)")
        assert {"signed", "cookies"} <= {m.lower() for m in marks} and HOSTILE in text("#search-results")
        assert browser.evaluate(page, "window.__pwned") is None and "found" in text("#search-count")

        # An open search is run again when an entry is written.
        browser.evaluate(page, f"document.getElementById('search-q').value = 'browser'; {submit}")
        browser.wait_for(page, "document.getElementById('search-results').textContent.includes('Nothing found')")

        # Written by another process after the page loaded: the event stream brings it in.
        content = "Gotcha: seen live in the browser"
        repo.gridgit("write", "-c", "gotcha", "-t", "browser-live", "--content", content, agent="recognizer-001")
        browser.wait_for(page, f"document.getElementById('entries').textContent.includes({json.dumps(content)})", 10)
        browser.wait_for(page, "document.getElementById('feed').textContent.includes('browser-live')")
        repo.gridgit("send", "--to", "executor-001", "--content", "Message seen live", agent="recognizer-001")
        browser.wait_for(page, "document.getElementById('messages').textContent.includes('Message seen live')", 10)
        browser.wait_for(page, f"document.getElementById('search-results').textContent.includes({json.dumps(content)})")
        assert browser.evaluate(page, "window.__csp") == []  # the page's own style and script are allowed, exactly

        # A busy minute: the feed's 200 events scroll inside it; Learnings stays within reach.
        from gridgit import Blackboard

        busy = Blackboard(repo.path)
        for n in range(200):
            busy.emit("state_updated", {"agent": "mc", "fields": [f"busy-{n}"]})
        browser.wait_for(page, "document.getElementById('feed').children.length === 200", 20)
        # STATE updates are most of a busy log: hidden until asked for, and counted
        assert browser.evaluate(page, "getComputedStyle(document.querySelector('#feed li.noise')).display") == "none"
        assert text("#feed-hidden").startswith("(") and "hidden" in text("#feed-hidden")
        top = "document.getElementById('learnings-panel').getBoundingClientRect().top + window.scrollY"
        assert browser.evaluate(page, top) < 3000
        browser.screenshot(page, shot)
    print(f"screenshot of the web view: {shot}")
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
