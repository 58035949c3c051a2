"""An agent tool's hook payload: reading it, and what it says about where and who (standard library only).

Shared by the hooks' fast path (gridgit.agents.hook), their full path (gridgit.agents.runner),
identity and the status line, so each question has one answer, and none of them costs the
fast path an import.
"""

from __future__ import annotations

import json
import os

from gridgit.agents import capabilities
from gridgit.store import where

MAX_STDIN = 16 * 1024 * 1024  # a Write of a large file carries its content: beyond this, skip
SESSIONS = os.path.join(where.CURSORS_DIR, "sessions")


class Skip(Exception):
    """The payload cannot be used (bad JSON, a missing field): one warning line, nothing written."""


def read_stdin(stream: object) -> bytes:
    """At most MAX_STDIN + 1 bytes of STREAM (stdin's buffer); Skip when there is no payload to read."""
    isatty = getattr(stream, "isatty", None)
    if stream is None or (isatty is not None and isatty()):
        raise Skip("no JSON payload on stdin")
    data: bytes = stream.read(MAX_STDIN + 1)  # type: ignore[attr-defined]
    return data


def parse_payload(data: bytes) -> dict[str, object]:
    """The JSON object in DATA, or Skip."""
    if len(data) > MAX_STDIN:
        raise Skip(f"payload larger than {MAX_STDIN // (1024 * 1024)} MiB: skipped")
    if not data.strip():
        raise Skip("empty payload on stdin")
    try:
        payload = json.loads(data.decode("utf-8", "surrogateescape"))
    except ValueError as exc:
        raise Skip(f"payload is not JSON ({exc})") from None
    if not isinstance(payload, dict):
        raise Skip(f"payload is a JSON {type(payload).__name__}, not an object")
    return payload


def cwd_of(payload: dict[str, object]) -> str:
    """The session's working directory: `cwd`, Cursor's first workspace root, else this process's."""
    roots = payload.get("workspace_roots")
    for value in (payload.get("cwd"), roots[0] if isinstance(roots, list) and roots else None):
        if isinstance(value, str) and value and "\0" not in value:
            if not os.path.isdir(value):
                raise Skip(f"cwd {value!r} in the payload is not a directory")
            return value
    return os.getcwd()


def session_of(tool: str, payload: dict[str, object]) -> str | None:
    """The session id TOOL's payload carries (under the first of its session keys that has one)."""
    for key in capabilities.SESSION_KEYS[tool]:
        value = payload.get(key)
        if isinstance(value, (str, int)) and not isinstance(value, bool) and str(value).strip():
            return str(value)
    return None


def subagent_of(tool: str, payload: dict[str, object]) -> str | None:
    """The sub-agent a payload comes from (`TYPE:ID`, or ID), a session of its own; None for the main agent."""
    keys = capabilities.SUBAGENT_KEYS.get(tool)
    if not keys:
        return None
    value, kind = payload.get(keys[0]), payload.get(keys[1])
    if not isinstance(value, str) or not value:
        return None
    return f"{kind}:{value}" if isinstance(kind, str) and kind else value


def woken(cap: capabilities.Capability, payload: dict[str, object]) -> bool:
    """Whether the payload of CAP's stop event says a stop hook kept the agent going already (the loop guard)."""
    value = payload.get(cap.woken) if cap.woken else None
    return value is True or (isinstance(value, int) and not isinstance(value, bool) and value > 0)


def _escape(text: str) -> str:
    return "".join(c if c.isascii() and (c.isalnum() or c in "-_.") else f"%{ord(c):02x}" for c in text)


def session_file(grid: str, tool: str, session: str, subagent: str | None) -> str:
    """Where a session's state is kept: its agent, messages kept for it, its last heartbeat (machine-local).

    Named after the session itself (escaped), not a hash of it: hashlib alone costs a hook more
    than its fast path does. An id too long for a file name gets its CRC-32 after a prefix.
    """
    name = f"{tool}-{_escape(session)}" + (f"--{_escape(subagent)}" if subagent else "")
    if len(name) > 180:
        import zlib

        name = f"{name[:160]}-{zlib.crc32(name.encode()):08x}"
    return os.path.join(grid, SESSIONS, name + ".json")
