"""Bad input of every kind gives one line and the right exit code, never a traceback, and a
refused command changes no byte of .grid/ (DESIGN.md invariant 6)."""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
from typing import Any

import pytest

from tests.conftest import Repo

P1, P2 = "01-foundation", "02-core"


def run(repo: Repo, *args: str | bytes, stdin: bytes = b"", env: dict[str, str] | None = None, **kw: Any) -> Any:
    """The real CLI with raw argument bytes and stdin bytes (what a careless caller may pass)."""
    full_env = {k: v for k, v in os.environ.items() if k != "GRID_AGENT_ID"}
    full_env.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "gridgit", *args], cwd=repo.path, input=stdin, capture_output=True, env=full_env, **kw
    )


def one_line_error(proc: Any, code: int = 1) -> str:
    err = proc.stderr.decode("utf-8", "replace")
    assert proc.returncode == code, (proc.returncode, err, proc.stdout)
    assert "Traceback" not in err and err.count("\n") == 1 and err.startswith("gridgit: error: "), err
    return err


@pytest.mark.parametrize(
    ("args", "stdin", "env", "match"),
    [
        ((b"write", b"-c", b"discovery", b"-t", b"auth", b"--content", b"caf\xe9"), b"", {}, "argument 7 is not valid UTF-8"),
        ((b"write", b"-c", b"discovery", b"-t", b"auth", b"--content", b"-"), b"\xff\xfe bad", {}, "standard input is not UTF-8"),
        (("events", "emit", "heartbeat", "--payload", "-"), b"[" * 100000 + b"]" * 100000, {}, "nested too deeply"),
        (("events", "emit", "heartbeat", "--payload", '{"a":' * 40 + "1" + "}" * 40), b"", {}, "nested more than 32"),
        (("events", "emit", "heartbeat", "--payload", json.dumps({"x": "y" * 70000})), b"", {}, "the limit is 65536"),
        (("write", "-c", "discovery", "-t", "auth", "--content", "c", "--title", "t" * 300), b"", {}, "title is 300 bytes"),
        (("write", "-c", "discovery", "-t", "a" * 100, "--content", "c"), b"", {}, "topic is 100 bytes"),
        (("write", "-c", "discovery", "-t", "auth", "--content", "c", "--tags", "t" * 200), b"", {}, "tag is 200 bytes"),
        (("write", "-c", "discovery", "-t", "auth", "--content", "c", "--agent", "executor-" + "1" * 300), b"", {}, "invalid agent id"),
        (("phase", "start", "03-" + "a" * 300, "--agent", "mc"), b"", {}, "invalid phase id"),
        (("state", "update", "--set", "cluster=" + "x" * 70000, "--agent", "mc"), b"", {}, "a STATE value is"),
        (("claim", "src/a.py", "--reason", "r" * 3000, "--agent", "executor-001"), b"", {}, "a claim's reason is"),
        (("write", "-c", "discovery", "-t", "auth", "--content", "c"), b"", {"GRIDGIT_LOCK_TIMEOUT": "soon"}, "GRIDGIT_LOCK_TIMEOUT"),
        (("validate", "../../../../etc/passwd"), b"", {}, "not a file under"),
    ],
)  # fmt: skip
def test_bad_input_is_one_line_and_changes_nothing(
    repo: Repo, args: tuple[str | bytes, ...], stdin: bytes, env: dict[str, str], match: str
) -> None:
    before = repo.snapshot()
    proc = run(repo, *args, stdin=stdin, env={"GRID_AGENT_ID": "executor-001", **env})
    assert match in one_line_error(proc)
    assert repo.snapshot() == before
    with_json = run(repo, *args, "--json", stdin=stdin, env={"GRID_AGENT_ID": "executor-001", **env})
    if with_json.returncode != 2:  # a usage error of click may come before --json is known
        assert json.loads(with_json.stdout)["ok"] is False and b"Traceback" not in with_json.stderr


