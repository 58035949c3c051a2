"""The `gridgit` entry point: a lazy click group and the one error boundary."""

from __future__ import annotations

import gc
import importlib
import importlib.util
import sys
from typing import Any, NoReturn

import click

from gridgit import __version__

# command name -> (module, attribute); a module is imported only when its command runs,
# so `gridgit --version` loads click and nothing else.
COMMANDS: dict[str, tuple[str, str]] = {
    "init": ("gridgit.cli.setup", "init"),
    "state": ("gridgit.cli.state", "state"),
    "status": ("gridgit.cli.state", "status"),
    "resume": ("gridgit.cli.state", "resume"),
    # L2 scratchpads
    "write": ("gridgit.cli.scratchpad", "write"),
    "read": ("gridgit.cli.scratchpad", "read"),
    "heartbeat": ("gridgit.cli.scratchpad", "heartbeat"),
    "stale": ("gridgit.cli.scratchpad", "stale"),
    "subscribe": ("gridgit.cli.scratchpad", "subscribe"),
    "unsubscribe": ("gridgit.cli.scratchpad", "unsubscribe"),
    "reindex": ("gridgit.cli.scratchpad", "reindex"),
    # agents working together
    "agent": ("gridgit.cli.agents", "agent"),
    "inbox": ("gridgit.cli.agents", "inbox"),
    "resolve": ("gridgit.cli.agents", "resolve"),
    "confirm": ("gridgit.cli.agents", "confirm"),
    # messages between agents
    "send": ("gridgit.cli.messages", "send"),
    "ack": ("gridgit.cli.messages", "ack"),
    "thread": ("gridgit.cli.messages", "thread"),
    # phases, archive, L4
    "phase": ("gridgit.cli.phase", "phase"),
    "archive": ("gridgit.cli.phase", "archive"),
    "promote": ("gridgit.cli.phase", "promote"),
    "learnings": ("gridgit.cli.phase", "learnings"),
    # memory/ and search over everything the Blackboard holds
    "memory": ("gridgit.cli.memory", "memory"),
    "search": ("gridgit.cli.search", "search"),
    # events, conflicts, claims
    "events": ("gridgit.cli.events", "events"),
    "touch": ("gridgit.cli.events", "touch"),
    "conflicts": ("gridgit.cli.events", "conflicts"),
    "claim": ("gridgit.cli.events", "claim"),
    "release": ("gridgit.cli.events", "release"),
    "claims": ("gridgit.cli.events", "claims"),
    # the work agents take: the block queue, the budget, debug sessions
    "ready": ("gridgit.cli.work", "ready"),
    "take": ("gridgit.cli.work", "take"),
    "block": ("gridgit.cli.work", "block"),
    "approve": ("gridgit.cli.approve", "approve"),
    "budget": ("gridgit.cli.budget", "budget"),
    "debug": ("gridgit.cli.debug", "debug"),
    # foresight: predicted merge conflicts (conflicts predict) and stale evidence
    "evidence": ("gridgit.cli.foresight", "evidence"),
    # git integration
    "hooks": ("gridgit.cli.hooks", "hooks"),
    "hook": ("gridgit.cli.hooks", "hook"),
    "validate": ("gridgit.cli.hooks", "validate"),
    "merge-driver": ("gridgit.cli.hooks", "merge_driver"),
    # watcher
    "sync": ("gridgit.cli.history", "sync"),
    "snapshot": ("gridgit.cli.history", "snapshot"),
    "migrate": ("gridgit.cli.history", "migrate"),
    "restore": ("gridgit.cli.history", "restore"),
    "log": ("gridgit.cli.history", "log"),
    "diff": ("gridgit.cli.history", "diff"),
    "watch": ("gridgit.cli.daemon", "watch"),
    "daemon": ("gridgit.cli.daemon", "daemon"),
    # first run and daily use
    "demo": ("gridgit.cli.demo", "demo"),
    "serve": ("gridgit.cli.serve", "serve"),
    "mcp": ("gridgit.cli.mcp", "mcp"),
    "context": ("gridgit.cli.context", "context"),
    # agent tools: their hooks, the one entry point they call, Claude Code's status line
    "setup": ("gridgit.cli.integrations", "setup"),
    "agent-hook": ("gridgit.cli.integrations", "agent_hook"),
    "statusline": ("gridgit.cli.integrations", "statusline"),
    "doctor": ("gridgit.cli.doctor", "doctor"),
}


class LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(name for name, (module, _) in COMMANDS.items() if importlib.util.find_spec(module))

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        name = click.utils.make_str(args[0])
        if name not in COMMANDS and not name.startswith("-"):
            # click's own "Did you mean" looks among the commands it holds; these load lazily.
            from difflib import get_close_matches

            close = get_close_matches(name, COMMANDS, n=3)
            hint = f" Did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
            raise click.UsageError(f"No such command {name!r}.{hint}", ctx)
        return super().resolve_command(ctx, args)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in COMMANDS:
            return None
        module, attribute = COMMANDS[cmd_name]
        command: click.Command = getattr(importlib.import_module(module), attribute)
        return command


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="gridgit")
def cli() -> None:
    """gridgit: a git repository as the shared memory of parallel coding agents."""


def _wants_json() -> bool:
    from gridgit.cli import common

    return common.json_mode


