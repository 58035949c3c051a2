"""The CLI's contract, walked over every command of click's own tree (so a new command cannot escape it).

The same bad inputs go to every command that takes the parameter they are for, chosen by its
type and name alone: an unknown phase (exit 7), a malformed one (1), an invalid agent id (1), an
unknown entry (7), a number of the wrong type or out of its range (2), a wrong choice (2), a
missing required parameter (2). Each answer is its kind's exit code (gridgit.errors.EXIT_CODES),
one line on stderr and no traceback; with --json the error envelope on stdout too; and no byte
of .grid/ changes. A command added later needs no line here unless a parameter of a new kind
needs one (PARAMETER_VALUES: a valid value, then its (bad value, kind) cases).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import click
import pytest

from gridgit.cli.main import cli
from gridgit.errors import EXIT_CODES
from tests.conftest import Repo, git, isolate, main_in_process

UNKNOWN_PHASE, MALFORMED_PHASE = "55-none", "Phase 5!"
# parameter name -> (a valid value, [(a bad value, the kind of error it must give)]).
PARAMETER_VALUES: dict[str, tuple[str, list[tuple[str, str]]]] = {
    "phase": ("01-foundation", [(UNKNOWN_PHASE, "not_found"), (MALFORMED_PHASE, "bad_input")]),
    "phase_id": ("01-foundation", [(UNKNOWN_PHASE, "not_found"), (MALFORMED_PHASE, "bad_input")]),
    "agent": ("mc", [("executor", "bad_input"), ("bogus-001", "bad_input"), ("executor 1", "bad_input")]),
    "agent_id": ("executor-001", [("executor", "bad_input"), ("bogus-001", "bad_input")]),
    "by": ("executor-001", [("executor", "bad_input"), ("bogus-001", "bad_input")]),
    "entry_id": ("1", [("999", "not_found"), ("02-core#999", "not_found"), ("no-such-blocker", "not_found")]),
    "block_id": ("01-01", [("01-99", "not_found"), ("Block 1!", "bad_input")]),
}
# A parameter that names something to create, where an unknown name is the point: (command, parameter).
CREATES = {("phase start", "phase_id"), ("block plan", "block_id")}
# Where what the parameter names must exist (an agent to finish): its well-formed unknown value.
MUST_EXIST = {("agent done", "agent_id"): "executor-999"}
# Options a command needs that click cannot call required (`write` needs them unless --template).
NEEDED = {"write": ["-c", "discovery", "-t", "auth", "--content", "x"]}
# Programs' endpoints speaking another program's protocol, not gridgit's envelope.
PROTOCOLS = {"hook", "merge-driver", "agent-hook", "statusline", "mcp", "watch"}
NUMBER_TYPES = (click.types.IntParamType, click.types.FloatParamType)


def leaf_commands() -> Iterator[tuple[str, click.Command]]:
    """Every command that runs (groups' subcommands, recursively), by its path: `phase start`."""
    ctx = click.Context(cli)

    def walk(group: click.Group, prefix: str) -> Iterator[tuple[str, click.Command]]:
        for name in group.list_commands(ctx):
            command = group.get_command(ctx, name)
            assert command is not None, name
            path = f"{prefix} {name}".strip()
            if isinstance(command, click.Group):
                yield from walk(command, path)
            else:
                yield path, command

    yield from walk(cli, "")


COMMANDS = dict(leaf_commands())


def _option_text(param: click.Parameter) -> str:
    return max(param.opts, key=len)


def valid_value(param: click.Parameter) -> str:
    if param.name in PARAMETER_VALUES:
        return PARAMETER_VALUES[param.name][0]
    if isinstance(param.type, click.Choice):
        return str(param.type.choices[0])
    if isinstance(param.type, NUMBER_TYPES):
        low = getattr(param.type, "min", None)
        return str(int(low) + 1 if low is not None else 1)
    return "src/a.py"


def _params(command: click.Command) -> list[click.Parameter]:
    return [p for p in command.params if p.name and not getattr(p, "hidden", False)]


def invocation(path: str, command: click.Command, changed: click.Parameter | None, value: str | None) -> list[str]:
    """PATH's arguments: every required parameter (and CHANGED) with a valid value, CHANGED with VALUE.

    VALUE None leaves CHANGED out (a missing required parameter).
    """
    args = [*path.split(), *NEEDED.get(path, [])]
    for param in _params(command):
        # An optional argument of a kind named here is given too (`block plan [BLOCK_ID]`: required
        # unless --template), so that the case is about CHANGED alone.
        wanted = (
            param.required or param is changed or (isinstance(param, click.Argument) and param.name in PARAMETER_VALUES)
        )
        if not wanted or (param is changed and value is None):
            continue
        given = value if param is changed else valid_value(param)
        assert given is not None
        if isinstance(param, click.Argument):
            args.append(given)
        elif not getattr(param, "is_flag", False):
            args += [_option_text(param), given]
    return args


@dataclass
class Case:
    args: list[str]
    kind: str

    @property
    def id(self) -> str:
        return " ".join(self.args)


def cases(kind_of_case: str) -> list[Case]:
    """Every command's cases of one kind: `names` (phases, agents, entries), `numbers`, `choices`, `required`."""
    found = []
    for path, command in COMMANDS.items():
        for param in _params(command):
            if kind_of_case == "names" and param.name in PARAMETER_VALUES:
                for bad, kind in PARAMETER_VALUES[param.name][1]:
                    if kind == "not_found" and (path, param.name) in CREATES:
                        continue
                    found.append(Case(invocation(path, command, param, bad), kind))
                if (path, param.name) in MUST_EXIST:
                    found.append(Case(invocation(path, command, param, MUST_EXIST[path, param.name]), "not_found"))
            elif kind_of_case == "numbers" and isinstance(param.type, NUMBER_TYPES):
                for bad in ("abc", "-5", "nan", "inf", "1e400"):
                    found.append(Case(invocation(path, command, param, bad), "usage"))
            elif kind_of_case == "choices" and isinstance(param.type, click.Choice):
                found.append(Case(invocation(path, command, param, "no-such-choice"), "usage"))
            elif kind_of_case == "required" and param.required:
                found.append(Case(invocation(path, command, param, None), "usage"))
    return found


@pytest.fixture(scope="module")
def walked(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Repo]:
    """One initialised repository for every case (each leaves it as it was), with one entry to resolve."""
    with pytest.MonkeyPatch.context() as patch:
        isolate(patch, tmp_path_factory.mktemp("home"))
        patch.setenv("GRIDGIT_HOOK_SYNC", "1")
        path = tmp_path_factory.mktemp("contract") / "repo"
        path.mkdir()
        git(path, "init", "-q", "-b", "main")
        git(path, "commit", "-q", "--allow-empty", "-m", "initial")
        repo = Repo(path)
        repo.gridgit("init", "--mission", "Contract", "--phase", "01-foundation", "--phase", "02-core")
        repo.gridgit("write", "-c", "question", "-t", "auth", "--content", "Question: which?", agent="executor-001")
        repo.write("src/a.py", "a = 1\n")
        yield repo


def run_in_process(repo: Repo, args: list[str], capfd: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    cwd = os.getcwd()
    os.chdir(repo.path)
    try:
        code = main_in_process(args)
    finally:
        os.chdir(cwd)
    out, err = capfd.readouterr()
    return code, out, err


def broken_promises(repo: Repo, case: Case, capfd: pytest.CaptureFixture[str], as_json: bool) -> list[str]:
    args = [*case.args, "--json"] if as_json else case.args
    before = repo.snapshot()
    code, out, err = run_in_process(repo, args, capfd)
    wrong = []
    if code != EXIT_CODES[case.kind]:
        wrong.append(f"exit {code}, not {EXIT_CODES[case.kind]} ({case.kind}): {err.strip()[:200] or out[:200]}")
    if "Traceback" in out + err:
        wrong.append("a traceback")
    elif not (err.count("\n") == 1 and err.startswith("gridgit: error: ")):
        wrong.append(f"not one `gridgit: error:` line on stderr: {err[:300]!r}")
    if as_json:
        try:
            envelope = json.loads(out)
            if envelope != {
                "schema_version": 1,
                "ok": False,
                "error": {"code": case.kind, "message": envelope["error"]["message"]},
            }:
                wrong.append(f"not the error envelope of {case.kind}: {out[:200]}")
        except (ValueError, KeyError, TypeError):
            wrong.append(f"stdout is not the error envelope: {out[:200]!r}")
    if repo.snapshot() != before:
        wrong.append("changed .grid/")
    return [f"gridgit {' '.join(args)}: {w}" for w in wrong]


@pytest.mark.parametrize("kind_of_case", ["names", "numbers", "choices", "required"])
def test_every_command_answers_bad_input_by_the_contract(
    walked: Repo, capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, kind_of_case: str
) -> None:
    monkeypatch.setenv("GRID_AGENT_ID", "mc")
    found = cases(kind_of_case)
    assert found, kind_of_case
    broken = []
    for case in found:
        has_json = any(
            p.name == "as_json" or "--json" in getattr(p, "opts", []) for p in COMMANDS[_path_of(case)].params
        )
        for as_json in (False, True) if has_json else (False,):
            broken += broken_promises(walked, case, capfd, as_json)
    assert not broken, "\n".join(broken)


def _path_of(case: Case) -> str:
    words = case.args[:2]
    return " ".join(words) if " ".join(words) in COMMANDS else words[0]


def test_every_command_that_prints_takes_json() -> None:
    missing = [
        path
        for path, command in COMMANDS.items()
        if path.split()[0] not in PROTOCOLS and not any("--json" in getattr(p, "opts", []) for p in command.params)
    ]
    assert not missing, f"commands without --json: {missing}"


def test_every_number_has_a_range() -> None:
    unbounded = [
        f"{path} {_option_text(p)}"
        for path, command in COMMANDS.items()
        for p in _params(command)
        if isinstance(p.type, NUMBER_TYPES) and getattr(p.type, "min", None) is None
    ]
    assert not unbounded, f"numbers without a lower bound: {unbounded}"


def test_the_walk_reaches_every_command_of_the_tree() -> None:
    assert {"write", "phase start", "events reset", "conflicts predict", "daemon logs"} <= set(COMMANDS)
    names = {case.args[0] for kind in ("names", "numbers", "choices", "required") for case in cases(kind)}
    assert {"write", "read", "resolve", "phase", "daemon", "heartbeat", "context", "agent"} <= names


def test_not_initialised_only_when_the_blackboard_is_missing(bare_repo: Repo) -> None:
    """Exit 3 in a repository without .grid/, before any name is looked up: an unknown phase there is not 7."""
    for args in (["status"], ["read", "--phase", UNKNOWN_PHASE], ["context", "--agent", "executor-001"]):
        proc = bare_repo.gridgit(*args, check=False)
        assert proc.returncode == 3 and proc.stderr.startswith("gridgit: error: no Blackboard at"), (args, proc.stderr)


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["daemon", "logs", "-n", "0"], 2, "0 is not in the range x>=1"),
        (["state", "show", "--field", "position.nope"], 7, "STATE.md has no field 'position.nope'"),
        (["daemon", "stop", "--timeout", "-1"], 2, "-1.0 is not in the range 0<=x<=3600"),
        (["mcp", "--repo", "/nonexistent/repo"], 2, "Directory '/nonexistent/repo' does not exist"),
        (["init", "--mission", "Mis\x1b[31msion"], 1, "the mission name 'Mis\\x1b[31msion' holds a control character"),
        (
            ["phase", "start", "03-x", "--name", "Ship\nit", "--agent", "mc"],
            1,
            "a phase name 'Ship\\nit' holds a control",
        ),
        (["state", "update", "--set-json", "{}", "--json", "{}", "--agent", "mc"], 1, "give --set-json OBJECT once"),
    ],
)
def test_the_smaller_refusals(repo: Repo, args: list[str], code: int, message: str) -> None:
    before = repo.snapshot()
    proc = repo.gridgit(*args, check=False)
    assert proc.returncode == code and proc.stderr.count("\n") == 1 and message in proc.stderr, proc.stderr
    assert repo.snapshot() == before


