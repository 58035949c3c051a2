"""The scripted story every agent program plays once, covering the tier's scenarios with as few real sessions as it can.

Two agents of one program work at once in one repository, agent A in the main work tree
(`GRID_AGENT_ID=executor-101`, as docs/agent-tools.md shows) and agent B in a linked worktree
(no GRID_AGENT_ID: its identity comes from its session's payload only). Before they start,
executor-900 holds an exclusive claim on src/claimed.py and wrote an entry whose Evidence
names src/app.py. Then, with the scripted model:

- A writes src/app.py (its first request carries the context pack; the edit is attributed);
- B, once A's edit is recorded, writes its own src/app.py: a write conflict, told to B in its
  next request; executor-900 then messages B, which B reads at its next edit and acknowledges
  with the `gridgit ack` command it was told, from its shell;
- A, once B's edit is recorded, is messaged by executor-900 and writes src/util.py: the
  message (and B's conflict) reach it beside that edit's result;
- A writes src/claimed.py (refused: the claim's reason reaches the model), edits the phase
  scratchpad by hand (refused, naming gridgit commands), runs the commands it was named from
  its shell, edits .grid/budget.json by hand (refused), and commits src/app.py and
  src/util.py from its shell;
- A ends its turn with the message unacknowledged: the end hook's "before you stop" reaches
  the model, which answers and stops.

Then A starts a second session, which must not hear the message or the conflict as news again.
"""

from __future__ import annotations

import json
import re
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.conftest import wait_for
from tests.e2e.drivers import DRIVERS
from tests.e2e.modelserver import Request, Step, say
from tests.e2e.session import Run, World

A = "executor-101"
OTHER = "executor-900"
CLAIM_REASON = "rewriting the parser for the release"
TO_A = "Rebase onto main before you commit, the schema moved"
TO_B = "Your copy of src/app.py is stale, pull first"
SCRATCHPAD = ".grid/phases/01-foundation/scratchpad.md"
WAIT = 240.0  # the other agent's program may still be starting on a loaded machine
COMMAND_RE = re.compile(r"`(gridgit [^`]+)`")


def file_modified_by(world: World, path: str, agent: str | None = None, other_than: str | None = None) -> Any:
    """The first hook-recorded `file_modified` of PATH (by AGENT, or by anyone but OTHER_THAN), or None."""
    for event in world.events("file_modified"):
        payload = event["payload"]
        if payload.get("path") != path or payload.get("source") != "agent-hook":
            continue
        if (agent is None or payload.get("agent") == agent) and payload.get("agent") != other_than:
            return event
    return None


def commands_in(requests: list[Request]) -> list[str]:
    """The gridgit commands the last of REQUESTS names (in backticks) that the turn before it did not, each once."""
    turns = [r for r in requests if r.turn]
    new = turns[-1].new_text(turns[-2] if len(turns) > 1 else None) if turns else ""
    return list(dict.fromkeys(COMMAND_RE.findall(new)))


def run_each(commands: list[str]) -> str:
    """One shell line running each command and printing its exit code (`exit=N <command>`)."""
    return "; ".join(f'{c} >/dev/null 2>&1 </dev/null; echo "exit=$? {c}"' for c in commands) or "true"


@dataclass
class Story:
    """The story as one program played it: its repository, A's and B's sessions, A's next session, and who B was."""

    world: World
    a: Run
    b: Run
    a_next: Run
    b_agent: str
    to_a: str  # the id of the message to A
    to_b: str


def play(tool: str, root: Path) -> Story:
    """Play the story with TOOL's real program in ROOT (a temporary folder)."""
    world = World.make(tool, root)
    driver = DRIVERS[tool]()
    world.gridgit("claim", "src/claimed.py", "--exclusive", "--reason", CLAIM_REASON, agent=OTHER)
    world.gridgit("write", "-c", "discovery", "-t", "app", "--content",
                  "The app module holds the settings.\n\nEvidence:\n- File: src/app.py", agent=OTHER)  # fmt: skip
    wt_b = world.worktree("b")
    sent: dict[str, str] = {}

    def b_agent() -> str:
        event = file_modified_by(world, "src/app.py", other_than=A)
        return str(event["payload"]["agent"]) if event else ""

    def after_a_edit(_: list[Request]) -> None:
        wait_for(lambda: file_modified_by(world, "src/app.py", agent=A), timeout=WAIT)

    def message_b(_: list[Request]) -> None:
        out = world.gridgit("send", "--to", b_agent(), "--content", TO_B, "--json", agent=OTHER).stdout
        sent["b"] = json.loads(out)["data"]["id"]

    def ack_as_told(requests: list[Request]) -> Step:
        told = [c for c in commands_in(requests) if c.startswith("gridgit ack ")]
        return driver.shell(run_each(told or ["gridgit ack MISSING"]), label="ack")

    def message_a(_: list[Request]) -> None:
        wait_for(lambda: file_modified_by(world, "src/app.py", other_than=A), timeout=WAIT)
        out = world.gridgit("send", "--to", A, "--content", TO_A, "--json", agent=OTHER).stdout
        sent["a"] = json.loads(out)["data"]["id"]

    def run_told(requests: list[Request]) -> Step:
        return driver.shell(run_each(commands_in(requests)), label="commands")

    scratchpad = world.repo / SCRATCHPAD
    heading = next(
        line for line in scratchpad.read_text(encoding="utf-8").splitlines() if line.startswith("# Phase Scratchpad")
    )
    a_steps = [
        *driver.write(world.repo / "src/app.py", world.repo, "VALUE = 1\n", label="edit"),
        *_before(driver.write(world.repo / "src/util.py", world.repo, "HELP = 'util'\n", label="mid-run"), message_a),
        *driver.write(world.repo / "src/claimed.py", world.repo, "PARSER = None\n", label="claimed"),
        *driver.edit(scratchpad, world.repo, heading, heading + " (edited)", label="scratchpad"),
        Step(before=run_told, label="commands"),
        *driver.edit(
            world.grid / "budget.json", world.repo, '"limit_reached": null', '"limit_reached": true', label="budget"
        ),
        driver.shell(
            "git add src/app.py src/util.py && git commit -q -m 'feat: app and util' && git rev-parse HEAD",
            label="commit",
        ),
        say("The app and util modules are written and committed.", label="stop"),
        say("I have read the message and will rebase before the next commit.", label="after-stop"),
    ]
    b_steps = [
        *_before(driver.write(wt_b / "src/app.py", wt_b, "VALUE = 2\n", label="conflict-edit"), after_a_edit),
        *_before(driver.write(wt_b / "src/b_notes.py", wt_b, "NOTES = []\n", label="b-edit"), message_b),
        Step(before=ack_as_told, label="ack"),
        say("Done with my part.", label="b-stop"),
    ]
    with ThreadPoolExecutor(2) as pool:
        a_future = pool.submit(world.session, a_steps, agent_id=A, label="a")
        b_future = pool.submit(world.session, b_steps, cwd=wt_b, label="b")
        a, b = a_future.result(), b_future.result()
    # a look around first: OpenCode's pack may reach the model only with the session's second request
    a_next = world.session([driver.shell("git status --short", label="look"), say("Nothing new to do.", label="next")],
                           agent_id=A, label="a-next")  # fmt: skip
    return Story(world, a, b, a_next, b_agent(), sent.get("a", ""), sent.get("b", ""))


def _before(steps: list[Step], action: Any) -> list[Step]:
    """STEPS with ACTION run before the first of them is answered."""
    first = steps[0]
    first.before = action
    return steps
