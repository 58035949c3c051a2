"""issue 38.2: the exit-code contract (docs/cli.md) at the edges a newcomer found, one row a test; help, errors and
warnings as click's and git's users expect."""

from __future__ import annotations

import json

import pytest

from tests.conftest import Repo

BIG = "a" * 120_000


def test_bare_gridgit_prints_its_help_and_exits_0(bare_repo: Repo) -> None:
    done = bare_repo.gridgit(check=False)
    assert done.returncode == 0 and done.stderr == ""
    assert done.stdout.startswith("Usage: gridgit [OPTIONS] COMMAND [ARGS]...\n\n")
    assert "\nCommands:\n" in done.stdout and len(done.stdout.splitlines()) > 30  # click's help, not one line


@pytest.mark.parametrize("group", ["phase", "events", "agent", "hooks", "daemon", "conflicts", "memory"])
def test_a_group_without_its_subcommand_prints_its_help_on_stderr_and_exits_2(bare_repo: Repo, group: str) -> None:
    done = bare_repo.gridgit(group, check=False)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith(f"Usage: gridgit {group} [OPTIONS] COMMAND [ARGS]...\n\n")
    assert "\nCommands:\n" in done.stderr and "gridgit: error:" not in done.stderr


def test_a_mistyped_command_or_option_gets_a_did_you_mean(bare_repo: Repo) -> None:
    command = bare_repo.gridgit("stauts", check=False)
    assert command.returncode == 2 and "No such command 'stauts'. Did you mean 'status'" in command.stderr
    sub = bare_repo.gridgit("phase", "strat", check=False)
    assert sub.returncode == 2 and "Did you mean 'start'?" in sub.stderr
    option = bare_repo.gridgit("read", "--jsn", check=False)
    assert option.returncode == 2 and "Did you mean '--json'?" in option.stderr


def test_a_long_value_is_elided_in_its_middle_so_the_reason_stays(repo: Repo) -> None:
    refused = repo.gridgit("read", "--phase", BIG + "x", check=False)
    (line,) = refused.stderr.splitlines()
    assert len(line) < 300 and "(119,924 more)…" in line and line.endswith("x': expected NN-slug, e.g. 01-foundation")


def test_out_of_range_counts_are_usage_errors_not_tracebacks(repo: Repo) -> None:
    done = repo.gridgit("events", "tail", "-n", "9223372036854775808", check=False)
    assert done.returncode == 2 and "Traceback" not in done.stderr and "is too large" in done.stderr


@pytest.mark.parametrize(
    ("args", "agent", "code", "said"),
    [
        (["resolve", "Phase 5!#1"], "mc", 1, "not an entry's name"),  # malformed: 1, not 7
        (["resolve", BIG], "mc", 1, "the limit is 200"),  # a 120 KB name is malformed (1), not unknown (7)
        (["agent", "done", "executor-099"], "executor-001", 7, "not registered"),  # 7 before 4
        (["restore", "phases/09-nope"], "mc", 7, "not in the grid history nor on disk"),  # was 0, "skipped"
        (["budget", "transcript", "/nonexistent.jsonl"], "mc", 2, "does not exist"),  # was 0
        (["snapshot", "-m", BIG], "mc", 1, "the limit is 4096"),  # took 120 KB
    ],
)
def test_each_edge_answers_its_documented_exit_code(
    repo: Repo, args: list[str], agent: str, code: int, said: str
) -> None:
    before = repo.snapshot()
    done = repo.gridgit(*args, "--json", agent=agent, check=False)
    assert done.returncode == code, done.stderr
    assert said in json.loads(done.stdout)["error"]["message"]
    assert repo.snapshot() == before


def test_a_grid_dir_that_is_not_utf8_is_refused_before_anything_is_written(bare_repo: Repo) -> None:
    import os
    import subprocess
    import sys

    env = {**os.environ, "GRID_DIR": os.fsdecode(b"\xff")}
    done = subprocess.run([sys.executable, "-m", "gridgit", "init"], cwd=bare_repo.path, env=env,
                          capture_output=True, text=True)  # fmt: skip
    assert done.returncode == 1 and "GRID_DIR" in done.stderr and "not valid UTF-8" in done.stderr
    assert sorted(p.name for p in bare_repo.path.iterdir()) == [".git", "README.md"]


def test_singular_and_plural_category_names_are_both_taken(repo: Repo) -> None:
    repo.gridgit("write", "-c", "gotchas", "-t", "cats", "--content", "Gotcha: x\nFirst Hit: y\nFix: z",
                 agent="executor-001")  # fmt: skip
    assert [e["category"] for e in repo.gridgit_json("read", "--category", "gotcha")] == ["gotcha"]
    assert repo.gridgit_json("read", "--category", "gotchas") == repo.gridgit_json("read", "--category", "gotcha")
    assert repo.gridgit("learnings", "--category", "gotcha").returncode == 0
    assert repo.gridgit("learnings", "--category", "gotchas").returncode == 0


def test_a_promotion_dry_run_is_a_read_any_agent_may_make(repo: Repo) -> None:
    before = repo.snapshot()
    assert repo.gridgit("promote", "--dry-run", agent="executor-001").returncode == 0
    assert repo.gridgit("promote", agent="executor-001", check=False).returncode == 4
    assert repo.snapshot() == before


def test_take_without_a_remote_names_no_command_that_fails(repo: Repo) -> None:
    repo.gridgit("block", "plan", "01-01", "--name", "Edges", agent="mc")
    taken = repo.gridgit("take", agent="executor-001").stdout
    # without a remote this clone's lock alone decides: the take is final, nothing left to run
    assert "took block 01-01" in taken and "gridgit sync" not in taken and "PROVISIONAL" not in taken
    # and the work has started: STATE says so (status showed `[planning, ...]`)
    assert repo.gridgit_json("state", "show", "--field", "status") == "in_progress"


def test_content_quoting_a_git_conflict_is_kept_exactly_and_never_read_as_one(repo: Repo) -> None:
    # Found by test_properties: `write --content '<<<<<<< HEAD'` left a file validate called a failed merge.
    quoted = "fix:\n<<<<<<< HEAD\na\n|||||||\n=======\nb\n>>>>>>> theirs\n\\<<<<<<< already"
    repo.gridgit("write", "-c", "gotcha", "-t", "merge", "--content", quoted, agent="executor-001")
    repo.gridgit("block", "plan", "01-01", "--content", quoted, agent="mc")
    repo.gridgit("send", "--to", "mc", "--content", quoted, agent="executor-001")
    repo.gridgit("validate")
    assert [e["content"] for e in repo.gridgit_json("read", "-t", "merge")] == [quoted]  # its markdown is escaped
    assert quoted in repo.gridgit("block", "show", "01-01").stdout
    assert json.dumps(quoted) in json.dumps(repo.gridgit_json("inbox", "--peek", agent="mc"))