# Every command that takes a path or glob, each with a path no file system check would refuse but
# gridgit's one gate does (store.usertext.check_path): NUL cannot reach argv, the API and MCP get it.
BAD_PATHS = ["evil\n- path: injected.py", "src/a\tb.py", "src/\x1b[2Ja.py", "src/a\rb.py", "src/a\u2028b.py"]
PATH_COMMANDS = [
    ("touch", "{}"),
    ("touch", "src/a.py", "--operation", "moved", "--from", "{}"),
    ("conflicts", "check", "{}"),
    ("conflicts", "resolve", "{}"),
    ("claim", "{}"),
    ("release", "{}"),
    ("heartbeat", "-p", "5", "-a", "testing", "--files", "ok.py,{}"),
    ("agent", "register", "--worktree", "{}"),
    ("validate", "{}"),
]


@pytest.mark.parametrize("number", range(len(PATH_COMMANDS)))
def test_a_path_with_a_control_character_is_refused_by_every_command(repo: Repo, number: int) -> None:
    bad = BAD_PATHS[number % len(BAD_PATHS)]
    args = [a.replace("{}", bad) for a in PATH_COMMANDS[number]]
    before = repo.snapshot()
    assert "holds a control character" in one_line_error(run(repo, *args, env={"GRID_AGENT_ID": "executor-001"}))
    assert repo.snapshot() == before


@pytest.mark.parametrize(
    ("setting", "match"),
    [
        ({"scratchpad": {"max_entries": "fifty"}}, "scratchpad.max_entries must be a number"),
        ({"scratchpad": {"max_entries": 0}}, "scratchpad.max_entries must be 1 or more"),
        ({"scratchpad": {"max_entries": 10, "keep_recent": 20}}, "keep_recent must be less than"),
        ({"claims": {"ttl_minutes": -5}}, "claims.ttl_minutes must be more than 0"),
        ({"conflicts": {"on_commit": "maybe"}}, "must be one of warn, block"),
        ({"entries": {"strict": "yes"}}, "entries.strict must be true or false"),
        ({"scratchpad": []}, "scratchpad must be an object"),
    ],
)
def test_a_bad_config_value_is_named_and_phase_complete_does_nothing(
    repo: Repo, setting: dict[str, Any], match: str
) -> None:
    repo.gridgit("write", "-c", "gotcha", "-t", "auth", "--content", "Gotcha: x", agent="executor-001")
    (repo.grid / "config.json").write_text(json.dumps(setting), encoding="utf-8")
    before = repo.snapshot()
    assert match in one_line_error(run(repo, "phase", "complete", P1, env={"GRID_AGENT_ID": "mc"}))
    assert repo.snapshot() == before  # not archived and promoted with STATE left behind
    problems = json.loads(repo.gridgit("validate", "--json", check=False).stdout)["data"]["problems"]
    assert any(match in p["message"] for p in problems)


def test_validate_reports_unknown_config_keys(repo: Repo) -> None:
    (repo.grid / "config.json").write_text('{"scratchpad": {"max_entrys": 5}, "colour": {}}', encoding="utf-8")
    out = repo.gridgit("validate", check=False)
    assert out.returncode == 1
    assert "scratchpad.max_entrys is not a setting" in out.stdout and "colour is not a setting" in out.stdout
    repo.gridgit("write", "-c", "discovery", "-t", "auth", "--content", "c", agent="executor-001")  # still works


