"""One `file_modified` per edit (issue 34, findings 6 and 8): the agent hook's record of an edit and the
pre-commit hook's record of the same agent, path and content are one event (the hook records the file's
git blob id, the same as the staged one), and a new file is `created` in both. Documented payloads
through the commands `gridgit setup` wrote, real `git commit`s with gridgit's git hooks."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.agents.helpers import command, payload, run
from tests.conftest import Repo

ME = "executor-007"


def _after_edit(repo: Repo, tool: str, file: Path, **fields: Any) -> None:
    data = json.loads(payload(tool, "after-edit", session="s1", cwd=str(repo.path), file=str(file), rel=""))
    data.update(fields)
    done = run(command(repo.path, tool, "after-edit"), json.dumps(data), repo.path, {"GRID_AGENT_ID": ME})
    assert done.returncode == 0 and "gridgit:" not in done.stderr, done.stderr


def _records(repo: Repo, rel: str) -> list[dict[str, Any]]:
    return [e["payload"] for e in repo.events("file_modified") if e["payload"]["path"] == rel]


@pytest.fixture
def ignored(repo: Repo) -> Repo:
    repo.git("add", "-A")
    repo.git("commit", "-q", "-m", "ignore the blackboard")
    return repo


CLAUDE_NEW = {"tool_response": {"type": "create", "filePath": "", "content": "a = 2\n", "structuredPatch": []}}


@pytest.mark.parametrize("agent", [ME, None], ids=["same-agent", "unknown"])
def test_an_edit_then_its_commit_is_one_event(ignored: Repo, agent: str | None) -> None:
    ignored.gridgit("setup", "claude")
    app = ignored.write("src/app.py", "a = 2\n")
    _after_edit(ignored, "claude", app, **CLAUDE_NEW)
    (hooked,) = _records(ignored, "src/app.py")
    assert hooked["operation"] == "created" and hooked["blob"] == ignored.git("hash-object", "src/app.py").strip()
    ignored.git("add", "src/app.py")
    ignored.git("commit", "-q", "-m", "app", env={"GRID_AGENT_ID": agent} if agent else None)
    assert _records(ignored, "src/app.py") == [hooked]  # the commit's record is that edit


def test_a_change_after_the_hook_is_recorded_by_the_commit(ignored: Repo) -> None:
    ignored.gridgit("setup", "claude")
    app = ignored.write("src/app.py", "a = 2\n")
    _after_edit(ignored, "claude", app, **CLAUDE_NEW)
    app.write_text("a = 3\n", encoding="utf-8")  # by hand: no hook saw it
    ignored.git("add", "src/app.py")
    ignored.git("commit", "-q", "-m", "app", env={"GRID_AGENT_ID": ME})
    first, second = _records(ignored, "src/app.py")
    assert (first["operation"], second["operation"]) == ("created", "created")  # both: HEAD never had it
    assert second["blob"] == ignored.git("rev-parse", "HEAD:src/app.py").strip() != first["blob"]


def test_a_conflict_and_checkpoint_name_the_edit_once(ignored: Repo) -> None:
    ignored.gridgit("setup", "claude")
    app = ignored.write("src/app.py", "a = 1\n")
    ignored.git("add", "src/app.py")
    ignored.git("commit", "-q", "-m", "app", env={"GRIDGIT_SKIP": "1"})
    ignored.gridgit("touch", "src/app.py", agent="executor-002")
    app.write_text("a = 2\n", encoding="utf-8")
    _after_edit(ignored, "claude", app)
    ignored.git("commit", "-q", "-am", "app 2", env={"GRID_AGENT_ID": ME})
    mine = [p for p in _records(ignored, "src/app.py") if p["agent"] == ME]
    assert len(mine) == 1 and mine[0]["operation"] == "modified"
    checkpoint = (ignored.grid / "CHECKPOINT.md").read_text(encoding="utf-8")
    assert checkpoint.count(f"{ME} modified") <= 1


@pytest.mark.parametrize(
    ("tool", "fields", "operation"),
    [
        ("claude", CLAUDE_NEW, "created"),
        ("claude", {"tool_response": {"type": "update", "filePath": ""}}, "modified"),
        ("gemini", {"tool_response": {"llmContent": "Successfully created and wrote to new file: x."}}, "created"),
        ("gemini", {"tool_response": {"llmContent": "Successfully overwrote file: x."}}, "modified"),
        ("copilot", {}, "created"),  # its `create` tool (the fixture's)
        ("copilot", {"toolName": "edit"}, "modified"),
        ("opencode", {"tool_response": {"exists": False}}, "created"),
        ("opencode", {"tool_response": {"exists": True}}, "modified"),
        ("cursor", {}, "modified"),  # Cursor's answer does not say
    ],
)
def test_a_new_file_is_created_where_the_tool_says_so(
    repo: Repo, tool: str, fields: dict[str, Any], operation: str
) -> None:
    repo.gridgit("setup", tool)
    app = repo.write("src/new.py", "b = 1\n")
    _after_edit(repo, tool, app, **fields)
    assert [p["operation"] for p in _records(repo, "src/new.py")] == [operation]


def test_another_agents_edit_in_between_leaves_the_commit_the_same_edit(ignored: Repo) -> None:
    """Agent B edits the file in its worktree after A's hook recorded A's: A's commit of A's content is A's edit."""
    ignored.gridgit("setup", "claude")
    app = ignored.write("src/app.py", "a = 2\n")
    _after_edit(ignored, "claude", app, **CLAUDE_NEW)
    ignored.gridgit("touch", "src/app.py", agent="executor-002")  # B's own edit of the path, elsewhere
    ignored.git("add", "src/app.py")
    ignored.git("commit", "-q", "-m", "app", env={"GRID_AGENT_ID": ME})
    assert [p["agent"] for p in _records(ignored, "src/app.py")] == [ME, "executor-002"]
