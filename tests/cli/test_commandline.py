"""Every command gridgit tells a model to run parses (DESIGN.md invariant 9; issue 34, finding 7): each is spelled
from the CLI's own definition (gridgit.store.commandline over the table gridgit.cli.commandtable generates from
click's tree), and every one the hooks, messages, refusals and the context pack print is parsed here by click."""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator
from typing import Any

import click
import pytest

from tests.conftest import Repo

# A placeholder the model fills in -> a value of its kind, for parsing.
SAMPLES = {"N": "1", "PATH": "src/app.py", "PHASE_ID": "01-foundation", "BLOCK_ID": "01-01", "FIELD=VALUE": "status=x"}
SPOKEN = re.compile(r"`(gridgit [^`]+)`")


@pytest.fixture(autouse=True)
def _nobody() -> Iterator[None]:
    from gridgit.store import commandline

    commandline.speaking_for(None)
    yield
    commandline.speaking_for(None)


def parse(line: str) -> click.Context:
    """LINE (`gridgit ...`, placeholders filled in) as click parses it: the leaf command's context (UsageError if not)."""
    from gridgit.cli.main import cli

    words = [SAMPLES.get(w, w) for w in shlex.split(line)[1:]]
    ctx = cli.make_context("gridgit", words)
    command: click.Command = cli
    args = [*getattr(ctx, "_protected_args", []), *ctx.args]
    while isinstance(command, click.Group):
        name, sub, args = command.resolve_command(ctx, args)
        assert sub is not None and name is not None
        if isinstance(sub, click.Group) and args and not args[0].startswith("-"):
            ctx = sub.make_context(name, list(args), parent=ctx)
            args, command = [*getattr(ctx, "_protected_args", []), *ctx.args], sub
            continue
        return sub.make_context(name, list(args), parent=ctx)
    raise AssertionError(line)


def spoken(text: str) -> list[str]:
    return list(SPOKEN.findall(text))


def test_the_table_is_the_clis_definition() -> None:
    from gridgit.cli import commandtable

    assert commandtable.main(["--check"]) == 0, "run `python -m gridgit.cli.commandtable` (a command changed)"


def test_said_refuses_what_the_cli_does_not_define() -> None:
    from gridgit.store.commandline import said

    assert said("state update", set="status=paused") == "gridgit state update --set status=paused"
    assert said("write", content="two words") == "gridgit write --content 'two words'"
    for wrong in (lambda: said("state set"), lambda: said("ack", "a", "b"), lambda: said("ack", to="x")):
        with pytest.raises(ValueError):
            wrong()
    with pytest.raises(ValueError):
        said("inbox", peek="yes")  # a flag takes no value


def test_the_old_spellings_did_not_parse() -> None:
    for line in ("gridgit write CATEGORY TOPIC CONTENT", "gridgit state update FIELD VALUE"):
        with pytest.raises(click.UsageError):
            parse(line)


def _texts(repo: Repo, agent: str | None) -> list[str]:
    """What the hooks' library tells a model, with AGENT spoken for (or none)."""
    from gridgit import Blackboard
    from gridgit.agents import handlers
    from gridgit.agents.capabilities import get
    from gridgit.agents.identity import Identity
    from gridgit.coordination import conflicts, wakeup
    from gridgit.store import commandline
    from gridgit.store.layout import Layout
    from gridgit.views import context
    from gridgit.work import notices

    commandline.speaking_for(agent)
    layout = Layout.find(repo.path)
    me = agent or "executor-007"
    board = Blackboard(repo.path)
    board.send(me, "Read the plan", agent="executor-002")
    board.claim(["src/app.py"], agent="executor-002", reason="moving it")
    texts = [handlers.grid_advice(inside) for inside, _ in handlers.grid_commands()]
    texts.append(handlers.grid_advice("phases/01-foundation/scratchpad.md"))
    result = conflicts.ConflictResult("src/app.py", me, 5, [{"conflicting_agent": "executor-002",
                                      "operation": "modified", "path": "src/app.py", "timestamp": "t"}])  # fmt: skip
    texts.append(handlers.conflict_message(result))
    found = handlers.Changes([handlers.Change("src/app.py", "modified", None)], [])
    ident = Identity(me, "s1", None, None)
    for tool in ("claude", "codex"):
        cap = get(tool, "before-edit")
        assert cap is not None
        texts.append(handlers.before_edit(layout, ident, found, {"claims": {"on_edit": "ask"}}, cap).reason)
    texts.append(wakeup.reason(layout, me, "s1"))
    texts.append(context.gather(layout, me).render())
    texts.append(handlers.clip("x" * 500, 200))
    lost = {"type": "block_take_lost", "payload": {"loser": me, "block_id": "01-01", "winner": "executor-002"}}
    texts.append(notices.inbox_line(lost, me)[1])  # type: ignore[index]
    return texts


@pytest.mark.parametrize("agent", [None, "executor-claude-1a2b3c4d"])
def test_every_command_told_to_a_model_parses(repo: Repo, agent: str | None) -> None:
    said: list[str] = []
    for text in _texts(repo, agent):
        said += spoken(text)
    for line in dict.fromkeys(said):
        ctx = parse(line)
        params: dict[str, Any] = ctx.params
        if "agent" in params and "--agent" not in line:
            assert agent is None, f"{line}: names no agent for an agent its shell may not know"
    assert any(" --agent executor-claude-1a2b3c4d" in line for line in said) == (agent is not None)
