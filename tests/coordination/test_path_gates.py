"""Finding 9 of issue 39: `heartbeat --files` and `write --block` pass the gate of paths (docs/security.md).

On the landed main `heartbeat --files ../../../etc/passwd` and `.git/config` were accepted, and `write
--block` took any text (`--upload-pack=...`, U+2028). The MCP twins are in tests/mcp/test_tools.py.
"""

from __future__ import annotations

import pytest

from tests.conftest import Repo

REFUSED = [
    (["heartbeat", "-p", "10", "--action", "reading", "--files", "../../../etc/passwd"], "outside the repository"),
    (["heartbeat", "-p", "10", "--action", "reading", "--files", ".git/config"], "inside .git"),
    (["heartbeat", "-p", "10", "--action", "reading", "--files", "a\u2028b"], "control character"),
    (["write", "-c", "gotcha", "-t", "x", "--content", "y", "--block", "--upload-pack=touch pwned"], "starts with '-'"),
    (["write", "-c", "gotcha", "-t", "x", "--content", "y", "--block", "01-02\u2028forged"], "control character"),
]


@pytest.mark.parametrize(("args", "said"), REFUSED, ids=[" ".join(a[:1] + a[-1:]) for a, _ in REFUSED])
def test_paths_and_blocks_are_refused_with_one_line_and_nothing_written(repo: Repo, args: list[str], said: str) -> None:
    before = repo.snapshot()
    proc = repo.gridgit(*args, agent="executor-001", check=False)
    assert proc.returncode == 1 and said in proc.stderr and proc.stderr.count("\n") == 1
    assert repo.snapshot() == before


def test_good_paths_and_blocks_still_pass(repo: Repo) -> None:
    repo.gridgit("heartbeat", "-p", "10", "--action", "reading", "--files", "src/a.py,docs/b.md", agent="executor-001")
    repo.gridgit("write", "-c", "handoff", "-t", "x", "--content", "y", "--block", "01-02 -> executor-003",
                 agent="executor-001")  # fmt: skip
    pad = (repo.grid / "phases/01-foundation/scratchpad.md").read_text(encoding="utf-8")
    assert "src/a.py, docs/b.md" in pad and "**Block:** 01-02 -> executor-003" in pad
