"""Each tool's documented payloads through the command `gridgit setup` wrote, in a linked worktree."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.agents.helpers import NATIVE, TOOLS, answer, context, hook
from tests.conftest import Repo


def said(tool: str, event: str, out: str) -> str:
    """The context TOOL's answer to EVENT gave the model (checked against the tool's schema)."""
    return context(tool, answer(tool, event, out))


def decision(tool: str, out: str) -> tuple[str, str]:
    """(the decision, the reason the model reads) of a before-edit answer that decided."""
    data = answer(tool, "before-edit", out)
    if tool in ("claude", "codex"):
        inner = data["hookSpecificOutput"]
        return inner["permissionDecision"], inner["permissionDecisionReason"]
    if tool in ("gemini", "opencode"):
        return data["decision"], data["reason"]
    if tool == "copilot":
        return data["permissionDecision"], data["permissionDecisionReason"]
    assert data["user_message"] == data["agent_message"]
    return data["permission"], data["agent_message"]


@pytest.fixture
def worktree(repo: Repo) -> Path:
    path = repo.path.parent / "agent-a"
    repo.git("worktree", "add", "-q", str(path), "-b", "agent-a")
    return path


def spawned(repo: Repo) -> list[str]:
    return [e["payload"]["agent_id"] for e in repo.events("agent_spawned")]


@pytest.mark.parametrize("tool", TOOLS)
def test_a_session_through_the_hooks(repo: Repo, worktree: Path, tool: str) -> None:
    repo.gridgit("setup", tool)
    app = worktree / "src" / "app.py"
    app.parent.mkdir()
    app.write_text("a = 2\n", encoding="utf-8")

    start = hook(repo, tool, "session-start", worktree, "sess-a")
    assert start.returncode == 0 and start.stderr == ""
    me = spawned(repo)[-1]
    assert me.startswith(f"executor-{tool}-")
    pack = said(tool, "session-start", start.stdout)
    assert f"you are {me}" in pack and "# Context for" in pack and len(pack) <= 10_000
    active = repo.gridgit_json("agent", "list")["active"]
    assert [a["worktree"] for a in active if a["id"] == me] == [str(worktree.resolve())]

    # another agent changed the file a moment ago: this edit is a write conflict, told to the model
    # through the channel that adds to the context, never by replacing the tool's result
    repo.gridgit("touch", "src/app.py", agent="executor-002")
    edit = hook(repo, tool, "after-edit", worktree, "sess-a", file=str(app))
    assert edit.returncode == 0 and edit.stderr == ""
    event = repo.events("file_modified")[-1]["payload"]
    assert event["path"] == "src/app.py" and event["agent"] == me
    assert event["tool"] == tool and event["session_id"] == "sess-a" and event["source"] == "agent-hook"
    told = answer(tool, "after-edit", edit.stdout)
    assert "decision" not in told
    message = context(tool, told)
    assert message.count("write conflict on src/app.py") == 1 and "executor-002" in message
    assert ".grid/CHECKPOINT.md" in message and "gridgit conflicts resolve src/app.py" in message

    # the other agent claims the file: the next turn hears of it once (Cursor, Copilot CLI and OpenCode,
    # which have no event before a prompt that adds context, after the next edit), and the conflict already
    # told is not told again
    repo.gridgit("claim", "src/app.py", "--reason", "refactoring the parser", agent="executor-002")
    if "prompt" not in NATIVE[tool]:
        other = worktree / "src" / "other.py"
        turn = said(tool, "after-edit", hook(repo, tool, "after-edit", worktree, "sess-a", file=str(other)).stdout)
    else:
        turn = said(tool, "prompt", hook(repo, tool, "prompt", worktree, "sess-a").stdout)
    assert "executor-002 claimed src/app.py" in turn and "refactoring the parser" in turn
    assert "write conflict" not in turn
    if "prompt" in NATIVE[tool]:
        assert said(tool, "prompt", hook(repo, tool, "prompt", worktree, "sess-a").stdout) == ""

    # claims.on_edit: ask (the default); a tool that does not enforce `ask` refuses the edit
    # instead, telling the model how the user can let it through
    before = hook(repo, tool, "before-edit", worktree, "sess-a", file=str(app))
    verdict, reason = decision(tool, before.stdout)
    assert "claimed by executor-002" in reason and "refactoring the parser" in reason
    if tool in ("claude", "copilot"):  # the tools that enforce `ask` (Copilot CLI: a deny where no one can answer)
        assert verdict == "ask"
    else:
        assert verdict == "deny" and "gridgit release src/app.py --agent executor-002" in reason

    end = hook(repo, tool, "end", worktree, "sess-a")
    assert end.returncode == 0 and answer(tool, "end", end.stdout) == {}
    beat = next(a for a in repo.gridgit_json("agent", "list")["active"] if a["id"] == me)
    assert beat["last_heartbeat"]
    assert spawned(repo) == [me]  # one session, one agent, across every call


def test_identity_env_subagents_and_claim_modes(repo: Repo, worktree: Path) -> None:
    repo.gridgit("setup", "claude")
    target = str(worktree / "src" / "x.py")
    hook(repo, "claude", "session-start", worktree, "s1", GRID_AGENT_ID="executor-007")
    assert spawned(repo) == ["executor-007"]
    from tests.agents.helpers import command, payload, run

    sub = json.loads(payload("claude", "after-edit", session="s1", cwd=str(worktree), file=target))
    sub.update(agent_id="agent-42", agent_type="Explore")
    run(command(repo.path, "claude", "after-edit"), json.dumps(sub), worktree)
    child = spawned(repo)[-1]
    assert child.startswith("executor-claude-") and repo.events("file_modified")[-1]["payload"]["agent"] == child
    # Codex names its sub-agents the same way (SubagentStart's `agent_id`, `agent_type`): one agent per sub-agent,
    # the same one at every call, with no environment at all
    repo.gridgit("setup", "codex")
    codex = json.loads(payload("codex", "after-edit", session="c1", cwd=str(worktree), file=target, rel="src/x.py"))
    seen = []
    for sub_id in ("w1", "w1", "w2"):
        run(command(repo.path, "codex", "after-edit"), json.dumps({**codex, "agent_id": sub_id, "agent_type": "worker"}),
            worktree)  # fmt: skip
        seen.append(repo.events("file_modified")[-1]["payload"])
    assert seen[0]["agent"] == seen[1]["agent"] != seen[2]["agent"] and seen[0]["subagent"] == "worker:w1"

    repo.gridgit("claim", "src/x.py", agent="executor-002")
    config = json.loads((repo.grid / "config.json").read_text(encoding="utf-8"))
    for mode, expected in (("deny", "deny"), ("allow", None)):
        config.setdefault("claims", {})["on_edit"] = mode
        (repo.grid / "config.json").write_text(json.dumps(config), encoding="utf-8")
        out = hook(repo, "claude", "before-edit", worktree, "s1", file=target).stdout
        got = json.loads(out)["hookSpecificOutput"]["permissionDecision"] if out else None
        assert got == expected
    config["claims"]["on_edit"] = "maybe"
    (repo.grid / "config.json").write_text(json.dumps(config), encoding="utf-8")
    odd = hook(repo, "claude", "before-edit", worktree, "s1", file=target)
    assert odd.stdout == "" and "claims.on_edit must be one of ask, deny, allow" in odd.stderr
    assert "claims.on_edit must be one of ask, deny, allow" in repo.gridgit("validate", check=False).stdout


def test_the_context_pack_fits_the_tools_limit(repo: Repo) -> None:
    from gridgit import Blackboard

    board = Blackboard(repo.path)
    for n in range(40):
        board.write("gotcha", f"topic-{n}", "x" * 1100, agent="executor-003", relevance="HIGH")
    repo.gridgit("setup", "claude")
    out = hook(repo, "claude", "session-start", repo.path, "big", GRID_AGENT_ID="memory-001").stdout
    pack = said("claude", "session-start", out)
    assert 9_000 < len(pack) <= 10_000 and "cut by gridgit" in pack


def test_statusline(repo: Repo, worktree: Path) -> None:
    repo.gridgit("setup", "claude")
    hook(repo, "claude", "session-start", worktree, "sess-a")
    me = spawned(repo)[-1]
    repo.gridgit("touch", "src/app.py", agent="executor-002")
    hook(repo, "claude", "after-edit", worktree, "sess-a", file=str(worktree / "src/app.py"))
    repo.gridgit("claim", "src/app.py", agent="executor-002")
    settings = json.loads((repo.path / ".claude/settings.json").read_text(encoding="utf-8"))
    from tests.agents.helpers import payload, run

    line = run(
        settings["statusLine"]["command"],
        payload("claude", "statusline", session="sess-a", cwd=str(worktree)),
        worktree,
    )
    assert line.returncode == 0 and line.stdout.count("\n") == 1
    # waiting: the claim; the conflict its own edit found was told by that edit's hook (the ledger)
    assert line.stdout == f"grid 01-foundation · {me} · 1 active · 1 conflict on your files · 1 waiting\n"
    kept = list((repo.grid / "events/cursors/sessions").glob("*.statusline"))
    assert len(kept) == 1 and kept[0].read_text(encoding="utf-8").endswith(line.stdout.strip())
    again = run(
        settings["statusLine"]["command"],
        payload("claude", "statusline", session="sess-a", cwd=str(worktree)),
        worktree,
    )
    assert again.stdout == line.stdout
    assert (
        repo.gridgit("statusline", input="not json", cwd=worktree).stdout
        == "grid 01-foundation · 1 active · 1 conflict\n"
    )
    assert repo.gridgit("statusline", input="{}", cwd=repo.path.parent).stdout == ""  # no repository: no line


BIG = " " * (17 * 1024 * 1024) + "{}"
BAD = {
    "empty stdin": ("after-edit", ""),
    "not JSON": ("after-edit", "this is not json"),
    "a JSON list": ("after-edit", "[1, 2]"),
    "huge stdin": ("after-edit", BIG),
    "not UTF-8": ("after-edit", b'{"session_id": "\xff\xfe"}'),
    "no session id": ("after-edit", {"session_id": None}),
    "no tool input": ("after-edit", {"tool_input": None}),
    "a NUL in the path": ("after-edit", {"file": "/tmp/a\u0000b"}),
    "a line break in the path": ("after-edit", {"file": "src/a\nb.py"}),
    "a tab in the path": ("after-edit", {"file": "src/a\tb.py"}),
    "an escape in the path, before an edit": ("before-edit", {"file": "src/\u001b[2Ja.py"}),
    "cwd is no directory": ("after-edit", {"cwd": "/no/such/dir"}),
    "unknown event": ("explode", {}),
}


@pytest.mark.parametrize("tool", ["claude", "gemini"])
@pytest.mark.parametrize("case", sorted(BAD))
def test_every_bad_input_fails_open_and_writes_nothing(repo: Repo, tool: str, case: str) -> None:
    from tests.agents.helpers import command, payload, run

    event, given = BAD[case]
    (repo.path / "src").mkdir()
    if isinstance(given, dict):
        data = json.loads(
            payload(tool, "after-edit", session="s1", cwd=str(repo.path), file=str(repo.path / "src/a.py"))
        )
        for key, value in given.items():
            if key == "file":
                data["tool_input"]["file_path"] = value
            elif value is None:
                data.pop(key)
            else:
                data[key] = value
        given = json.dumps(data)
    repo.gridgit("setup", tool)
    if event == "before-edit":  # a live claim somewhere: the full path runs (with none, the fast path allows at once)
        repo.gridgit("claim", "src/b.py", agent="executor-002")
    cmd = command(repo.path, tool, "after-edit").replace(f"{tool} after-edit", f"{tool} {event}")
    before = repo.snapshot()
    result = run(cmd, given, repo.path)
    assert result.returncode == 0
    assert len(result.stderr.splitlines()) == 1 and result.stderr.startswith("gridgit: "), result.stderr
    assert "Traceback" not in result.stderr
    if "the path" in case:  # the one path gate (store.usertext.check_path), as on every other surface
        assert "holds a control character" in result.stderr
    assert result.stdout == ("{}" if tool == "gemini" else "")
    assert repo.snapshot() == before


def test_unknown_tool_skip_switch_outside_paths_and_time_budget(repo: Repo) -> None:
    from tests.agents.helpers import command, payload, run

    repo.gridgit("setup", "claude")
    cmd = command(repo.path, "claude", "after-edit")
    outside = payload("claude", "after-edit", session="s1", cwd=str(repo.path), file="/etc/hosts")
    before = repo.snapshot()
    unknown = run(cmd.replace("claude after-edit", "vim after-edit"), outside, repo.path)
    assert unknown.returncode == 0 and "unknown agent tool 'vim'" in unknown.stderr
    assert run(cmd, outside, repo.path, {"GRIDGIT_SKIP": "1"}).stderr == ""
    ignored = run(cmd, outside, repo.path)  # a file outside the repository is no edit of it
    assert ignored.returncode == 0 and ignored.stdout == ignored.stderr == ""
    assert repo.snapshot() == before

    config = json.loads((repo.grid / "config.json").read_text(encoding="utf-8"))
    config["hooks"] = {"timeout_seconds": 0.001}
    (repo.grid / "config.json").write_text(json.dumps(config), encoding="utf-8")
    inside = payload("claude", "after-edit", session="s1", cwd=str(repo.path), file=str(repo.path / "a.py"))
    late = run(cmd, inside, repo.path)
    assert late.returncode == 0 and "time budget" in late.stderr and len(late.stderr.splitlines()) == 1


def test_the_watcher_does_not_report_an_edit_a_hook_attributed(daemons: Any) -> None:
    repo = daemons.repo
    repo.gridgit("setup", "claude")
    hook(repo, "claude", "session-start", repo.path, "s1")
    daemons.start()
    from tests.conftest import wait_for

    for n in range(3):
        path = repo.write(f"src/edit{n}.py", f"x = {n}\n")
        assert hook(repo, "claude", "after-edit", repo.path, "s1", file=str(path)).returncode == 0
    repo.write("src/by-hand.py", "y = 1\n")  # no hook saw this one: the watcher reports it
    wait_for(lambda: [e for e in repo.events("file_modified") if e["payload"]["path"] == "src/by-hand.py"])
    reported = [e["payload"] for e in repo.events("file_modified")]
    assert sorted(p["path"] for p in reported) == ["src/by-hand.py", "src/edit0.py", "src/edit1.py", "src/edit2.py"]
    assert all(p.get("source") == "agent-hook" for p in reported if p["path"] != "src/by-hand.py")


def test_no_blackboard_is_silent_and_the_cli_entry_point_is_the_same(bare_repo: Repo) -> None:
    from tests.agents.helpers import payload

    bare_repo.gridgit("setup", "gemini")
    text = payload("gemini", "after-edit", session="s1", cwd=str(bare_repo.path), file=str(bare_repo.path / "a.py"))
    quiet = hook(bare_repo, "gemini", "after-edit", bare_repo.path, "s1", file=str(bare_repo.path / "a.py"))
    assert (quiet.returncode, quiet.stdout, quiet.stderr) == (0, "{}", "")
    via_cli = bare_repo.gridgit("agent-hook", "gemini", "after-edit", input=text)
    assert (via_cli.stdout, via_cli.stderr) == ("{}", "")
    assert not (bare_repo.path / ".grid").exists()


def test_a_new_session_hears_what_happened_since_the_last_one(repo: Repo, worktree: Path) -> None:
    repo.gridgit("setup", "claude")
    me = {"GRID_AGENT_ID": "executor-005"}
    app = str(worktree / "src" / "app.py")
    hook(repo, "claude", "session-start", worktree, "monday", **me)
    hook(repo, "claude", "after-edit", worktree, "monday", file=app, **me)
    hook(repo, "claude", "end", worktree, "monday", **me)
    repo.gridgit("claim", "src/app.py", "--reason", "schema change", agent="executor-002")  # while it was away
    start = hook(repo, "claude", "session-start", worktree, "tuesday", **me)
    assert "## New for you since your last session" in start.stdout
    assert "executor-002 claimed src/app.py" in start.stdout and "schema change" in start.stdout
    assert "claimed" not in hook(repo, "claude", "prompt", worktree, "tuesday", **me).stdout  # told once
    bad = hook(repo, "claude", "prompt", worktree, "tuesday", GRID_AGENT_ID="not an id")
    assert bad.returncode == 0 and bad.stdout == "" and "GRID_AGENT_ID" in bad.stderr


def test_a_config_travels_to_another_clone_and_fails_open_without_gridgit(repo: Repo, tmp_path: Path) -> None:
    """The committed config names no path of this machine: another clone at another path runs it as it is."""
    from tests.agents.helpers import BIN_ON_PATH, CONFIG, command, payload, run
    from tests.conftest import git

    for tool in TOOLS:
        repo.gridgit("setup", tool)
    git(repo.path, "add", "--", *CONFIG.values())
    git(repo.path, "commit", "-q", "-m", "agent tools: gridgit's hooks", env={"GRIDGIT_SKIP": "1"})
    for tool in TOOLS:
        assert str(repo.path) not in (repo.path / CONFIG[tool]).read_text(encoding="utf-8")
        assert BIN_ON_PATH not in (repo.path / CONFIG[tool]).read_text(encoding="utf-8")
    clone = Repo(tmp_path / "elsewhere" / "clone")
    git(tmp_path, "clone", "-q", str(repo.path), str(clone.path))
    clone.gridgit("init")
    for tool in TOOLS:
        assert clone.gridgit("setup", tool, "--check").returncode == 0  # the same bytes are current there
        path = clone.write("src/b.py", "b = 1\n")
        ran = run(command(clone.path, tool, "after-edit"), payload(tool, "after-edit", session=f"s-{tool}",
                  cwd=str(clone.path), file=str(path), rel="src/b.py"), clone.path)  # fmt: skip
        assert (ran.returncode, ran.stderr) == (0, "")
        assert clone.events("file_modified")[-1]["payload"]["tool"] == tool

    # no gridgit on PATH: one line naming the install command, what the tool reads as silence, exit 0
    for tool in TOOLS:
        text = payload(tool, "before-edit", session="s1", cwd=str(clone.path), file=str(clone.path / "b.py"))
        bare = run(command(clone.path, tool, "before-edit"), text, clone.path, {"PATH": "/usr/bin:/bin"})
        assert bare.returncode == 0 and bare.stderr.count("\n") == 1 and "pip install gridgit" in bare.stderr
        answer(tool, "before-edit", bare.stdout)


def test_a_tool_that_stops_reading_or_gives_no_stdout_is_no_failure(repo: Repo) -> None:
    """A hook flushes its answer and exits without the interpreter's teardown: a reader gone
    before the answer (EPIPE) or a closed stdout is still exit 0, one clean stderr at most, and
    the session's work is done all the same."""
    import os
    import subprocess

    from tests.agents.helpers import command, payload

    repo.gridgit("setup", "claude")
    cmd = command(repo.path, "claude", "session-start")
    env = {k: v for k, v in os.environ.items() if k != "GRID_AGENT_ID"}
    for n, closed in enumerate((" >&-", "")):
        data = payload("claude", "session-start", session=f"s-gone-{n}", cwd=str(repo.path)).encode()
        proc = subprocess.Popen(["sh", "-c", cmd + closed], cwd=repo.path, env=env, stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)  # fmt: skip
        assert proc.stdout is not None
        proc.stdout.close()  # the tool stopped reading: the context pack meets a closed pipe
        _, err = proc.communicate(data, timeout=60)
        assert proc.returncode == 0 and b"Traceback" not in err, err
    assert len(spawned(repo)) == 2  # both sessions registered
