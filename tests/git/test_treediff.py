"""git diff-tree over pairs of trees: function-context hunks, and the diff drivers gridgit lends git."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import Repo
from tests.git.test_diffs import changed

SOURCE = "class K:\n    def m1(self):\n        return 1\n\n    def m2(self):\n        return 2\n"


def edited_method(repo: Repo) -> None:
    repo.write("k.py", SOURCE)
    repo.git("add", "k.py")
    repo.git("commit", "-q", "-m", "k")
    repo.write("k.py", SOURCE.replace("return 2", "return 22"))


def test_function_context_hunks_open_on_the_function(bare_repo: Repo) -> None:
    edited_method(bare_repo)
    (hunk,) = changed(bare_repo, "k.py", function_context=True).hunks
    # git's python driver (gridgit's attributes file): the method, not the class
    assert hunk.first_line == "def m2(self):" and (hunk.old_start, hunk.old_end) == (5, 6)


def test_a_global_attributes_file_of_the_users_is_left_alone(bare_repo: Repo, tmp_path: Path) -> None:
    mine = tmp_path / "my-attributes"
    mine.write_text("*.txt text\n", encoding="utf-8")
    bare_repo.git("config", "core.attributesFile", str(mine))
    edited_method(bare_repo)
    (hunk,) = changed(bare_repo, "k.py", function_context=True).hunks
    assert hunk.first_line == "class K:"  # git's default function lines: no driver of gridgit's
