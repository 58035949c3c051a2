"""The entry point of every agent-tool hook (`gridgit agent-hook TOOL EVENT`) and its fast path.

Agent tools run a hook on every prompt and every edit of every agent, so what costs nothing
when there is nothing to say is decided here, with the standard library, the capability
table and `inboxpeek` only (no pathlib, no YAML, none of gridgit's other modules):

- prompt: nothing is kept for the session, the agent's inbox cursor holds nothing back and no
  unacknowledged message, the event log holds nothing since the cursor but the agent's own
  doings (gridgit.events.own: never in its own inbox), and no box the agent reads changed
  since the cursor moved (a message synced from another clone has no event);
- before-edit: no live claim anywhere, and the payload does not mention `.grid`;
- end: this session sent a heartbeat less than HEARTBEAT_SECONDS ago, no stop hook is
  keeping it going (the session's `waking`), its transcript (`transcript_path`) has not grown
  since its usage was last counted for the budget, and where the tool's stop event can keep the agent
  going, no message told to the agent waits unacknowledged (its inbox cursor) and none reached
  its boxes since (a message arriving or acknowledged renames a file into its box, which moves
  the box's time).

Whatever the event, a HEAD reflog that grew since the last look (a commit that may have skipped
git's hooks, gridgit.git.missed) sends it down the full path, which records that commit.

Anything else, or anything unexpected, goes to gridgit.agents.runner, which does the work and
fails open. The fast path reads files only; it never writes.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import time

from gridgit.agents import capabilities
from gridgit.agents.inboxpeek import inbox_quiet, mail_since, read_json
from gridgit.agents.payload import cwd_of, parse_payload, read_stdin, session_file, session_of, subagent_of
from gridgit.git import missed
from gridgit.store import where

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import NoReturn

HEARTBEAT_SECONDS = 60.0  # staleness is measured in minutes: one heartbeat a minute per session is plenty


def _grid(payload: dict[str, object]) -> str | None:
    """The Blackboard's folder when the file system alone can tell (no GRID_DIR, no `git config grid.dir`)
    and no commit skipped git's hooks since the last look (gridgit.git.missed: the full path records it)."""
    if os.environ.get("GRID_DIR"):
        return None
    found = where.find(cwd_of(payload))
    if found is None or found.configured() or missed.moved(found.common):
        return None
    grid = os.path.join(found.main_root, where.GRID_DIRNAME)
    return grid if os.path.isfile(os.path.join(grid, "STATE.md")) else None


def _session(grid: str, tool: str, payload: dict[str, object]) -> dict[str, object] | None:
    session = session_of(tool, payload)
    if session is None:
        return None
    state = read_json(session_file(grid, tool, session, subagent_of(tool, payload)))
    agent = state.get("agent_id") if state else None
    if state is None or not isinstance(agent, str) or os.environ.get("GRID_AGENT_ID", agent) != agent:
        return None
    return state


def _no_live_claims(grid: str) -> bool:
    try:
        with open(os.path.join(grid, where.CLAIMS), "rb") as handle:
            claims = json.loads(handle.read() or b"{}").get("claims") or []
    except FileNotFoundError:
        return True
    now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    return not any(str(claim.get("expires_at", "")) > now and not claim.get("released_at") for claim in claims)


def _transcript_grew(path: object, counted: object) -> bool:
    """Whether the transcript at PATH (the payload's `transcript_path`) holds more than COUNTED bytes."""
    if not isinstance(path, str) or not path:
        return False
    try:
        return os.stat(path).st_size > (counted if isinstance(counted, int) else 0)
    except (OSError, ValueError):
        return False


def quiet(tool: str, event: str, data: bytes) -> bool:
    """Whether EVENT of TOOL, with stdin DATA, has nothing to say and nothing to do (see the module's docstring)."""
    if event not in ("prompt", "before-edit", "end"):
        return False
    payload = parse_payload(data)
    grid = _grid(payload)
    if grid is None:
        return False
    if event == "before-edit":
        return b".grid" not in data and _no_live_claims(grid)
    state = _session(grid, tool, payload)
    if state is None:
        return False
    agent = state["agent_id"]
    if event == "end":
        beat = state.get("beat")
        if not isinstance(beat, (int, float)) or not 0 <= time.time() - beat < HEARTBEAT_SECONDS or state.get("waking"):
            return False
        if _transcript_grew(payload.get("transcript_path"), state.get("transcript_bytes")):
            return False  # usage to count for the budget (gridgit.work.transcript)
        cap = capabilities.get(tool, event)
        if cap is None or not cap.decisions:
            return True
        cursor = read_json(os.path.join(grid, where.INBOX_CURSORS, f"{agent}.json")) or {}
        from gridgit.coordination.ledger import waiting_messages  # only a stop that may keep the agent going

        return not waiting_messages(cursor.get("told")) and not mail_since(grid, str(agent), beat)
    return not state.get("pending") and isinstance(agent, str) and inbox_quiet(grid, agent)


def main(argv: list[str]) -> int:
    """Run hook TOOL EVENT (ARGV) on stdin's payload; print the tool's answer; the exit code for the tool."""
    if argv[:1] == ["statusline"]:
        from gridgit.agents import statusline

        return statusline.main(argv[1:])
    cap = capabilities.get(argv[0], argv[1]) if len(argv) == 2 else None
    data: bytes | None = None
    if cap is not None:
        if os.environ.get("GRIDGIT_SKIP") == "1":
            sys.stdout.write(cap.silent)
            return 0
        try:
            data = read_stdin(getattr(sys.stdin, "buffer", None))
            if quiet(cap.tool, cap.event, data):
                sys.stdout.write(cap.silent)
                return 0
        except Exception:
            pass  # whatever the fast path trips on, the full path decides (and warns)
    from gridgit.agents import runner

    return runner.main(argv, data)


def run(argv: list[str]) -> NoReturn:
    """main(ARGV), then exit at once with its code: the answer flushed, the interpreter not torn down.

    Tearing down what a full-path hook loaded (clearing some 50 modules, a last garbage
    collection) costs about 6 ms of a hook's 40, on every prompt and edit. A hook has nothing
    left to finish by then: each file it wrote is closed, its locks end with the process, and
    no thread of its must outlive main() (a lock waiter it gave up on is abandoned by design).
    """
    for name in ("stdout", "stderr"):
        if getattr(sys, name) is None:  # started with the descriptor closed: nobody reads it, and no write may fail
            setattr(sys, name, open(os.devnull, "w", encoding="utf-8"))  # noqa: SIM115 - it lives as long as the process
    try:
        code = main(argv)
    except BrokenPipeError:  # the tool stopped reading before the answer (written last): nobody to tell
        code = 0
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # the tool closed the pipe: nobody reads the answer
            stream.flush()
    os._exit(code)