def test_init_in_a_bare_repository_says_so(tmp_path: Path) -> None:
    bare = tmp_path / "origin.git"
    git(tmp_path, "init", "-q", "--bare", str(bare))
    before = sorted(p for p in bare.rglob("*"))
    proc = Repo(bare).gridgit("init", check=False, cwd=bare / "refs")
    assert proc.returncode == 1 and proc.stderr == (
        f"gridgit: error: {bare} is a bare git repository (no work tree): run gridgit in a clone of it\n"
    )
    assert sorted(p for p in bare.rglob("*")) == before


def test_help_tells_who_may_run_the_phase_commands(repo: Repo) -> None:
    for args in (["phase", "start"], ["phase", "complete"], ["archive"]):
        text = " ".join(repo.gridgit(*args, "--help").stdout.split())
        assert "defaults to mc" not in text and "without an agent it is refused (exit 4)" in text, args
        refused = repo.gridgit(*args, *(["03-x"] if args[0] == "phase" else []), check=False)
        assert refused.returncode == 4, refused.stderr


def test_state_update_json_is_the_envelope_and_the_input_of_earlier_versions_still_works(repo: Repo) -> None:
    data = repo.gridgit_json("state", "update", "--set", "mode=guided", agent="mc")
    assert data["mode"] == "guided"
    assert repo.gridgit_json("state", "update", "--set-json", '{"mode": "hands_on"}', agent="mc")["mode"] == "hands_on"
    old = repo.gridgit("state", "update", "--json", '{"mode": "autopilot"}', agent="mc")
    assert old.stdout.startswith("STATE.md updated at ")
    assert old.stderr == "gridgit: warning: `state update --json OBJECT` is deprecated: use --set-json OBJECT\n"
    assert repo.gridgit_json("state", "show")["mode"] == "autopilot"
    reset = repo.gridgit_json("events", "reset", "--end", agent="executor-001")
    assert reset == {"agent_id": "executor-001", "to_end": True}