def test_os_errors_are_one_line_and_leave_data_intact(repo: Repo) -> None:
    # a directory where a file should be
    claims = repo.grid / "claims.json"
    claims.mkdir()
    before = repo.snapshot()
    assert "claims.json" in one_line_error(run(repo, "claim", "src/a.py", env={"GRID_AGENT_ID": "executor-001"}))
    assert repo.snapshot() == before
    claims.rmdir()
    # a file too large for the process's limit (what a full disk looks like to a writer: a failed write)
    pad = repo.grid / "phases" / P1 / "scratchpad.md"
    text = pad.read_bytes()

    def small_files() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (len(text) + 100, len(text) + 100))

    proc = run(
        repo, "write", "-c", "discovery", "-t", "auth", "--content", "x" * 5000,
        env={"GRID_AGENT_ID": "executor-001"}, preexec_fn=small_files,
    )  # fmt: skip
    one_line_error(proc)
    assert pad.read_bytes() == text
    assert not list(pad.parent.glob("*.tmp"))
    # a name too long for the file system
    long_dir = str(repo.path / ("x" * 300))
    assert "File name too long" in one_line_error(run(repo, "status", env={"GRID_DIR": long_dir}))


def test_a_write_whose_event_fails_still_succeeds_once(repo: Repo) -> None:
    log = repo.grid / "events" / "current.jsonl"
    log.unlink()
    log.mkdir()  # the event log cannot be appended to
    proc = repo.gridgit("write", "-c", "discovery", "-t", "auth", "--content", "only once", agent="executor-001")
    assert "warning" in proc.stderr and "entry_written" in proc.stderr and "Traceback" not in proc.stderr
    assert (repo.grid / "phases" / P1 / "scratchpad.md").read_text("utf-8").count("only once") == 1


def test_phase_order_cannot_be_skipped(repo: Repo) -> None:
    before = repo.snapshot()
    proc = run(repo, "phase", "complete", P2, env={"GRID_AGENT_ID": "mc"})
    assert "phase 01-foundation is current and not complete" in one_line_error(proc)
    assert repo.snapshot() == before


def test_permissions_are_closed_by_default(repo: Repo) -> None:
    before = repo.snapshot()
    for args in (("phase", "complete", P1), ("phase", "start", "03-x"), ("archive",)):
        assert "needs Master Control" in one_line_error(run(repo, *args), code=4)
    assert "scout agents may not write" in one_line_error(
        run(repo, "write", "-c", "gotcha", "-t", "auth", "--content", "x", env={"GRID_AGENT_ID": "scout-001"}), 4
    )
    assert "scout agents may not write" in one_line_error(
        run(repo, "conflicts", "resolve", "--all", env={"GRID_AGENT_ID": "scout-001"}), 4
    )
    assert repo.snapshot() == before


@pytest.mark.parametrize("link", ["phases/01-foundation", "phases", "events", ".grid"])
def test_writes_never_go_through_a_symlink(repo: Repo, tmp_path: Any, link: str) -> None:
    """Not the data, and no lock file either (issue 24.6: `.current.lock` was made through a symlinked events/)."""
    outside = tmp_path / "outside"
    real = repo.path / link if link == ".grid" else repo.grid / link
    real.rename(outside)
    real.symlink_to(outside, target_is_directory=True)
    for stale in outside.rglob("*.lock"):  # as a pull or a copy brings it: no lock files
        stale.unlink()
    before = {p.relative_to(outside): p.is_file() and p.read_bytes() for p in outside.rglob("*")}
    write, touch = ("write", "-c", "discovery", "-t", "auth", "--content", "x"), ("touch", "src/a.py")
    heartbeat, start = (
        ("heartbeat", "-p", "5", "-a", "testing"),
        ("phase", "start", "03-extra", "--agent", "mc", "--force"),
    )
    inbox, poll = ("inbox", "--agent", "executor-002"), ("events", "poll", "--agent", "executor-002")
    writes = {"phases/01-foundation": [write, heartbeat], "phases": [write, start], "events": [touch, inbox, poll]}
    for args in writes.get(link, [write, touch]):
        proc = run(repo, *args, env={"GRID_AGENT_ID": "executor-001"})
        assert "is a symlink" in one_line_error(proc)
    assert {p.relative_to(outside): p.is_file() and p.read_bytes() for p in outside.rglob("*")} == before
