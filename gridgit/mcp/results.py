"""A tool's answer: its structured content and the text form older clients read; on failure the CLI's error code,
exit status and message.

Every tool is wrapped by `answer`, the MCP server's one error boundary: the library's
GridError (and the operating system's PermissionError) become an `is_error` result whose
text is `{"error": {"code", "exit_code", "message"}}` with what `gridgit` would have
printed and exited with, the CLI's flags in the message named as the tool's arguments;
anything else is a crash the SDK reports as such.

A tool returns a dict, its `structuredContent` (spec 2025-11-25, server/tools, "Structured
Content"). The text content beside it, for clients that read text only, is the dict as
compact JSON, or its `text` (markdown) when it has one.
"""

from __future__ import annotations

import functools
import inspect
import json
import logging
import re
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


def grid_failure(exc: GridError, names: dict[str, str] | None = None) -> CallToolResult:
    """EXC as an error result, the CLI flags in its message (`--ttl`) named as in NAMES (flag -> argument)."""
    message = str(exc)
    if names:
        # A command the message tells the model to run (`gridgit phase start X --agent mc`) runs in a
        # shell, so its flags stay as the CLI spells them; only the tool's own flags are renamed.
        parts = _COMMAND.split(message)
        message = "".join(
            part if part.startswith("`gridgit ") else _FLAG.sub(lambda m: names.get(m.group(0), m.group(0)), part)
            for part in parts
        )
    return failure(exc.code, exc.exit_code, message)


_FLAG = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")
_COMMAND = re.compile(r"(`gridgit [^`]*`)")


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


def _success(data: dict[str, Any], warnings: list[str]) -> CallToolResult:
    structured = redaction.redact_obj({**data, "warnings": warnings} if warnings else data)
    if isinstance(structured.get("text"), str):
        text = "\n".join([structured["text"], *warnings])
    else:
        text = compact(structured)
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=structured)


def answer(func: F, flags: dict[str, str] | None = None) -> F:
    """Run FUNC as a tool: its dict as the answer (with the warnings logged meanwhile), a GridError as an error result.

    FLAGS: CLI flag -> FUNC's argument, for the flags the library's messages name; `--tokens-in` is
    `tokens_in` wherever FUNC has that argument.
    """
    arguments = [p for p in inspect.signature(func).parameters if p != "self"]
    names = {"--" + a.replace("_", "-"): a for a in arguments} | (flags or {})

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> CallToolResult:
        warnings: list[str] = []
        _warnings.local.found = warnings
        try:
            return _success(func(*args, **kwargs), warnings)
        except GridError as exc:
            return grid_failure(exc, names)
        except PermissionError as exc:
            return grid_failure(permission_denied(exc))
        finally:
            _warnings.local.found = None

    return wrapper  # type: ignore[return-value]
