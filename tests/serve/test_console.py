"""A person runs a mission from the page, in a real browser (headless Chromium over the DevTools protocol): each
action a click, a typed text or a drag, checked in `.grid/` and by the event it emitted as Master Control; the
mode's approvals; two tabs acting on one block at once; the refusals shown. One test: the browser's start and the
mission are the slow part. It saves the board at 1440 and 390 px (docs/serve.md shows them)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from gridgit.model import state as state_mod
from gridgit.store import frontmatter
from gridgit.store.layout import Layout
from tests.chromium import Chromium, find_browser
from tests.conftest import Repo
from tests.serve.conftest import HOSTILE, Server

BROWSER = find_browser()
pytestmark = pytest.mark.skipif(BROWSER is None, reason="no Chromium on PATH (apt-get install chromium; .ci/run does)")

PHASE = "01-foundation"
READY = (
    "document.body && document.body.dataset.state === 'ready' && document.getElementById('live').textContent === 'live'"
    " && document.body.dataset.canAct === 'true'"
)


def by_mc(repo: Repo, event_type: str) -> list[dict[str, Any]]:
    return [e["payload"] for e in repo.events(event_type) if e["payload"].get("agent") == "mc-ana"]


def plan(repo: Repo, block: str) -> dict[str, Any]:
    path = repo.grid / "phases" / PHASE / f"{block[3:]}-PLAN.md"
    return frontmatter.parse(path.read_text(encoding="utf-8"), str(path))[0]


def inbox(repo: Repo, agent: str) -> list[str]:
    return [item["summary"] for item in repo.gridgit_json("inbox", agent=agent)]


class Page:
    """One tab of the console, driven as a person drives it."""

    def __init__(self, browser: Chromium, url: str) -> None:
        self.browser, self.session = browser, browser.open_page(url)
        browser.wait_for(self.session, READY, 30)

    def js(self, expression: str) -> Any:
        return self.browser.evaluate(self.session, expression)

    def wait(self, expression: str, timeout: float = 20) -> Any:
        return self.browser.wait_for(self.session, expression, timeout)

    def click(self, selector: str) -> None:
        self.wait(f"document.querySelector({json.dumps(selector)}) !== null")
        self.browser.click(self.session, selector)

    def type(self, selector: str, text: str) -> None:
        self.wait(f"document.querySelector({json.dumps(selector)}) !== null")
        self.browser.type(self.session, selector, text)

    def text(self, selector: str) -> str:
        return str(self.js(f"(document.querySelector({json.dumps(selector)}) || {{}}).textContent || ''"))

    def acted(self, prefix: str) -> str:
        """The page's answer to the last action, once it says PREFIX (`send: ok`, or the error it shows)."""
        value = self.wait(
            f"(document.body.dataset.lastAction || '').startsWith({json.dumps(prefix)}) && document.body.dataset.lastAction"
        )
        self.js("delete document.body.dataset.lastAction")
        return str(value)


