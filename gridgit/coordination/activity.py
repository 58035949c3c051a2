"""Liveness from activity: any sign of work by an agent counts as its heartbeat, recorded cheaply.

The scratchpad protocol's heartbeat triggers (6.2: a file written, a commit made, a timer while
it runs) without an agent having to remember them: a scratchpad write, a touched file (`gridgit
touch`, an agent tool's edit, a watched or committed change), a take, a commit and every hook of
the agent's tool call `record`. It keeps the agent's latest sign in one small file of its own,
`.grid/activity/<agent>.json` (`{"agent", "at", "t", "what", "session", "stamped"}`), replaced
atomically without an fsync: a sign lost to a power cut costs nothing, the next one rewrites it.
While the agent's tool runs hooks in a burst (edits seconds apart), a sign within RECORD_SECONDS
of the last one is only read, not written again.
No scratchpad entry per sign (an explicit `gridgit heartbeat` still writes one), and STATE's
`agents.active[].last_heartbeat` is stamped from it at most every STAMP_SECONDS per agent: a STATE
write per hook would be a locked YAML rewrite (and, with auto-sync, a push) per edit.

The timer: a hook of an agent tool also records the tool's process (pid, start time, the
machine's boot id). While that process runs, the agent counts as at work until
`heartbeat.session_minutes` after its last sign, so one long tool call (a test run, a build)
hands its block to nobody; once the tool exits (a crash, a closed terminal) the agent goes
stale as before. The readers of staleness apply it (gridgit.coordination.heartbeat): no daemon
needed. Linux only (it reads /proc); elsewhere the last sign alone counts.

Bounded (one file per agent, its latest sign) and machine-local (`.grid/.gitignore`); shaped to
travel between clones as it is, the newest `at` of an agent winning.

Only the standard library at import: an agent hook imports this on its path.
"""

from __future__ import annotations

import json
import os
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from gridgit.store.layout import Layout

STAMP_SECONDS = 300.0  # STATE's last_heartbeat is at most this far behind (the spec's 5-minute timer)
RECORD_SECONDS = 15.0  # a hook's sign this soon after the last one of a session is not written again
# Who signs no work of their own: gridgit's workflows, and a change nobody could be named for.
_NOBODY = ("system", "unknown")
# Between an agent tool and its hook there may be the shell that ran the hook's command.
_SHELLS = ("sh", "bash", "dash", "zsh", "ksh", "fish", "cmd", "pwsh")
_FORMAT = "%Y-%m-%dT%H:%M:%SZ"


def path(layout: Layout, agent_id: str) -> str:
    return os.path.join(layout.grid, "activity", f"{agent_id}.json")


def _now() -> float:
    """The time as gridgit sees it: GRIDGIT_NOW when pinned (tests, reproducible runs)."""
    pinned = os.environ.get("GRIDGIT_NOW")
    if pinned:
        from gridgit.store import clock

        return clock.now().timestamp()
    return time.time()


def _iso(seconds: float) -> str:
    return time.strftime(_FORMAT, time.gmtime(seconds))


def read(layout: Layout, agent_id: str) -> dict[str, Any] | None:
    """AGENT_ID's activity record, or None (none yet, or one that does not read: it is rewritten)."""
    try:
        with open(path(layout, agent_id), "rb") as handle:
            found = json.loads(handle.read())
    except (OSError, ValueError):
        return None
    return found if isinstance(found, dict) and isinstance(found.get("at"), str) else None


def record(layout: Layout, agent_id: str, what: str, session: bool = False) -> None:
    """AGENT_ID showed a sign of work (WHAT: `write`, `touch`, `take`, `commit`, `hook after-edit`, ...).

    SESSION: it came from a hook of the agent's tool, whose process is recorded (see the module).
    Never fails its caller: a sign that cannot be recorded is left for the next one.
    """
    if agent_id in _NOBODY or not agent_id or "/" in agent_id or agent_id.startswith("."):
        return
    now = _now()
    before = read(layout, agent_id)
    last = before.get("t") if before else None
    if isinstance(last, (int, float)) and 0 <= now - last < RECORD_SECONDS and (before or {}).get("session"):
        return  # a sign seconds ago is as good: staleness counts minutes (and an edit hook stays one read)
    # An agent's first sign starts its STATE-stamp clock: what it comes with (a registration, a take)
    # has just written STATE, and the readers of staleness read this file anyway.
    stamped = before.get("stamped") if before else now
    stamp = not isinstance(stamped, (int, float)) or not 0 <= now - stamped < STAMP_SECONDS
    entry: dict[str, Any] = {"agent": agent_id, "at": _iso(now), "t": now, "what": what,
                             "session": _tool_process() if session else (before or {}).get("session"),
                             "stamped": now if stamp else stamped}  # fmt: skip
    try:
        _write(path(layout, agent_id), json.dumps(entry, separators=(",", ":")))
    except OSError:
        return
    if stamp:
        _stamp_state(layout, agent_id, entry["at"], what)


