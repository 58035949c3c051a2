"""The one entry point of every agent-tool hook: `python -m gridgit.agents TOOL EVENT`.

It reads the tool's JSON from stdin, finds the repository from the payload's working
directory, works out the agent and runs gridgit's EVENT (gridgit.agents.handlers), then
answers in the tool's format. It fails open like the git hooks (DESIGN.md): bad or huge
stdin, an unknown tool or event, missing fields, a crash or a run past
`hooks.timeout_seconds` print one warning line on stderr and exit 0; a payload found bad
writes nothing. Without click, and YAML only where an event needs STATE.
"""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path
from typing import Any

from gridgit.agents.tool import EVENTS, Reply, Skip, Tool, load, read_payload
from gridgit.errors import GridError

DEFAULT_BUDGET = 10.0


class _OutOfTime(BaseException):
    """Raised by the alarm; a BaseException so no `except Exception` on the way swallows it."""


def warn(message: str) -> None:
    first = (message.splitlines() or [""])[0]
    sys.stderr.write(f"gridgit: {first}\n")


def cwd_of(payload: dict[str, Any]) -> Path:
    """The session's working directory: `cwd`, Cursor's first workspace root, else this process's."""
    roots = payload.get("workspace_roots")
    candidates = [payload.get("cwd"), roots[0] if isinstance(roots, list) and roots else None]
    for value in candidates:
        if isinstance(value, str) and value and "\0" not in value:
            path = Path(value)
            if not path.is_dir():
                raise Skip(f"cwd {value!r} in the payload is not a directory")
            return path
    return Path.cwd()


def _arm(seconds: float) -> None:
    if hasattr(signal, "SIGALRM") and seconds > 0:
        signal.signal(signal.SIGALRM, _alarm)
        signal.setitimer(signal.ITIMER_REAL, seconds)


def _alarm(signum: int, frame: Any) -> None:
    raise _OutOfTime()


def run(tool: Tool, event: str, payload: dict[str, Any]) -> Reply:
    from gridgit.agents import handlers, identity
    from gridgit.store import config as config_mod
    from gridgit.store.layout import Layout

    cwd = cwd_of(payload)
    try:
        layout = Layout.find(cwd)
    except GridError:
        raise Skip(f"{cwd} is not inside a git repository") from None
    if not layout.state.exists():
        return Reply()  # a repository without a Blackboard: nothing to do, nothing to say
    config = config_mod.load(layout)
    budget = (config.get("hooks") or {}).get("timeout_seconds")
    if isinstance(budget, (int, float)) and not isinstance(budget, bool):
        _arm(float(budget))
    found: list[handlers.Change] = []
    if event in ("before-edit", "after-edit"):
        edits = tool.edits(payload)
        if not edits:
            raise Skip(f"{tool.name} {event}: no file path in the payload's tool input")
        found = handlers.changes(layout, cwd, edits)
        if not found:
            return Reply()  # every file is outside the repository
    ident = identity.resolve(layout, tool, payload, create=event != "before-edit")
    if event == "before-edit":
        return handlers.before_edit(layout, ident, found, config)
    if event == "session-start":
        reply, warning = handlers.session_start(layout, ident, tool.context_limit)
        if warning:
            warn(warning)
        return reply
    if ident.new:
        warning = handlers.register(layout, ident)
        if warning:
            warn(warning)
    if event == "after-edit":
        return handlers.after_edit(layout, ident, tool.name, found, tool.tells_after_edit)
    if event == "prompt":
        return handlers.prompt(layout, ident)
    return handlers.end(layout, ident, payload.get("transcript_path"))


def main(argv: list[str]) -> int:
    """Run hook TOOL EVENT (ARGV) on stdin's payload; print the tool's answer; the exit code for the tool."""
    if argv[:1] == ["statusline"]:
        from gridgit.agents import statusline

        return statusline.main(argv[1:])
    try:
        tool = load(argv[0] if argv else "")
    except Skip as exc:
        warn(f"agent hook skipped: {exc}")
        return 0
    if len(argv) != 2 or argv[1] not in EVENTS:
        warn(f"agent hook skipped: expected `{tool.name} EVENT` with EVENT one of {', '.join(EVENTS)}")
        sys.stdout.write(tool.silent)
        return 0
    event = argv[1]
    out, code = tool.silent, 0
    if os.environ.get("GRIDGIT_SKIP") == "1":
        sys.stdout.write(out)
        return 0
    _arm(DEFAULT_BUDGET)
    try:
        reply = run(tool, event, read_payload(getattr(sys.stdin, "buffer", None)))
        out, code = tool.render(event, reply)
        out = out or tool.silent
    except Skip as exc:
        warn(f"{tool.name} {event} hook skipped: {exc}")
    except _OutOfTime:
        warn(f"{tool.name} {event} hook stopped: past its time budget (hooks.timeout_seconds); the agent proceeds")
    except Exception as exc:
        detail = str(exc) or type(exc).__name__
        warn(f"{tool.name} {event} hook failed ({detail}); the agent proceeds")
    finally:
        if hasattr(signal, "SIGALRM"):
            signal.setitimer(signal.ITIMER_REAL, 0)
    sys.stdout.write(out)
    return code
