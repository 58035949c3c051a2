"""Every environment variable gridgit reads: documented in docs/configuration.md, checked with a one-line
error naming it (never a traceback), and fuzzed: any value gives an answer or that one line, and a
refusal changes nothing."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gridgit.store import environment
from tests.conftest import Repo, main_in_process

ROOT = Path(__file__).parent.parent.parent
# How the code reads a variable: os.environ.get("X"), os.environ["X"], click's envvar="X", the shims' ${X.
READS = re.compile(r"""environ(?:\.get\(|\[)"([A-Z_]+)"|envvar="([A-Z_]+)"|\$\{\{?(GRID[A-Z_]+)""")


def variables_read() -> set[str]:
    found = set()
    for path in [*(ROOT / "gridgit").rglob("*.py"), *(ROOT / "hooks").iterdir()]:
        for match in READS.finditer(path.read_text(encoding="utf-8")):
            found.add(next(group for group in match.groups() if group))
    return found


def test_every_variable_gridgit_reads_is_documented() -> None:
    read = variables_read()
    assert {"GRID_AGENT_ID", "GRIDGIT_NOW", "GRIDGIT_HOOK_SYNC", "BROWSER"} <= read
    assert set(environment.VARIABLES) <= read  # no check of a variable nobody reads
    table = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8").split("## Environment variables")[1]
    undocumented = [name for name in sorted(read) if f"`{name}`" not in table]
    assert not undocumented, f"not in docs/configuration.md's table of environment variables: {undocumented}"


@pytest.mark.parametrize(
    ("variable", "value", "message"),
    [
        ("GRIDGIT_NOW", "yesterday", "GRIDGIT_NOW='yesterday': expected an ISO 8601 time"),
        ("GRIDGIT_NOW", "0001-01-01T00:00:00Z", "GRIDGIT_NOW='0001-01-01T00:00:00Z': expected an ISO 8601 time"),
        ("GRIDGIT_LOCK_TIMEOUT", "soon", "GRIDGIT_LOCK_TIMEOUT: 'soon' is not a number of seconds"),
        ("GRID_DIR", "README.md", "GRID_DIR='README.md': not a directory"),
        ("GRID_AGENT_ID", "executor", "invalid agent id 'executor'"),
    ],
)
def test_a_bad_value_is_one_line_naming_it_for_every_command_that_reads_it(
    repo: Repo, variable: str, value: str, message: str
) -> None:
    before = repo.snapshot()
    agent, env = (value, {}) if variable == "GRID_AGENT_ID" else ("executor-001", {variable: value})
    reads_it = [["write", "-c", "discovery", "-t", "auth", "--content", "x"], ["touch", "src/a.py"],
                ["heartbeat", "-p", "5", "-a", "x"]]  # fmt: skip
    if variable in ("GRIDGIT_NOW", "GRID_DIR"):
        reads_it.append(["status"])  # takes no lock and acts as nobody, but reads the clock and .grid/
    for args in reads_it:
        proc = repo.gridgit(*args, agent=agent, env=env, check=False)
        assert proc.returncode == 1, (args, proc.stderr)
        assert proc.stderr.startswith("gridgit: error: ") and message in proc.stderr and proc.stderr.count("\n") == 1
    assert repo.snapshot() == before
    doctor = repo.gridgit("doctor", agent=agent, env=env, check=False)
    assert doctor.returncode == 1 and message in doctor.stdout
    fix = next(line for line in doctor.stdout.splitlines() if line.strip().startswith("fix:"))
    assert f"unset {variable}" in fix


def test_a_bad_flag_warns_in_a_hook_and_the_hook_runs(repo: Repo) -> None:
    repo.write("a.py", "x = 1\n")
    repo.git("add", "a.py")
    proc = subprocess_commit(repo, {"GRIDGIT_SKIP": "yes", "GRIDGIT_HOOK_SYNC": "1", "GRID_AGENT_ID": "executor-001"})
    assert "GRIDGIT_SKIP='yes': expected 1 (on) or 0 (off): the hook runs" in proc.stderr
    assert repo.events("file_modified")[-1]["payload"]["path"] == "a.py"  # it ran: nothing went unrecorded
    repo.write("b.py", "x = 1\n")
    repo.git("add", "b.py")
    proc = subprocess_commit(repo, {"GRIDGIT_HOOK_SYNC": "sure", "GRID_AGENT_ID": "executor-001"})
    assert "GRIDGIT_HOOK_SYNC='sure': expected 1 (on) or 0 (off): post-commit runs in the background" in proc.stderr
    skipped = subprocess_commit(repo, {"GRIDGIT_SKIP": "1"}, allow_empty=True)
    assert skipped.stderr == ""


def subprocess_commit(repo: Repo, env: dict[str, str], allow_empty: bool = False) -> Any:
    import subprocess

    args = ["git", "commit", "-q", "-m", "change", *(["--allow-empty"] if allow_empty else [])]
    return subprocess.run(args, cwd=repo.path, capture_output=True, text=True, env={**os.environ, **env})


# Values as a careless caller sets them: any text (no NUL, which no environment holds), and near misses.
VALUES = st.one_of(
    st.text(st.characters(exclude_categories=("Cs",), exclude_characters="\x00"), max_size=30),
    st.sampled_from(["1", "0", "", " 1", "true", "-1", "1e9", "nan", "2026-01-24T15:00:00Z", "2026-13-01",
                     "9999-12-31T23:59:59+14:00", "executor-001", "mc", "executor", ".grid", "/", "../x", "README.md"]),
)  # fmt: skip


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(variable=st.sampled_from(sorted(environment.VARIABLES)), value=VALUES, write=st.booleans())
def test_any_value_of_any_variable_gives_an_answer_or_one_line(
    repo: Repo, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str], variable: str, value: str,
    write: bool,
) -> None:  # fmt: skip
    monkeypatch.chdir(repo.path)
    monkeypatch.setenv("GRID_AGENT_ID", "executor-001")
    monkeypatch.setenv(variable, value)
    args = ["write", "-c", "discovery", "-t", "fuzz", "--content", "x"] if write else ["status", "--json"]
    before = repo.snapshot()
    try:
        code = main_in_process(args)
    finally:
        monkeypatch.delenv(variable)
    out, err = capfd.readouterr()
    assert "Traceback" not in out + err, (variable, value, err)
    if code != 0:
        assert err.count("\n") == 1 and err.startswith("gridgit: error: "), (variable, value, err)
        assert repo.snapshot() == before


def test_the_watcher_refuses_to_start_with_a_bad_variable(repo: Repo) -> None:
    for args in (["daemon", "start"], ["watch"]):
        proc = repo.gridgit(*args, env={"GRIDGIT_NOW": "yesterday"}, check=False)
        assert proc.returncode == 1 and proc.stderr.startswith("gridgit: error: GRIDGIT_NOW='yesterday'"), args
    assert not (repo.grid / ".daemon" / "daemon.pid").exists()


def test_a_bad_skip_flag_warns_in_an_agent_hook_and_the_hook_runs(repo: Repo) -> None:
    from tests.agents.helpers import hook

    repo.gridgit("setup", "claude")
    proc = hook(repo, "claude", "session-start", repo.path, "s1", GRIDGIT_SKIP="please", GRID_AGENT_ID="executor-009")
    assert "GRIDGIT_SKIP='please': expected 1 (on) or 0 (off): the hook runs" in proc.stderr
    assert proc.returncode == 0 and "executor-009" in proc.stdout  # its context pack: the hook ran
