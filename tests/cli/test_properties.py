"""Property tests of the CLI and the file formats: arbitrary text, bytes and argument values never
produce a traceback, and a refused command changes no byte of .grid/.

Bounded (a few hundred examples in all, no deadline) so the suite stays fast; the CLI runs
in-process through its real entry point and error boundary.
"""

from __future__ import annotations

import os
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gridgit.validation.rules import validate_bytes
from tests.conftest import Repo, main_in_process

# Text as a caller may pass it: any unicode, control characters, markdown structure, and
# undecodable bytes (Python hands those over as lone surrogates, as it does for argv).
STRUCTURE = ["---", "### [1] [x] a | b | c", "**Relevance:** HIGH", "<<<<<<< HEAD", "\x00", "\x1b[31m", "password: x"]
TEXT = st.one_of(
    st.text(max_size=40),
    st.sampled_from(STRUCTURE),
    st.binary(max_size=20).map(os.fsdecode),
    st.integers(-(10**6), 10**6).map(str),
)

COMMANDS = [
    lambda t: ["write", "-c", t[0], "-t", t[1], "--content", t[2]],
    lambda t: ["write", "-c", "discovery", "-t", "auth", "--content", t[0], "--title", t[1], "--tags", t[2]],
    lambda t: ["write", "-c", "handoff", "-t", "auth", "--content", t[0], "--block", t[1], "-r", t[2]],
    lambda t: ["state", "update", "--set", f"{t[0]}={t[1]}"],
    lambda t: ["state", "update", "--add", f"warnings={t[0]}"],
    lambda t: ["state", "update", "--set-json", t[0]],
    lambda t: ["state", "update", "--json", t[0]],  # the input of earlier versions, still taken
    lambda t: ["state", "show", t[0]],
    lambda t: ["events", "emit", t[0], "--payload", t[1]],
    lambda t: ["events", "tail", "-n", t[0]],
    lambda t: ["claim", t[0], "--reason", t[1], "--ttl", t[2]],
    lambda t: ["subscribe", "--topics", t[0], "--min", t[1]],
    lambda t: ["read", "--topic", t[0], "--phase", t[1]],
    lambda t: ["phase", "start", t[0], "--name", t[1]],
    lambda t: ["phase", "complete", t[0], "--next", t[1]],
    lambda t: ["resolve", t[0], "--note", t[1]],
    lambda t: ["agent", "register", t[0], "--task", t[1]],
    lambda t: ["validate", t[0]],
    lambda t: ["touch", t[0]],
    lambda t: ["context", "--agent", t[0]],
]


@pytest.fixture
def cli(repo: Repo, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]) -> Any:
    monkeypatch.chdir(repo.path)

    def run(args: list[str], agent: str) -> int:
        monkeypatch.setenv("GRID_AGENT_ID", agent)
        return main_in_process(args)

    return run


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    command=st.sampled_from(COMMANDS),
    values=st.tuples(TEXT, TEXT, TEXT),
    agent=st.sampled_from(["executor-001", "mc", "scout-001", "memory-001"]),
    as_json=st.booleans(),
)
def test_any_arguments_give_an_answer_or_one_line_and_refusals_change_nothing(
    repo: Repo, cli: Any, capfd: pytest.CaptureFixture[str], command: Any, values: tuple[str, str, str], agent: str,
    as_json: bool,
) -> None:  # fmt: skip
    args = command(values) + (["--json"] if as_json else [])
    before = repo.snapshot()
    code = cli(args, agent)
    out, err = capfd.readouterr()
    assert "Traceback" not in err and "Traceback" not in out, (args, err)
    if code != 0:
        assert repo.snapshot() == before, args
        assert err.count("\n") == 1 and err.startswith("gridgit: error: "), (args, err)  # --json or not


GRID_FILES = ["STATE.md", "LEARNINGS.md", "config.json", "claims.json", "phases/01-a/scratchpad.md",
              "phases/01-a/archive.md", "events/current.jsonl", "CHECKPOINT.md"]  # fmt: skip


@settings(max_examples=150, deadline=None)
@given(
    rel=st.sampled_from(GRID_FILES),
    data=st.one_of(
        st.binary(max_size=300),
        st.lists(st.one_of(st.text(max_size=30), st.sampled_from([*STRUCTURE, "---\n", "{", "[", "&a", "*a"])))
        .map("\n".join)
        .map(lambda s: s.encode("utf-8", "surrogatepass")),
    ),
)
def test_validation_of_any_bytes_reports_and_never_raises(rel: str, data: bytes) -> None:
    for problem in validate_bytes(rel, data):
        assert "\n" not in problem.message