def fail(message: str, code: str, as_json: bool) -> NoReturn:
    """Report one error and exit with its kind's status (gridgit.errors.EXIT_CODES).

    Always one line on stderr (`gridgit: error: ...`), so a person or a log sees it; with
    --json the error envelope on stdout too, so a program parsing stdout gets JSON either way.
    """
    from gridgit.errors import EXIT_CODES
    from gridgit.store import usertext

    # An error may quote what the user typed: redacted, one line, no control characters, and a long value
    # elided in its middle, so the reason after it stays in sight.
    message = usertext.for_terminal(elide(" ".join(message.split())))
    if as_json:
        import json

        from gridgit.cli.common import error_envelope

        click.echo(json.dumps(error_envelope(code, message)))
    click.echo(f"gridgit: error: {message}", err=True)
    sys.exit(EXIT_CODES[code])


LONG_WORD = 300  # a value longer than this (no path is) is shown by its two ends
MAX_MESSAGE = 500


def elide(message: str) -> str:
    """MESSAGE with each word over LONG_WORD characters cut in its middle (`aaaa…(119,920 more)…aaaa`), and the
    whole, if still over MAX_MESSAGE, too: what is wrong is said after the value it names."""

    def cut(text: str, keep: int) -> str:
        return f"{text[:keep]}…({len(text) - 2 * keep:,} more)…{text[-keep:]}"

    words = [cut(w, 40) if len(w) > LONG_WORD else w for w in message.split(" ")]
    message = " ".join(words)
    return cut(message, MAX_MESSAGE // 2 - 20) if len(message) > MAX_MESSAGE else message


def _help(exc: click.exceptions.NoArgsIsHelpError) -> NoReturn:
    """A group run without its subcommand: its help as click prints it. Bare `gridgit` is a request for help (0,
    like `--help`); a group without the subcommand it needs is a usage error (2), its help on stderr."""
    bare = exc.ctx.parent is None
    click.echo(exc.ctx.get_help(), err=not bare)
    sys.exit(0 if bare else 2)


def _usage_message(exc: click.ClickException) -> str:
    """Click's complaint about the command line, with where to read how the command is used."""
    ctx = getattr(exc, "ctx", None)
    where = f" (see `{ctx.command_path} --help`)" if ctx is not None else " (see `gridgit --help`)"
    return exc.format_message() + where


def _is_utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


_frozen = False
# Commands that speak another program's protocol or run as its hook: never a progress line, terminal or not.
_QUIET = frozenset({"hook", "agent-hook", "statusline", "merge-driver", "mcp", "watch", "serve"})


def _terminal_progress() -> Any:
    """A progress sink that writes `what: done/total` over one line of stderr, once the work has taken
    GRIDGIT_PROGRESS_AFTER seconds (1 by default), at most ten times a second, and clears it when done;
    nothing under --json."""
    import time

    from gridgit.cli import common
    from gridgit.store import progress

    after, started, state = progress.shown_after(), time.monotonic(), {"last": 0.0, "shown": False}

    def show(what: str, done: int, total: int) -> None:
        now = time.monotonic()
        if common.json_mode or now - started < after:
            return
        if done >= total:
            if state["shown"]:
                sys.stderr.write("\r\x1b[K")
                sys.stderr.flush()
            return
        if now - float(state["last"]) >= 0.1:
            state["last"], state["shown"] = now, True
            sys.stderr.write(f"\r\x1b[K{what}: {done}/{total}")
            sys.stderr.flush()

    return show


def main(argv: list[str] | None = None) -> None:
    """Run the CLI; every failure becomes its exit status here and nowhere else."""
    from gridgit.errors import GridError

    global _frozen
    if not _frozen:
        # What the imports made (click's classes, functions, module dicts) lives as long as the
        # process: frozen, the collector stops rescanning it, ~1.5 ms of a one-write process.
        # Once: a program that calls main() again must not freeze its own garbage.
        gc.freeze()
        _frozen = True
    args = sys.argv[1:] if argv is None else argv
    for number, arg in enumerate(args, start=1):
        # Python hands undecodable bytes of argv over as lone surrogates: refuse them here,
        # before a command writes them or a file name is made of them.
        if not _is_utf8(arg):
            fail(f"argument {number} is not valid UTF-8 text", "bad_input", "--json" in args)
    try:
        if args and args[0] not in _QUIET and sys.stderr.isatty():
            from gridgit.store import progress

            progress.install(_terminal_progress())
        # A command returns its exit code when it is not 0 (`conflicts check` -> 6, `doctor` -> 1)
        # after printing its answer, like `git diff --exit-code`.
        code = cli.main(args=args, prog_name="gridgit", standalone_mode=False)
    except GridError as exc:
        fail(str(exc), exc.code, _wants_json())
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except click.exceptions.NoArgsIsHelpError as exc:
        _help(exc)
    except click.UsageError as exc:
        # Before --json was parsed, perhaps: then a `--json` anywhere in argv asks for the envelope.
        fail(_usage_message(exc), "usage", _wants_json() or "--json" in args)
    except click.ClickException as exc:
        fail(exc.format_message(), "bad_input", _wants_json() or "--json" in args)
    except (click.Abort, KeyboardInterrupt):
        click.echo("gridgit: interrupted", err=True)
        sys.exit(130)
    except PermissionError as exc:
        from gridgit.errors import permission_denied

        denied = permission_denied(exc)
        fail(str(denied), denied.code, _wants_json())
    except BrokenPipeError:
        sys.exit(1)
    except OSError as exc:
        # A full disk, a read-only file system, a directory where a file should be, a name too
        # long: what the OS said and where. Writes are atomic, so the files are as they were.
        where = f"{exc.filename}: " if exc.filename else ""
        fail(f"{where}{exc.strerror or exc}", "os_error", _wants_json())
    except RecursionError:
        fail("input nested too deeply", "bad_input", _wants_json())
    except UnicodeError as exc:
        fail(f"not valid UTF-8 text: {exc}", "bad_input", _wants_json())
    sys.exit(code if isinstance(code, int) else 0)
