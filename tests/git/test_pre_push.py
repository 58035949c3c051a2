"""Finding 10 of issue 39: `git commit && git push` pushes a grid ref that holds the commit just made.

On the landed main the post-commit recording ran in the background while `git push`'s pre-push hook
synced, so in 2 of 10 pushes origin's grid ref lacked the commit (STATE's `resume.last_commit`). The pre-push hook now waits for (or does) the queued recording first.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gridgit.model import state
from tests.conftest import git
from tests.history.test_sync import origin_with_clones


def test_each_push_carries_the_commit_just_made(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (a,) = origin_with_clones(tmp_path, ["a"])
    monkeypatch.delenv("GRIDGIT_HOOK_SYNC")  # post-commit in the background, as users have it
    origin = tmp_path / "origin.git"
    for n in range(10):
        a.write(f"src/f{n}.py", f"x = {n}\n")
        a.git("add", "-A")
        a.git("commit", "-q", "-m", f"c{n}")
        a.git("push", "-q", "origin", "main")
        short = a.git("rev-parse", "--short", "HEAD").strip()
        shared = git(tmp_path, "--git-dir", str(origin), "show", "grid:STATE.md")
        assert state.parse(shared, "STATE.md")[0]["resume"]["last_commit"] == short, n
