"""The gridgit commands gridgit tells a model (or a person) to run, spelled from the CLI's own definition.

A hook's answer, a message's summary, a refusal or the context pack that names a command spells
it with `said`, against the table generated from click's tree (gridgit.store.commandtable,
written by `python -m gridgit.cli.commandtable`): a path the CLI does not define, one argument
too many or an option the command lacks is a ValueError at once (and in the tests, which parse
every command the hooks print). An argument or option value in capitals (`PATH`, `ID`,
`FIELD=VALUE`) is a placeholder for the model to fill in.

Where the agent's identity came from its tool's session and not GRID_AGENT_ID (an agent tool's
hook sets `speaking_for`), every command that takes `--agent` says it, so what the model runs
from its shell acts as the agent the hook knew; a command's own `--agent` (a claim's holder)
wins. Standard library only: the hooks spell commands without click.
"""

from __future__ import annotations

import re

_SAFE = re.compile(r"[A-Za-z0-9_@%+=:,./-]+")  # words a POSIX shell takes as they are
_AGENT: list[str] = []  # the agent this process speaks for (one-shot hooks set it once)


def speaking_for(agent: str | None) -> None:
    """Name AGENT (`--agent`) in every command said from now on that takes one; None: name none."""
    _AGENT[:] = [agent] if agent else []


def _word(value: str) -> str:
    if _SAFE.fullmatch(value):
        return value
    import shlex

    return shlex.quote(value)


def said(path: str, *args: str, **options: str | bool | None) -> str:
    """`gridgit PATH ARGS --OPTION VALUE...` (an option's keyword with `_` for `-`; True: a flag; None or
    False: left out), checked against the CLI's definition."""
    from gridgit.store.commandtable import COMMANDS

    if path not in COMMANDS:
        raise ValueError(f"gridgit has no command {path!r}")
    arguments, known = COMMANDS[path]
    if len(args) > len(arguments) and not any(a.endswith("...") for a in arguments):
        raise ValueError(f"`gridgit {path}` takes {len(arguments)} argument(s), not {len(args)}")
    words = ["gridgit", path, *(_word(a) for a in args)]
    for name, value in options.items():
        flag = "--" + name.replace("_", "-")
        if flag not in known:
            raise ValueError(f"`gridgit {path}` has no option {flag}")
        if value is None or value is False:
            continue
        if (value is True) == known[flag]:
            raise ValueError(f"`gridgit {path} {flag}` {'takes a value' if known[flag] else 'is a flag'}")
        words += [flag] if value is True else [flag, _word(str(value))]
    if _AGENT and "--agent" in known and "agent" not in options:
        words += ["--agent", _AGENT[0]]
    return " ".join(words)
