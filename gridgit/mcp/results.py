"""A tool's answer: compact JSON (or text) on success; on failure the CLI's error code, exit status and message.

Every tool is wrapped by `answer`, the MCP server's one error boundary: the library's
GridError (and the operating system's PermissionError) become an `is_error` result whose
text is `{"error": {"code", "exit_code", "message"}}` with what `gridgit` would have
printed and exited with; anything else is a crash the SDK reports as such.
"""

from __future__ import annotations

import functools
import json
import logging
import threading
from collections.abc import Callable
from typing import Any, TypeVar

from mcp.types import CallToolResult, TextContent

from gridgit.errors import GridError, permission_denied
from gridgit.store import redaction

F = TypeVar("F", bound=Callable[..., Any])

# What the CLI answers for a bad argument (click's usage errors): an unknown tool, a missing
# or mistyped argument are the MCP client's usage errors.
USAGE_CODE, USAGE_EXIT = "usage", 2


def compact(data: Any) -> str:
    """DATA as JSON without spaces (every byte of a result is context the model pays for), secrets redacted.

    Answers quote .grid/ files, where a person may have typed a secret no write path redacted.
    """
    return json.dumps(redaction.redact_obj(data), ensure_ascii=False, separators=(",", ":"), default=str)


def error_text(code: str, exit_code: int, message: str) -> str:
    return compact({"error": {"code": code, "exit_code": exit_code, "message": message}})


def failure(code: str, exit_code: int, message: str) -> CallToolResult:
    """An error result (the call failed; the server goes on)."""
    return CallToolResult(content=[TextContent(type="text", text=error_text(code, exit_code, message))], is_error=True)


def grid_failure(exc: GridError) -> CallToolResult:
    return failure(exc.code, exc.exit_code, str(exc))


class _Warnings(logging.Handler):
    """The warnings the library logs during one call (the CLI prints them on stderr), to hand back with its answer.

    Kept per thread: the SDK runs each call of a sync tool on a worker thread of its own.
    """

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.local = threading.local()

    def emit(self, record: logging.LogRecord) -> None:
        found = getattr(self.local, "found", None)
        if found is not None:
            found.append(record.getMessage())


_warnings = _Warnings()
logging.getLogger("gridgit").addHandler(_warnings)


def _success(data: Any, warnings: list[str]) -> CallToolResult:
    if isinstance(data, str):
        text = redaction.redact("\n".join([data, *warnings]))
    else:
        text = compact({**data, "warnings": warnings} if warnings and isinstance(data, dict) else data)
    return CallToolResult(content=[TextContent(type="text", text=text)])


def answer(func: F) -> F:
    """Run FUNC as a tool: its value as the answer (with the warnings logged meanwhile), a GridError as an error result."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> CallToolResult:
        warnings: list[str] = []
        _warnings.local.found = warnings
        try:
            return _success(func(*args, **kwargs), warnings)
        except GridError as exc:
            return grid_failure(exc)
        except PermissionError as exc:
            return grid_failure(permission_denied(exc))
        finally:
            _warnings.local.found = None

    return wrapper  # type: ignore[return-value]