def test_a_person_runs_the_mission_from_the_page(console: tuple[Repo, Server], tmp_path: Path) -> None:
    repo, server = console
    assert BROWSER is not None
    folder = Path(os.environ.get("GRIDGIT_TEST_ARTEFACTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    question = next(e for e in repo.gridgit_json("read", "--category", "question"))
    blocker = next(e for e in repo.gridgit_json("read", "--category", "blocker"))
    for agent in ("executor-001", "executor-002", "planner-001"):
        repo.gridgit("inbox", agent=agent)  # their inboxes open now: what the page does reaches them
    repo.gridgit("agent", "register", "executor-004", "--task", "Payments", agent="executor-004")

    with Chromium(BROWSER, 1440, 1000) as browser:
        page = Page(browser, server.url)
        assert page.text("#actor") == "acting as mc-ana"

        # Answer a question: written, resolved, the asker told.
        page.click(f"#open li[data-open='{question['uid']}'] button.answer")
        page.type(f"#open li[data-open='{question['uid']}'] form textarea", "REST, as the docs ")
        # An event redraws the open work while the person types: the form, its text and its focus stay.
        repo.gridgit(
            "write", "-c", "warning", "-t", "retries", "--content", "Warning: no retry limit", agent="executor-001"
        )
        page.wait("document.getElementById('open').textContent.includes('no retry limit')")
        textarea = f"#open li[data-open='{question['uid']}'] form textarea"
        assert page.js(f'document.querySelector("{textarea}") === document.activeElement')
        browser.send("Input.insertText", {"text": f"say {HOSTILE}"}, session=page.session)
        page.click(f"#open li[data-open='{question['uid']}'] form button[type=submit]")
        assert page.acted("answer: ok")
        (answered,) = [e for e in by_mc(repo, "entry_resolved") if e["entry_uid"] == question["uid"]]
        assert answered["answer"] == f"REST, as the docs say {HOSTILE}"
        assert any("was answered by mc-ana: REST, as the docs say" in line for line in inbox(repo, "executor-002"))

        # Unblock: the blocker resolved with a note.
        page.click(f"#open li[data-open='{blocker['uid']}'] button.resolve")
        page.type(f"#open li[data-open='{blocker['uid']}'] form input", "key in the vault")
        page.click(f"#open li[data-open='{blocker['uid']}'] form button[type=submit]")
        assert page.acted("resolve: ok")
        assert [e["note"] for e in by_mc(repo, "entry_resolved") if e["entry_uid"] == blocker["uid"]] == [
            "key in the vault"
        ]
        page.wait(f"!document.querySelector(\"#open li[data-open='{blocker['uid']}']\")")

        # The CHECKPOINT.md write conflict closed.
        page.click("#conflicts-open li[data-conflict='src/shop.py'] button.resolve-conflict")
        page.click("#conflicts-open form button[type=submit]")
        assert page.acted("resolve_conflicts: ok")
        assert repo.gridgit_json("conflicts", "list") == [] and by_mc(repo, "conflict_resolved")

        # A message to an agent, and one to Master Control acknowledged.
        page.type("#compose-to", "executor-001")
        page.type("#compose-content", "Take 01-03 next")
        page.click("#compose button[type=submit]")
        assert page.acted("send: ok")
        assert [m["to"] for m in by_mc(repo, "message_sent")] == ["executor-001"]
        sent = repo.gridgit_json("send", "--to", "mc", "--content", "Stripe key, please", agent="executor-001")
        page.wait("document.getElementById('toasts').textContent.includes('message from executor-001')")  # notified
        page.click(f"#mine li[data-message='{sent['id']}'] button.ack")
        assert page.acted("ack: ok")
        assert [m["message_id"] for m in by_mc(repo, "message_acked")] == [sent["id"]]

        # Plan a block in the editor, then move it up the queue.
        page.click("#plan-new")
        page.type("#ed-block", "01-03")
        page.type("#ed-name", "Payments API")
        page.type("#ed-files", "src/pay.py")
        page.click("#ed-save")
        assert page.acted("plan_block: ok")
        assert (plan(repo, "01-03")["name"], plan(repo, "01-03")["planned_by"]) == ("Payments API", "mc-ana")
        page.click("#board .card[data-block='01-03'] button.priority-up")
        assert page.acted("plan_block: ok")
        assert plan(repo, "01-03")["priority"] == 1 and by_mc(repo, "block_planned")[-1]["priority"] == 1

        # The mode: hands_on makes a planner's block a proposal; a drag onto Ready approves it.
        browser.select(page.session, "#mode", "hands_on")
        assert page.acted("set_mode: ok")
        assert state_mod.read(Layout.find(repo.path))["mode"] == "hands_on"
        repo.gridgit("block", "plan", "01-04", "--name", "Found: a retry bug", agent="planner-001")
        page.wait("document.querySelector(\"#board .lane[data-lane=proposed] .card[data-block='01-04']\") !== null")
        page.wait("document.getElementById('toasts').textContent.includes('planner-001 proposes block 01-04')")
        assert "1 proposed block waits for approval" in page.text("#approval")
        browser.drag(page.session, "#board .card[data-block='01-04']", "#board .lane[data-lane=ready]")
        assert page.acted("approve_block: ok")
        assert (plan(repo, "01-04")["status"], plan(repo, "01-04")["approved_by"]) == ("planned", "mc-ana")
        assert any("mc-ana approved your proposed block 01-04" in line for line in inbox(repo, "planner-001"))

        # Assign by dragging a card onto an agent; release it with a click; the holder is told.
        browser.drag(page.session, "#board .card[data-block='01-03']", "#agents li[data-agent='executor-001']")
        assert page.acted("assign_block: ok")
        assert (
            plan(repo, "01-03")["owner"] == "executor-001"
            and by_mc(repo, "block_assigned")[-1]["owner"] == "executor-001"
        )
        page.wait("document.getElementById('taken').textContent.includes('01-03 executor-001')")  # the header names it
        page.click("#board .card[data-block='01-03'] button.release")
        assert page.acted("release_block: ok")
        assert plan(repo, "01-03")["owner"] is None and by_mc(repo, "block_released")[-1]["owner"] == "executor-001"
        assert "mc-ana released your block 01-03: it is back in the queue; stop working on it" in inbox(
            repo, "executor-001"
        )

        # Two tabs give one block to two agents at once: one wins, the other is told and changes nothing.
        other = Page(browser, server.url)
        for tab, agent in ((page, "executor-001"), (other, "executor-004")):
            tab.wait(
                f"document.querySelector(\"#board .card[data-block='01-04'] select.assign-to option[value='{agent}']\") !== null"
            )
        # Each tab picks and fires in one go (its board may be drawn again between two evaluations).
        pick = "(() => {{ const s = document.querySelector(\"#board .card[data-block='01-04'] select.assign-to\"); "
        pick += "s.value = '{}'; s.dispatchEvent(new Event('change')); }})()"
        page.js(pick.format("executor-001"))
        other.js(pick.format("executor-004"))
        answers = [page.acted("assign_block: "), other.acted("assign_block: ")]
        (told,) = [a for a in answers if a != "assign_block: ok"]  # one won
        assert "assign_block: block 01-04 changed meanwhile:" in told and told.endswith("not nobody; nothing changed")
        assert len([e for e in by_mc(repo, "block_assigned") if e["block_id"] == "01-04"]) == 1
        winner = plan(repo, "01-04")["owner"]
        assert winner in ("executor-001", "executor-004")
        browser.close_page(other.session)

        # Force-release another agent's claim; the holder is told.
        page.click("#claims li button.release-claim")
        assert page.acted("release_claims: ok")
        assert repo.gridgit_json("claims", "--agent", "executor-001") == []
        assert by_mc(repo, "claim_released")[-1]["holder"] == "executor-001"
        assert "mc-ana released your claim on src/api/**: it no longer holds" in inbox(repo, "executor-001")

        # Mark an agent done; promote an entry to LEARNINGS.md.
        page.click("#agents li[data-agent='scout-001'] button.done-agent")
        page.type("#agents li[data-agent='scout-001'] form input", "payment API mapped")
        page.click("#agents li[data-agent='scout-001'] form button[type=submit]")
        assert page.acted("finish_agent: ok")
        completed = state_mod.read(Layout.find(repo.path))["agents"]["completed"]
        assert any(isinstance(a, dict) and a.get("id") == "scout-001" for a in completed)
        discovery = next(e for e in repo.gridgit_json("read", "--category", "discovery"))
        page.click(f"#entries article[data-uid='{discovery['uid']}'] button.promote")
        assert page.acted("promote: ok")
        extracted = repo.events("learning_extracted")[-1]["payload"]
        assert (extracted["origin"], extracted["agent"]) == (discovery["uid"], "mc-ana")

        # Refusals are shown as the CLI words them, and change nothing: a 10 MB answer, a phase with a held block.
        before = repo.snapshot()
        page.js("document.getElementById('compose-content').value = 'x'.repeat(10 * 1024 * 1024)")
        page.js("document.getElementById('compose-to').value = 'executor-001'")
        page.click("#compose button[type=submit]")
        assert "a write takes at most 1048576" in page.acted("send: ")
        page.click("#complete-phase")
        page.wait("document.getElementById('complete-phase').textContent.startsWith('Confirm')")
        page.click("#complete-phase")
        refused = page.acted("complete_phase: ")
        assert f"phase {PHASE} has blocks in progress: 01-01 (recognizer-001, taken)" in refused
        assert page.text("#toasts").count("has blocks in progress") == 1
        assert repo.snapshot() == before

        # The board as the docs show it, at 1440 and 390 px.
        page.js("document.getElementById('toasts').replaceChildren()")
        browser.screenshot(page.session, folder / "serve-board-1440.png", whole=False)
        browser.resize(page.session, 390, 844, mobile=True)
        page.wait("document.documentElement.scrollWidth <= 390")  # stacked: nothing clipped sideways
        browser.screenshot(page.session, folder / "serve-board-390.png", whole=False)
        assert page.js("getComputedStyle(document.querySelector('#agents li .doing')).textOverflow") == "ellipsis"
        browser.resize(page.session, 1440, 1000)

        # guided: an agent's completion waits for the person, who approves it from the header.
        page.click("#board .card[data-block='01-01'] button.release")
        assert page.acted("release_block: ok")
        page.click("#board .card[data-block='01-04'] button.release")
        assert page.acted("release_block: ok")
        browser.select(page.session, "#mode", "guided")
        assert page.acted("set_mode: ok")
        asked = repo.gridgit("phase", "complete", PHASE, agent="mc")
        assert "waits for Master Control's approval" in asked.stdout
        page.wait("document.getElementById('toasts').textContent.includes('asks to complete phase 01-foundation')")
        page.click("#approval button.approve-phase")
        assert page.acted("complete_phase: ok")
        st = state_mod.read(Layout.find(repo.path))
        assert st["position"]["phase_id"] == "02-api" and PHASE in st["phases"]["completed"]
        assert by_mc(repo, "phase_completed")[-1] == {"phase_id": PHASE, "next_phase_id": "02-api", "agent": "mc-ana",
                                                       "approved": True}  # fmt: skip
        page.wait("document.getElementById('phase-line').textContent.startsWith('Phase 2/2: 02-api')")

        # Nothing agents wrote ran or became markup, and the page threw nothing.
        assert page.js("window.__pwned") is None and page.js("document.querySelectorAll('img, b').length") == 0
        assert browser.exceptions(page.session) == []
    print(f"the board at 1440 and 390 px: {folder / 'serve-board-1440.png'}, {folder / 'serve-board-390.png'}")