def _write(target: str, text: str) -> None:
    """Replace TARGET with TEXT atomically, without an fsync (a machine-local file, rewritten on every sign)."""
    folder = os.path.dirname(target)
    os.makedirs(folder, exist_ok=True)
    tmp = f"{target}.{os.getpid()}.{time.monotonic_ns()}.tmp"
    with open(tmp, "w", encoding="utf-8") as handle:
        handle.write(text)
    os.replace(tmp, target)


def stamp(layout: Layout, agent_id: str, timestamp: str, action: str = "heartbeat") -> bool:
    """STATE `agents.active[].last_heartbeat` of a registered AGENT_ID := TIMESTAMP; False when not registered.

    gridgit's bookkeeping on the agent's behalf: any agent type may stamp its own heartbeat.
    """
    from gridgit.model import state, state_lists

    def change(st: dict[str, Any]) -> dict[str, Any]:
        found = [a for a in state_lists.current_list(st, "agents.active") if state_lists.item_id(a) == agent_id]
        if not found or not isinstance(found[0], dict) or found[0].get("last_heartbeat") == timestamp:
            return {}
        fields = {"id": agent_id, "last_heartbeat": timestamp}
        return state_lists.updates_for(st, [state_lists.ListChange.update("agents.active", fields)])

    return state.update_with(layout, change, agent_id, action, check_permission=False) is not None


def _stamp_state(layout: Layout, agent_id: str, at: str, what: str) -> None:
    """stamp, from a sign of work: a failure is a warning, never the caller's."""
    from gridgit.errors import GridError

    try:
        stamp(layout, agent_id, at, f"heartbeat ({what})")
    except GridError as exc:
        from gridgit.store import notices

        notices.warn("gridgit.coordination.activity", f"gridgit: warning: {agent_id}'s heartbeat not stamped ({exc})")


def seen(layout: Layout, agent_id: str, session_minutes: float) -> str | None:
    """When AGENT_ID last showed a sign of work (ISO 8601), or None: now while the agent tool of its
    last hook still runs and its last sign is less than SESSION_MINUTES old."""
    found = read(layout, agent_id)
    if found is None:
        return None
    at = str(found["at"])
    session = found.get("session")
    if isinstance(session, dict) and _running(session):
        from gridgit.store import clock

        now = _now()
        try:
            last = clock.parse(at).timestamp()
        except ValueError:
            return at
        if now - last < session_minutes * 60:
            return _iso(now)
    return at


# ---- the agent tool's process (Linux: /proc) ---------------------------------------------------


def _proc_stat(pid: int) -> tuple[str, int, int] | None:
    """(command name, parent pid, start time in clock ticks since boot) of process PID, or None."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            text = handle.read().decode("utf-8", "replace")
    except OSError:
        return None
    name, _, rest = text[text.find("(") + 1 :].rpartition(")")
    fields = rest.split()
    try:
        return name, int(fields[1]), int(fields[19])
    except (IndexError, ValueError):
        return None


def _boot_id() -> str | None:
    try:
        with open("/proc/sys/kernel/random/boot_id", "rb") as handle:  # bytes: no codec to import on a hook's path
            return handle.read().decode("utf-8", "replace").strip() or None
    except OSError:
        return None


def _tool_process() -> dict[str, Any] | None:
    """The agent tool that ran this hook: the parent process, past a shell that ran the hook's command."""
    boot = _boot_id()
    pid = os.getppid()
    for _ in range(2):
        found = _proc_stat(pid) if boot else None
        if found is None:
            return None
        name, parent, started = found
        if name not in _SHELLS:
            return {"pid": pid, "started": started, "boot": boot}
        pid = parent
    return None


def _running(session: dict[str, Any]) -> bool:
    """Whether the process SESSION names is still the one that ran (same boot, same start time)."""
    pid = session.get("pid")
    if not isinstance(pid, int) or session.get("boot") != _boot_id():
        return False
    found = _proc_stat(pid)
    return found is not None and found[2] == session.get("started")
