"""No name a user or a peer hands over is ever read by git as an option (issue 31.1).

`gridgit sync -- '--upload-pack=touch pwned;'` once ran the command. Every command is walked
from click's own tree, so a command added later is fed the same: each text argument and
option in turn gets each payload (the others their defaults, or a harmless value where they
are required), and no payload may run. The MCP tools get the same in tests/mcp/test_errors.py.
"""

from __future__ import annotations

import io
import sys
from collections.abc import Iterator
from pathlib import Path

import click
import pytest

from gridgit.cli import common
from gridgit.cli.main import cli, main
from gridgit.git.hookrun import HOOKS
from gridgit.store import gitcmd
from tests.conftest import Repo


def payloads(marker: Path) -> list[str]:
    """Arguments that make git run a command (or write a file) in MARKER when git reads them as options."""
    return [
        f"--upload-pack=touch {marker}/upload-pack;",  # git fetch, ls-remote, clone
        f"--exec=touch {marker}/exec;",  # git push's receive-pack
        f"-c core.sshCommand=touch {marker}/c-option",
        f"--output={marker}/output",  # git diff, log, show write their output there
    ]


# A required parameter's harmless value, by name, while another parameter gets the payload.
REQUIRED = {
    "patterns": ["src/a.py"],
    "path": ["src/a.py"],
    "event_type": ["heartbeat"],
    "phase_id": ["01-foundation"],
    "entry_id": ["1"],
    "action": ["testing"],
    "progress": ["5"],
    "topics": ["*"],
    "base": ["/dev/null"],
    "ours": ["/dev/null"],
    "theirs": ["/dev/null"],
    "to": ["executor-002"],
    "agent_id": ["executor-002"],
    "content": ["x"],
    "message_id": ["01JAAAAAAAAAAAAAAAAAAAAAAA"],
    "summary": ["done"],
    "tokens_in": ["1"],
    "tokens_out": ["1"],
    "block_id": ["01-01"],
    "title": ["Login loops"],
    "session_id": ["20260124-login-loops-3fa9"],
    "text": ["x"],
    "root_cause": ["x"],
    "name": ["INDEX.md"],
}
# Commands left out, and why: none of them takes a name that reaches git.
SKIPPED = {
    "demo": "its one name is the fresh folder it creates; a whole mission takes minutes",
}


def _text_params(command: click.Command) -> list[click.Parameter]:
    """COMMAND's parameters that take text (arguments and options, not flags, not numbers or choices)."""
    found = []
    for param in command.params:
        if isinstance(param, click.Option) and (param.is_flag or param.count or param.hidden):
            continue
        if isinstance(param.type, (click.types.StringParamType, click.types.UnprocessedParamType, click.Path)):
            found.append(param)
    return found


def commands() -> Iterator[tuple[list[str], click.Command]]:
    """Every command of click's tree, as (its words, itself)."""
    ctx = click.Context(cli)

    def walk(command: click.Command, words: list[str]) -> Iterator[tuple[list[str], click.Command]]:
        if isinstance(command, click.Group):
            for name in command.list_commands(ctx):
                sub = command.get_command(ctx, name)
                assert sub is not None
                yield from walk(sub, [*words, name])
        else:
            yield words, command

    yield from walk(cli, [])


def _argv(param: click.Parameter, values: list[str]) -> list[str]:
    if isinstance(param, click.Argument):
        return values
    name = (
        next(o for o in param.opts if o.startswith("--"))
        if any(o.startswith("--") for o in param.opts)
        else param.opts[0]
    )
    return [a for v in values for a in (name, v)]


def cases(marker: Path) -> Iterator[tuple[str, list[str]]]:
    """(label, argv): each command with each text parameter in turn given each payload."""
    for words, command in commands():
        if " ".join(words) in SKIPPED:
            continue
        params = _text_params(command)
        for target in params:
            for payload in payloads(marker):
                # A hook's arguments are read by the hook they are given to: every hook gets them.
                names = list(HOOKS) if words == ["hook"] and target.name == "args" else [None]
                for hook_name in names:
                    argv = list(words)
                    for param in command.params:
                        if param is target:
                            # A list of names: the payload first, then what git's hooks pass after it.
                            values = [payload, "HEAD", "1"] if param.nargs == -1 else [payload]
                        elif param.name == "name" and hook_name:
                            values = [hook_name]
                        elif param.required and isinstance(param.type, click.Choice):
                            values = [str(param.type.choices[0])]
                        elif param.required:
                            assert param.name in REQUIRED, f"{' '.join(words)}: add a harmless {param.name} to REQUIRED"
                            values = REQUIRED[param.name]
                        else:
                            continue
                        argv += _argv(param, values)
                    yield f"{' '.join(words)} {target.name}", argv


def test_no_argument_of_any_command_is_an_option_to_git(
    repo: Repo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    marker = tmp_path / "ran"
    marker.mkdir()
    # A remote to sync with, and a branch for conflict prediction: the names reach git's commands.
    repo.git("init", "-q", "--bare", str(tmp_path / "origin.git"))
    repo.git("remote", "add", "origin", str(tmp_path / "origin.git"))
    monkeypatch.chdir(repo.path)
    monkeypatch.setenv("GRID_AGENT_ID", "mc")
    monkeypatch.setenv("GRIDGIT_LOCK_TIMEOUT", "5")
    monkeypatch.setattr(gitcmd, "_in_own_hook", False)  # a hook run in this process sets it
    walked = set()
    for label, argv in cases(marker):
        walked.add(label.split(" ")[0])
        stdin = f"{argv[-1]} {argv[-1]}\n"  # post-rewrite reads `OLD NEW` lines
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin.encode())))
        common.json_mode = False
        with pytest.raises(SystemExit):
            main(argv)
        err = capfd.readouterr().err
        assert "Traceback" not in err, (label, argv, err)
        assert not list(marker.iterdir()), f"{label}: git ran {argv!r}"
        assert not list(repo.path.glob("*upload-pack*")) + list(repo.path.glob("*exec=*")), (label, argv)
    # The walk reached the commands whose names reach git (a sanity check of the walk itself).
    assert {"sync", "diff", "conflicts", "hook", "log", "touch", "claim", "write"} <= walked


@pytest.mark.parametrize("remote", ["--upload-pack=touch pwned;", "--upload-pack=touch pwned; x:", "-c", "a\nb:"])
def test_sync_refuses_a_remote_git_would_read_as_an_option(repo: Repo, remote: str) -> None:
    """The issue's own example: the remote is checked before git sees it, and git gets `--end-of-options` anyway."""
    proc = repo.gridgit("sync", "--", remote, check=False)
    assert proc.returncode == 1 and proc.stderr.startswith("gridgit: error: remote ") and proc.stderr.count("\n") == 1
    assert not (repo.path / "pwned").exists()
