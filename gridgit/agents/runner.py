"""The full path of an agent-tool hook, when its fast path (gridgit.agents.hook) cannot answer.

It finds the repository from the payload's working directory, works out the agent, runs
gridgit's EVENT (gridgit.agents.handlers) and answers in the tool's channels
(gridgit.agents.answer). It fails open like the git hooks (DESIGN.md): bad or huge stdin, an
unknown tool or event, missing fields, a crash or a run past `hooks.timeout_seconds` print one
warning line on stderr and exit 0; a payload found bad writes nothing. Without click, and
YAML only where an event needs STATE.
"""

from __future__ import annotations

import signal
import sys
from pathlib import Path

from gridgit.agents import capabilities
from gridgit.agents.answer import Reply, render
from gridgit.agents.capabilities import EVENTS, Capability
from gridgit.agents.payload import Skip, cwd_of, parse_payload, read_stdin, woken
from gridgit.agents.tool import Tool, load
from gridgit.errors import GridError
from gridgit.store import commandline, environment

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

DEFAULT_BUDGET = 10.0


class _OutOfTime(BaseException):
    """Raised by the alarm; a BaseException so no `except Exception` on the way swallows it."""


def warn(message: str) -> None:
    first = (message.splitlines() or [""])[0]
    sys.stderr.write(f"gridgit: {first}\n")


def _arm(seconds: float) -> None:
    if hasattr(signal, "SIGALRM") and seconds > 0:
        signal.signal(signal.SIGALRM, _alarm)
        signal.setitimer(signal.ITIMER_REAL, seconds)


def _alarm(signum: int, frame: Any) -> None:
    raise _OutOfTime()


def _missed_commits(layout: Any) -> None:
    """Commits made since the last look without git's hooks (gridgit.git.missed), recorded in the background."""
    from gridgit.git import missed

    if not missed.moved(str(layout.git_common)):
        return
    from gridgit.git import recording  # only now: it imports typing, which a hook's path does without

    try:
        recording.record_soon(layout)
    except (GridError, OSError) as exc:  # the agent's event is handled whatever the reflogs say
        warn(f"commits made without git's hooks not recorded yet ({exc})")


def run(tool: Tool, cap: Capability, payload: dict[str, Any]) -> Reply:
    from gridgit.agents import handlers, identity
    from gridgit.store import config as config_mod
    from gridgit.store.layout import Layout

    cwd = Path(cwd_of(payload))
    try:
        layout = Layout.find(cwd)
    except GridError:
        raise Skip(f"{cwd} is not inside a git repository") from None
    if not layout.state.exists():
        return Reply()  # a repository without a Blackboard: nothing to do, nothing to say
    config = config_mod.current(layout)  # read-only: one parse per process, shared
    budget = config["hooks"]["timeout_seconds"]
    _arm(float(budget))
    _missed_commits(layout)
    if (config.get("sync") or {}).get("auto") is True:  # imported only where a team turned auto-sync on
        from gridgit.history import autosync

        autosync.tick(layout, config)
    found = handlers.Changes([], [])
    if cap.event in ("before-edit", "after-edit"):
        edits = tool.edits(payload)
        if not edits:
            raise Skip(f"{tool.name} {cap.event}: no file path in the payload's tool input")
        found = handlers.changes(layout, cwd, edits)
        if not found.changes and not found.grid:
            return Reply()  # every file is outside the repository
    ident = identity.resolve(layout, tool.name, payload, create=cap.event != "before-edit")
    # The commands told to the model name the agent where its shell may not know it (gridgit.store.commandline).
    commandline.speaking_for(None if ident.from_env else ident.agent_id)
    from gridgit.coordination import activity

    activity.record(layout, ident.agent_id, f"hook {cap.event}", session=True)  # a hook is a sign of work
    if cap.event == "before-edit":
        return handlers.before_edit(layout, ident, found, config, cap)
    if cap.event == "session-start":
        reply, warning = handlers.session_start(layout, ident, tool.context_limit)
        if warning:
            warn(warning)
        return reply
    if ident.new:
        warning = handlers.register(layout, ident)
        if warning:
            warn(warning)
    if cap.event == "prompt":
        return Reply(context=handlers.news(layout, ident, "prompt"))
    if cap.event == "end":
        return handlers.end(layout, ident, cap, woken(cap, payload), payload.get("transcript_path"))
    told = handlers.after_edit(layout, ident, tool.name, found)
    if capabilities.get(tool.name, "prompt") is None:
        # No event of the tool runs before each prompt with a way to add context: what is new for
        # the agent rides on its edits (Cursor's postToolUse), each event once.
        return Reply(context=handlers.news(layout, ident, "after-edit", told))
    if not cap.adds_context:
        for message in told:  # said at the session's next answer that reaches the model
            identity.add_pending(ident, message)
        return Reply()
    # The urgent part of the inbox is told mid-turn, beside (never instead of) the tool's result.
    return Reply(context="\n".join([*told, *handlers.urgent(layout, ident)]))


def main(argv: list[str], data: bytes | None = None) -> int:
    """Run hook TOOL EVENT (ARGV) on the payload (DATA, else stdin); print the tool's answer; the exit code."""
    try:
        tool = load(argv[0] if argv else "")
    except Skip as exc:
        warn(f"agent hook skipped: {exc}")
        return 0
    cap = capabilities.get(tool.name, argv[1]) if len(argv) == 2 else None
    if cap is None:
        events = ", ".join(e for e in EVENTS if capabilities.get(tool.name, e) is not None)
        warn(f"agent hook skipped: expected `{tool.name} EVENT` with EVENT one of {events}")
        sys.stdout.write("{}" if capabilities.of(tool.name)[0].silent else "")
        return 0
    out = cap.silent
    if environment.hooks_skipped(warn):
        sys.stdout.write(out)
        return 0
    _arm(DEFAULT_BUDGET)
    try:
        payload = parse_payload(data if data is not None else read_stdin(getattr(sys.stdin, "buffer", None)))
        out = render(cap, run(tool, cap, payload))
    except Skip as exc:
        warn(f"{tool.name} {cap.event} hook skipped: {exc}")
    except _OutOfTime:
        warn(f"{tool.name} {cap.event} hook stopped: past its time budget (hooks.timeout_seconds); the agent proceeds")
    except Exception as exc:
        detail = str(exc) or type(exc).__name__
        warn(f"{tool.name} {cap.event} hook failed ({detail}); the agent proceeds")
    finally:
        if hasattr(signal, "SIGALRM"):
            signal.setitimer(signal.ITIMER_REAL, 0)
    sys.stdout.write(out)
    return 0
