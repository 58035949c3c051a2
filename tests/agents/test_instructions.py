"""issue 38.3: `gridgit setup TOOL --instructions` writes the protocol's short instructions into the file each agent
tool reads, as `bd onboard` does: a marked section, idempotent, checked, and taken out by `--remove` byte for byte;
every command it names parses and runs."""

from __future__ import annotations

import json
import shlex

import pytest

from gridgit.agents.instructions import BEGIN, END, FILES
from tests.conftest import Repo

THEIRS = {"none": None, "with a final line break": "# Rules\n\nBe kind.\n", "without one": "# Rules\n\nBe kind."}


@pytest.mark.parametrize("tool", sorted(FILES))
def test_each_tool_gets_its_documented_file_once_and_it_comes_out_byte_for_byte(repo: Repo, tool: str) -> None:
    path = repo.path / FILES[tool]
    for label, theirs in THEIRS.items():
        if theirs is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(theirs, encoding="utf-8")
        repo.gridgit("setup", tool, "--instructions")
        text = path.read_text(encoding="utf-8")
        assert text.count(BEGIN.removesuffix(" -->")) == 1 and text.count(END) == 1, label
        assert theirs is None or text.startswith(theirs), label
        if tool == "cursor" and theirs is None:  # a rule of gridgit's own, applied to every request
            assert text.startswith("---\n") and "alwaysApply: true" in text.split("---")[1]
        repo.gridgit("setup", tool, "--instructions")  # idempotent
        assert path.read_text(encoding="utf-8") == text, label
        assert repo.gridgit("setup", tool, "--instructions", "--check").returncode == 0
        repo.gridgit("setup", tool, "--remove")
        if theirs is None:
            assert not path.exists(), label  # gridgit made it: gone
        else:
            assert path.read_text(encoding="utf-8") == theirs, label
            path.unlink()


def test_a_stale_section_is_replaced_in_place_and_check_says_so(repo: Repo) -> None:
    path = repo.path / "AGENTS.md"
    path.write_text(f"# Team\n\n{BEGIN}\nold words\n{END}\n\n## More of theirs\n", encoding="utf-8")
    refused = repo.gridgit("setup", "codex", "--instructions", "--check", check=False)
    assert refused.returncode == 1 and "AGENTS.md are outdated" in refused.stdout
    repo.gridgit("setup", "codex", "--instructions")
    text = path.read_text(encoding="utf-8")
    assert text.startswith(f"# Team\n\n{BEGIN}\n## gridgit") and text.endswith(f"{END}\n\n## More of theirs\n")
    assert "old words" not in text


def test_a_symlink_is_never_written_through(repo: Repo) -> None:
    (repo.path / "AGENTS.md").write_text("# Shared\n", encoding="utf-8")
    (repo.path / "CLAUDE.md").symlink_to("AGENTS.md")
    done = repo.gridgit("setup", "claude", "--instructions")
    assert "symlink" in done.stderr and (repo.path / "AGENTS.md").read_text(encoding="utf-8") == "# Shared\n"


def test_every_command_the_instructions_name_parses_and_runs(repo: Repo) -> None:
    """Invariant 9: what a model is told names a command that succeeds. Each placeholder filled in, each line run."""
    repo.gridgit("setup", "gemini", "--instructions")
    text = (repo.path / "GEMINI.md").read_text(encoding="utf-8")
    lines = [chunk for i, chunk in enumerate(text.split("`")) if i % 2 and chunk.startswith("gridgit ")]
    assert len(lines) >= 8
    repo.gridgit("block", "plan", "01-01", "--name", "Told", "--files", "src/told.py", agent="mc")
    filled = {"TASK": "told", "PATH": "src/told.py", "CATEGORY": "discovery", "TOPIC": "told", "TEXT": "Found: x",
              "PERCENT": "50", "WHAT": "working", "BLOCK": "01-01", "WHAT WAS DONE": "done"}  # fmt: skip
    for line in lines:
        if line == "gridgit --help":
            continue
        words = [filled.get(w, w) for w in shlex.split(line)][1:]
        done = repo.gridgit(*words, "--json", agent="executor-001", check=False)
        assert done.returncode == 0, (line, done.stderr)
        assert json.loads(done.stdout)["ok"] is True
