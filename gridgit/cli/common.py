"""Options shared by every command, defined once, and the one way commands print."""

from __future__ import annotations

import functools
import importlib
import json
import sys
from collections.abc import Callable
from typing import Any, TypeVar

import click

F = TypeVar("F", bound=Callable[..., Any])

# Set when a command's --json flag is parsed, so the error boundary in main.py answers in
# the same envelope (a plain "--json" in argv may be another option's value).
json_mode = False


def _set_json_mode(ctx: click.Context, param: click.Parameter, value: bool) -> bool:
    global json_mode
    json_mode = json_mode or value
    return value


def completes(kind: str) -> Any:
    """The shell_complete of gridgit.cli.completion's KIND (phases, agents, blocks, entries, messages), imported
    only when the shell asks: the commands' start-up stays as it was."""

    def complete(ctx: click.Context, param: click.Parameter, incomplete: str) -> Any:
        from gridgit.cli import completion

        return getattr(completion, kind)(ctx, param, incomplete)

    return complete


json_option = click.option(
    "--json", "as_json", is_flag=True, callback=_set_json_mode, help="Print a JSON envelope for programs."
)
agent_option = click.option(
    "--agent",
    "agent",
    envvar="GRID_AGENT_ID",
    default=None,
    metavar="ID",
    help="Agent id, {type}-{id} such as executor-001, or mc (default: $GRID_AGENT_ID).",
    shell_complete=completes("agents"),
)
phase_option = click.option(
    "--phase",
    "phase",
    default=None,
    help="Phase id (default: STATE's current phase).",
    shell_complete=completes("phases"),
)


class FloatRange(click.FloatRange):
    """click's FloatRange without nan and infinity, which every comparison with a bound lets through."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        number = super().convert(value, param, ctx)
        if number != number or number in (float("inf"), float("-inf")):
            self.fail(f"{value!r} is not a finite number.", param, ctx)
        return number


class _Count(click.IntRange):
    """click's IntRange from a minimum up, refusing what no list can be as long as (over sys.maxsize), which reached
    `itertools.islice` and a traceback."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        number = super().convert(value, param, ctx)
        if number > sys.maxsize:
            self.fail(f"{number} is too large (at most {sys.maxsize}).", param, ctx)
        return number


def count(minimum: int) -> click.IntRange:
    """A whole number of MINIMUM or more, a usage error (2) when it is out of range."""
    return _Count(min=minimum)


def with_part(module: str, name: str) -> Callable[[F], F]:
    """Pass the API object NAME of MODULE for the current directory as the first argument.

    The Blackboard, or one of its parts (a mixin over api.base.BoardBase): a command that
    uses one concern does not import the other seven (~1.5 ms of `gridgit write`'s start-up).
    """

    def decorate(func: F) -> F:
        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            part = getattr(importlib.import_module(module), name)
            return func(part(), *args, **kwargs)

        return wrapper  # type: ignore[return-value]

    return decorate


with_board = with_part("gridgit.blackboard", "Blackboard")


def to_jsonable(data: Any) -> Any:
    """Dataclasses and objects with to_dict() become plain JSON values."""
    if hasattr(data, "to_dict"):
        return to_jsonable(data.to_dict())
    if isinstance(data, dict):
        return {str(k): to_jsonable(v) for k, v in data.items()}
    if isinstance(data, (list, tuple)):
        return [to_jsonable(v) for v in data]
    return data


def envelope(data: Any) -> dict[str, Any]:
    """The --json answer around DATA (the web view's API answers in it too)."""
    return {"schema_version": 1, "ok": True, "data": to_jsonable(data)}


def error_envelope(code: str, message: str) -> dict[str, Any]:
    """The --json answer of an error: CODE is the GridError's `code`, MESSAGE its one line."""
    return {"schema_version": 1, "ok": False, "error": {"code": code, "message": message}}


def output(data: Any, as_json: bool, human: Callable[[Any], str] | str | None = None) -> None:
    """Print DATA as the --json envelope, or as HUMAN text."""
    from gridgit.store import redaction, usertext

    # Text read back from .grid/ may hold what a hand edit put there: redacted on the way out
    # too, and made safe for a terminal (no escape sequences, no control characters).
    if as_json:
        click.echo(json.dumps(redaction.redact_obj(envelope(data)), ensure_ascii=False, default=str))
        return
    text = human(data) if callable(human) else human
    if text:
        click.echo(usertext.for_terminal(text))


def published_lines(result: Any, confirmed: str, rule: str) -> list[str]:
    """Where a published record (a take, an exclusive claim: gridgit.history.publish) stands, for a person:
    confirmed on the remote (CONFIRMED says what that settles), or provisional and why (RULE: who wins)."""
    if result.pushed:
        return [f"  confirmed on the remote: {confirmed}"]
    if result.provisional:
        return [f"  PROVISIONAL: not confirmed on the remote ({result.reason}); the next `gridgit sync` settles it, "
                f"and {rule}"]  # fmt: skip
    return []


def until_interrupted() -> None:
    """Before following a stream until stopped: Ctrl-C and SIGTERM both end it, exit 130.

    Both handlers are set here, not inherited: a process started with SIGINT ignored (by a
    job runner, a test harness) would otherwise never stop on Ctrl-C.
    """
    import signal

    def stop(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)


def echo_line(text: str) -> None:
    """Print one line of a stream (`events tail -f`, `daemon logs -f`), made safe like `output`."""
    from gridgit.store import usertext

    click.echo(usertext.for_terminal(text))


def read_content(value: str | None) -> str | None:
    """`-` means standard input (sqlite-utils style)."""
    if value == "-":
        data = sys.stdin.buffer.read()
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as exc:
            from gridgit.errors import BadInput

            raise BadInput(f"standard input is not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    return value
