"""`gridgit setup TOOL`: merged into the user's config, twice is once, removed byte for byte, checked."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gridgit.agents import codex
from gridgit.agents.tool import Edit
from tests.agents.helpers import CONFIG, JSON_TOOLS, NATIVE, TOOLS
from tests.conftest import Repo

# A user's own config: their hook on gridgit's event, a setting of theirs, four-space indents.
USER = {
    "claude": {"permissions": {"allow": ["Bash(ls)"]},
               "hooks": {"PostToolUse": [{"matcher": "Write", "hooks": [{"type": "command", "command": "fmt.sh"}]}]},
               "statusLine": {"type": "command", "command": "my-line.sh"}},
    "codex": {"hooks": {"PostToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "log.sh"}]}]}},
    "gemini": {"general": {"vimMode": True},
               "hooks": {"AfterTool": [{"matcher": "run_shell_command",
                                        "hooks": [{"name": "log", "type": "command", "command": "log.sh"}]}]}},
    "cursor": {"version": 1, "hooks": {"afterFileEdit": [{"command": "./hooks/format.sh"}]}},
    "copilot": {"version": 1, "hooks": {"postToolUse": [{"type": "command", "bash": "./scripts/log.sh"}]}},
}  # fmt: skip


@pytest.mark.parametrize("tool", JSON_TOOLS)
def test_setup_merges_keeps_the_users_hooks_twice_is_once_and_remove_restores_bytes(bare_repo: Repo, tool: str) -> None:
    path = bare_repo.path / CONFIG[tool]
    path.parent.mkdir(parents=True)
    original = json.dumps(USER[tool], indent=4) + "\n"
    path.write_text(original, encoding="utf-8")
    assert bare_repo.gridgit("setup", tool, "--check", check=False).returncode == 1

    bare_repo.gridgit("setup", tool)
    merged = json.loads(path.read_text(encoding="utf-8"))
    for key, value in USER[tool].items():
        if key != "hooks":
            assert merged[key] == value  # the user's settings (and their statusLine) are theirs
    for event, entries in USER[tool]["hooks"].items():
        assert merged["hooks"][event][: len(entries)] == entries  # their hooks first, in their order
    assert set(NATIVE[tool].values()) <= set(merged["hooks"])
    assert path.read_text(encoding="utf-8").startswith("{\n    ")  # their style
    once = path.read_bytes()

    again = bare_repo.gridgit_json("setup", tool)
    assert again["changed"] is False and path.read_bytes() == once
    assert bare_repo.gridgit("setup", tool, "--check", check=False).returncode == 0

    bare_repo.gridgit("setup", tool, "--remove")
    assert path.read_text(encoding="utf-8") == original


@pytest.mark.parametrize("tool", TOOLS)
def test_setup_creates_the_file_and_remove_deletes_it(bare_repo: Repo, tool: str) -> None:
    path = bare_repo.path / CONFIG[tool]
    bare_repo.gridgit("setup", tool)
    assert path.exists()
    bare_repo.gridgit("setup", tool, "--remove")
    assert not path.exists() and not path.parent.exists()


def test_an_outdated_hook_is_reported_and_replaced_in_place(repo: Repo) -> None:
    repo.gridgit("setup", "claude")
    path = repo.path / ".claude/settings.json"
    old = path.read_text(encoding="utf-8").replace("agent-hook claude end", "agent-hook claude stop")
    path.write_text(old, encoding="utf-8")
    check = repo.gridgit("setup", "claude", "--check", "--json", check=False)
    assert check.returncode == 1 and json.loads(check.stdout)["data"]["outdated"] == ["hooks.Stop"]
    doctor = repo.gridgit("doctor", check=False).stdout
    assert "outdated agent tool hooks: claude" in doctor
    repo.gridgit("setup", "claude")
    stops = json.loads(path.read_text(encoding="utf-8"))["hooks"]["Stop"]
    assert len(stops) == 1 and "agent-hook claude end;" in stops[0]["hooks"][0]["command"]


def test_claude_local_settings(bare_repo: Repo) -> None:
    bare_repo.gridgit("setup", "claude", "--local")
    assert (bare_repo.path / ".claude/settings.local.json").exists()
    assert not (bare_repo.path / ".claude/settings.json").exists()
    assert bare_repo.gridgit("setup", "codex", "--local", check=False).returncode == 1


@pytest.mark.parametrize("text", ["{ not json", "[1, 2]"])
def test_a_config_that_is_not_a_json_object_is_an_error_and_nothing_is_written(bare_repo: Repo, text: str) -> None:
    for tool in JSON_TOOLS:
        path = bare_repo.path / CONFIG[tool]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        for args in ((), ("--remove",), ("--check",)):
            result = bare_repo.gridgit("setup", tool, *args, check=False)
            assert result.returncode == 1 and len(result.stderr.splitlines()) == 1
            assert str(path) in result.stderr and "Traceback" not in result.stderr
        assert path.read_text(encoding="utf-8") == text


def test_codex_patch_paths() -> None:
    patch = (
        "*** Begin Patch\n*** Add File: src/new.py\n+x = 1\n*** Update File: src/app.py\n@@\n-a\n+b\n"
        "*** Update File: src/old.py\n*** Move to: src/moved.py\n@@\n-c\n+d\n*** Delete File: docs/gone.md\n"
        "*** End Patch\n"
    )
    assert codex.patch_edits(patch) == [
        Edit("src/new.py", "created"),
        Edit("src/app.py", "modified"),
        Edit("src/moved.py", "moved", "src/old.py"),
        Edit("docs/gone.md", "deleted"),
    ]


def test_two_sets_of_gridgit_parts_in_one_file_come_out_one_after_the_other(tmp_path: Path) -> None:
    # What `setup TOOL --mcp` will do: its server entry next to the hooks, in the same file.
    from gridgit.agents import jsonconfig
    from gridgit.agents.jsonconfig import KeyValue, ListItem

    path, backup = tmp_path / "settings.json", tmp_path / "git" / "settings.orig"
    original = '{"theme": "dark",\n "hooks": {}}\n'
    path.write_text(original, encoding="utf-8")
    hooks = [ListItem(("hooks", "Stop"), {"command": "x -m gridgit.agents t end"}, lambda i: "gridgit" in str(i))]
    server = [KeyValue(("mcpServers", "gridgit"), {"command": "gridgit", "args": ["mcp"]}, lambda v: True)]
    assert jsonconfig.install(path, hooks, backup).changed and jsonconfig.install(path, server, backup).changed
    assert jsonconfig.status(path, hooks + server).installed
    jsonconfig.remove(path, hooks, backup)
    assert json.loads(path.read_text(encoding="utf-8")) == {
        "theme": "dark",
        "hooks": {},
        "mcpServers": {"gridgit": server[0].value},
    }
    jsonconfig.remove(path, server, backup)
    assert path.read_text(encoding="utf-8") == original and not backup.exists()


def test_every_worktree_gets_the_hooks_and_doctor_names_one_without(repo: Repo) -> None:
    first = repo.path.parent / "wt-first"
    repo.git("worktree", "add", "-q", str(first), "-b", "first")
    repo.gridgit("setup", "claude", "--all-worktrees")
    assert (first / ".claude/settings.json").read_bytes() == (repo.path / ".claude/settings.json").read_bytes()

    # a worktree made later gets the same tools from git's post-checkout hook
    later = repo.path.parent / "wt-later"
    repo.git("worktree", "add", "-q", str(later), "-b", "later")
    assert (later / ".claude/settings.json").read_bytes() == (repo.path / ".claude/settings.json").read_bytes()
    assert repo.gridgit("setup", "claude", "--check", cwd=later).returncode == 0

    # one made with gridgit's hooks skipped has none: doctor says which, and how to fix it
    skipped = repo.path.parent / "wt-skipped"
    repo.git("worktree", "add", "-q", str(skipped), "-b", "skipped", env={"GRIDGIT_SKIP": "1"})
    doctor = repo.gridgit("doctor", check=False).stdout
    assert f"agent tool hooks missing in worktree {skipped}" in doctor
    assert "gridgit setup claude --all-worktrees" in doctor
    repo.gridgit("setup", "claude", "--all-worktrees")
    assert "agent tool hooks missing" not in repo.gridgit("doctor", check=False).stdout


def test_a_machine_whose_path_lacks_gridgit_keeps_its_location_in_claude_codes_local_settings(repo: Repo) -> None:
    import sys

    from tests.agents.helpers import command, payload, run

    no_gridgit = {"PATH": "/usr/bin:/bin"}
    exclude = repo.path / ".git" / "info" / "exclude"
    before = exclude.read_bytes() if exclude.exists() else None
    said = repo.gridgit("setup", "claude", env=no_gridgit).stdout
    # issue 34, finding 8: this machine's path is not left in a file git would commit, and setup says so
    assert "settings.local.json names it" in said and str(exclude) in said
    assert ".claude/settings.local.json" not in repo.git("status", "--porcelain", "--untracked-files=all")
    local = json.loads((repo.path / ".claude/settings.local.json").read_text(encoding="utf-8"))
    assert local == {"env": {"GRIDGIT_BIN": str(Path(sys.executable).with_name("gridgit"))}}
    shared = (repo.path / ".claude/settings.json").read_text(encoding="utf-8")
    assert str(Path(sys.executable).parent) not in shared  # the committed file stays free of this machine
    # Claude Code gives its settings' env to the hooks it runs: the command finds gridgit through it
    text = payload("claude", "after-edit", session="s1", cwd=str(repo.path), file=str(repo.path / "a.py"))
    ran = run(command(repo.path, "claude", "after-edit"), text, repo.path, {**no_gridgit, **local["env"]})
    assert (ran.returncode, ran.stderr) == (0, "") and repo.events("file_modified")[-1]["payload"]["path"] == "a.py"
    repo.gridgit("setup", "claude", "--remove", env=no_gridgit)
    assert not (repo.path / ".claude").exists()
    assert (exclude.read_bytes() if exclude.exists() else None) == before  # the exclude lines went too
    repo.gridgit("setup", "claude")  # gridgit on PATH: nothing of this machine anywhere
    assert not (repo.path / ".claude/settings.local.json").exists()


def test_copilot_gets_a_hooks_file_of_its_own_beside_the_teams_and_is_told_it_runs_claudes_too(repo: Repo) -> None:
    team = repo.path / ".github" / "hooks" / "team.json"
    team.parent.mkdir(parents=True)
    theirs = '{"version": 1, "hooks": {"sessionEnd": [{"type": "command", "bash": "./log.sh"}]}}\n'
    team.write_text(theirs, encoding="utf-8")
    done = repo.gridgit_json("setup", "copilot")
    assert done["path"].endswith(".github/hooks/gridgit.json") and done["warnings"] == []
    ours = json.loads((repo.path / CONFIG["copilot"]).read_text(encoding="utf-8"))
    assert ours["version"] == 1 and set(ours["hooks"]) == {"sessionStart", "preToolUse", "postToolUse", "agentStop"}
    assert ours["hooks"]["preToolUse"][0]["matcher"] == "create|edit" and ours["hooks"]["agentStop"][0]["timeoutSec"]
    # Copilot CLI runs the repository's .claude/settings.json hooks too: both ways round, the person is told
    told = repo.gridgit("setup", "claude")  # issue 38: on stderr, as every warning, not on stdout
    assert "gridgit: warning: claude: GitHub Copilot CLI also runs the hooks Claude Code has in .claude/" in told.stderr
    assert "warning" not in told.stdout
    assert "reported twice" in repo.gridgit_json("setup", "copilot")["warnings"][0]
    refused = repo.gridgit("setup", "copilot", "--mcp", check=False)
    assert refused.returncode == 1 and "--mcp" in refused.stderr and "copilot" in refused.stderr
    repo.gridgit("setup", "copilot", "--remove")
    assert not (repo.path / CONFIG["copilot"]).exists() and team.read_text(encoding="utf-8") == theirs


def test_copilot_edits_name_their_file_in_tool_args_an_object_or_a_json_string() -> None:
    from gridgit.agents import copilot

    edit = {"toolName": "edit", "toolArgs": {"path": "src/a.py", "old_str": "a", "new_str": "b"}}
    older = {"toolName": "create", "toolArgs": json.dumps({"path": "src/b.py", "file_text": "b = 1\n"})}
    assert copilot.edits(edit) == [Edit("src/a.py")] and copilot.edits(older) == [Edit("src/b.py", "created")]
    assert copilot.edits({"toolArgs": "not json"}) == [] and copilot.edits({}) == []
