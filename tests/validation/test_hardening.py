"""What validation catches that a hand edit or a merge can leave, and what gridgit refuses to
rewrite (DESIGN.md invariant 1: a body gridgit cannot round-trip is reported, never rewritten)."""

from __future__ import annotations

import json
import time

import pytest

from tests.conftest import Repo

P1 = "01-foundation"


def _problems(repo: Repo) -> list[str]:
    proc = repo.gridgit("validate", "--json", check=False)
    return [f"{p['line']}: {p['message']}" for p in json.loads(proc.stdout)["data"]["problems"]]


def test_every_state_problem_is_reported_in_one_run(repo: Repo) -> None:
    path = repo.grid / "STATE.md"
    text = path.read_text("utf-8")
    text = text.replace("status: ", "status: sleeping\nstatus_old: ", 1)
    text = text.replace("warnings: []", "warnings: [[1, 2]]").replace("blockers: []", "blockers: {a: 1}")
    path.write_text(text, "utf-8")
    found = _problems(repo)
    assert any("unknown field 'status_old'" in p for p in found)
    assert any("'status' must be one of" in p for p in found)
    assert any("warnings[0] must be a text or a mapping" in p for p in found)
    assert any("'blockers' must be a list" in p for p in found)


def test_conflict_markers_in_a_scratchpad_are_reported(repo: Repo) -> None:
    repo.gridgit("write", "-c", "discovery", "-t", "auth", "--content", "ours", agent="executor-001")
    pad = repo.grid / "phases" / P1 / "scratchpad.md"
    pad.write_text(pad.read_text("utf-8").replace("ours", "<<<<<<< HEAD\nours\n=======\ntheirs\n>>>>>>> b"), "utf-8")
    found = _problems(repo)
    assert sum("git conflict marker" in p for p in found) == 3


@pytest.mark.parametrize(
    ("edit", "match"),
    [
        ("**Relevance:** MEDIUM\n", "has a second **Relevance:** line"),
        ("**Owner:** bob\n", "unknown header line **Owner:**"),
    ],
)
def test_a_header_gridgit_cannot_round_trip_is_reported_never_rewritten(repo: Repo, edit: str, match: str) -> None:
    repo.gridgit("write", "-c", "discovery", "-t", "auth", "--content", "first", agent="executor-001")
    pad = repo.grid / "phases" / P1 / "scratchpad.md"
    pad.write_text(pad.read_text("utf-8").replace("**Block:**", edit + "**Block:**", 1), "utf-8")
    edited = pad.read_bytes()
    assert any(match in p for p in _problems(repo))
    proc = repo.gridgit("write", "-c", "gotcha", "-t", "db", "--content", "other", agent="executor-002", check=False)
    assert proc.returncode == 1 and match in proc.stderr
    assert pad.read_bytes() == edited  # the next unrelated write changed nothing


def test_a_yaml_alias_bomb_is_refused_quickly(repo: Repo) -> None:
    path = repo.grid / "STATE.md"
    levels = ["l0: &l0 [x, x, x, x, x, x, x, x, x, x]"]
    levels += [f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * 10)}]" for i in range(1, 9)]
    bomb = "persistent:\n" + "".join(f"  {line}\n" for line in levels)
    path.write_text(path.read_text("utf-8").replace("persistent:\n", bomb, 1), "utf-8")
    started = time.monotonic()
    proc = repo.gridgit("state", "show", "--json", check=False)
    assert proc.returncode == 1 and "aliases" in proc.stdout and len(proc.stdout) < 1000
    assert any("aliases" in p for p in _problems(repo))
    assert time.monotonic() - started < 20


def test_yaml_nested_past_its_limit_is_refused(repo: Repo) -> None:
    """docs/security.md: nesting past 64 levels is refused, like an alias."""
    path = repo.grid / "STATE.md"
    deep = "persistent:\n  deep: " + "[" * 70 + "]" * 70 + "\n"
    path.write_text(path.read_text("utf-8").replace("persistent:\n", deep, 1), "utf-8")
    assert any("nested more than 64 levels" in p for p in _problems(repo))