def test_the_docs_state_the_exit_codes_as_the_code_has_them() -> None:
    docs = Path(__file__).parent.parent.parent / "docs"
    rows = re.findall(r"^\| `(\d+)` \| `([a-z_]+)` \|", (docs / "cli.md").read_text(encoding="utf-8"), re.MULTILINE)
    assert {kind: int(code) for code, kind in rows} == EXIT_CODES
    readme = " ".join((docs.parent / "README.md").read_text(encoding="utf-8").split())
    for _code, kind in rows:
        said = {"bad_input": "1 error or bad input", "error": "1 error", "os_error": "`os_error`", "usage": "2 usage",
                "not_initialised": "3 not initialised (only when `.grid/` is missing)", "permission_denied":
                "4 permission denied", "lock_timeout": "5 lock timeout", "conflict": "6 conflict found",
                "not_found": "7 not found", "nothing_ready": "8 nothing ready to take", "provisional": "9 provisional",
                "interrupted": "130 interrupted"}[kind]  # fmt: skip
        assert said in readme, kind


def test_hook_names_are_the_hooks_gridgit_runs() -> None:
    from gridgit.cli.hooks import HOOK_NAMES
    from gridgit.git import hookrun, hooks

    assert set(HOOK_NAMES) == set(hookrun.HOOKS) == set(hooks.HOOK_NAMES)
