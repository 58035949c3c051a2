"""`gridgit agent register|done|list`, `inbox`, `resolve` through the real CLI: help, JSON and text shapes."""

from __future__ import annotations

import pytest

from tests.conftest import Repo


@pytest.mark.parametrize(
    "command",
    [["agent"], ["agent", "register"], ["agent", "done"], ["agent", "list"], ["inbox"], ["resolve"]],
    ids=" ".join,
)
def test_help(repo: Repo, command: list[str]) -> None:
    proc = repo.gridgit(*command, "--help")
    assert proc.stdout.startswith(f"Usage: gridgit {' '.join(command)}") and proc.stderr == ""
    assert command == ["agent"] or "--json" in proc.stdout


def test_agent_list_text(repo: Repo) -> None:
    repo.gridgit("agent", "register", "--task", "auth", "--block", "01-02", agent="executor-001")
    repo.gridgit("agent", "register", "--task", "look around", agent="scout-001")
    repo.gridgit("agent", "done", "--summary", "mapped the code", agent="scout-001")
    lines = repo.gridgit("agent", "list").stdout.splitlines()
    assert lines[0] == "Active (1):"
    assert lines[1].split()[:2] == ["executor-001", "ok"] and lines[1].endswith("auth [01-02]")
    assert lines[2] == "Completed (1):"
    assert lines[3].split() == ["scout-001", "success", "mapped", "the", "code"]


def test_json_error_envelope(repo: Repo) -> None:
    import json

    proc = repo.gridgit("resolve", "7", "--json", agent="mc", check=False)
    envelope = json.loads(proc.stdout)
    assert proc.returncode == 7 and envelope["ok"] is False and envelope["error"]["code"] == "not_found"
