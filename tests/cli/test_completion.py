"""issue 38.3: dynamic shell completion of block, agent, phase, entry and message ids (click's shell_complete), run
through click's own completion protocol as a shell runs it."""

from __future__ import annotations

import os
import subprocess
import sys

from tests.conftest import Repo


def complete(repo: Repo, line: str, shell: str = "bash") -> list[str]:
    """What the shell would offer after LINE (words; a trailing space starts a new word)."""
    words = line.split()
    cword = len(words) if line.endswith(" ") else len(words) - 1
    env = {**os.environ, "_GRIDGIT_COMPLETE": f"{shell}_complete", "COMP_WORDS": line, "COMP_CWORD": str(cword)}
    env.pop("GRID_AGENT_ID", None)
    done = subprocess.run([sys.executable, "-m", "gridgit"], cwd=repo.path, env=env, capture_output=True, text=True)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    return [line.split(",", 1)[1] for line in done.stdout.splitlines() if line.startswith("plain,")]


def test_names_complete_from_the_blackboard(repo: Repo) -> None:
    repo.gridgit("block", "plan", "01-04", "--name", "Completion", agent="mc")
    repo.gridgit("agent", "register", "--task", "tab", agent="executor-031")
    repo.gridgit("write", "-c", "question", "-t", "tabs", "--content", "Question: which?", agent="executor-031")
    sent = repo.gridgit_json("send", "--to", "executor-031", "--content", "hi", agent="mc")["id"]
    assert complete(repo, "gridgit take ") == ["01-04"]
    assert complete(repo, "gridgit block show 01-0") == ["01-04"]
    assert complete(repo, "gridgit read --phase 02") == ["02-core"]
    assert complete(repo, "gridgit phase complete ") == ["01-foundation", "02-core"]
    assert complete(repo, "gridgit write --agent exec") == ["executor-031"]
    assert complete(repo, "gridgit resolve ") == ["1"]
    assert complete(repo, "gridgit ack ") == [sent] == complete(repo, "gridgit thread ")


def test_without_a_blackboard_nothing_is_offered_and_nothing_said(bare_repo: Repo) -> None:
    assert complete(bare_repo, "gridgit take ") == []
    assert "take" in complete(bare_repo, "gridgit ta")  # the commands themselves still complete
