"""Unified diffs as data: paths as git quotes them, hunks, changed lines and where lines move to."""

from __future__ import annotations

from gridgit.git import diffs, treediff
from tests.conftest import Repo


def test_paths_as_git_prints_them() -> None:
    assert diffs.unquote('"sp ace \\303\\251.txt"') == "sp ace é.txt"
    assert diffs.unquote('"tab\\tq\\"uote.txt"') == 'tab\tq"uote.txt'
    assert diffs.unquote("a/plain name.txt\t") == "a/plain name.txt"
    text = (
        'diff --git "a/tab\\tq\\"uote.txt" "b/tab\\tq\\"uote.txt"\n'
        "index 587be6b..975fbec 100644\n"
        '--- "a/tab\\tq\\"uote.txt"\n'
        '+++ "b/tab\\tq\\"uote.txt"\n'
        "@@ -1 +1 @@\n-x\n+y\n"
        "diff --git a/sp ace.txt b/sp ace.txt\n"
        "deleted file mode 100644\n"
        "index 422c2b7..0000000\n"
        "--- a/sp ace.txt\t\n"
        "+++ /dev/null\n"
        "@@ -1,2 +0,0 @@\n-a\n-b\n"
    )
    first, second = diffs.parse(text)
    assert (first.old_path, first.new_path) == ('tab\tq"uote.txt',) * 2
    assert (second.old_path, second.new_path, second.path) == ("sp ace.txt", None, "sp ace.txt")
    assert second.hunks[0].changes == [diffs.Change(1, 2, 1, 0)]


def changed(repo: Repo, path: str, function_context: bool = False) -> diffs.FileDiff:
    """PATH's diff from HEAD to its version in the work tree, committed (one tree pair through treediff)."""
    repo.git("commit", "-q", "-a", "-m", "new")
    old, new = (repo.git("rev-parse", f"{rev}^{{tree}}").strip() for rev in ("HEAD~1", "HEAD"))
    return treediff.tree_patches(repo.path, [(old, new)], [path], function_context)[(old, new)][path]


def test_hunks_and_their_changes(bare_repo: Repo) -> None:
    old = "".join(f"line {n}\n" for n in range(1, 21))
    new = (
        old.replace("line 3\n", "line three\nline 3b\n").replace("line 10\n", "").replace("line 15\n", "line 15\nnew\n")
    )
    bare_repo.write("f.txt", old)
    bare_repo.git("add", "f.txt")
    bare_repo.git("commit", "-q", "-m", "old")
    bare_repo.write("f.txt", new)
    found = changed(bare_repo, "f.txt")
    assert [h.header for h in found.hunks] == [
        "@@ -3 +3,2 @@ line 2",
        "@@ -10 +10,0 @@ line 9",
        "@@ -15,0 +16 @@ line 15",
    ]
    replaced, deleted, inserted = (h.changes[0] for h in found.hunks)
    assert replaced == diffs.Change(3, 3, 3, 4)
    assert deleted == diffs.Change(10, 10, 11, 10)  # nothing in the new file: the range is empty
    assert inserted == diffs.Change(16, 15, 16, 16)  # inserted before old line 16
    hunks = found.hunks
    assert diffs.changed_lines(hunks, 4, 9) == []
    assert diffs.changed_lines(hunks, 9, 11) == [hunks[1]]
    assert diffs.changed_lines(hunks, 15, 16) == [hunks[2]]  # an insertion inside the range
    assert diffs.changed_lines(hunks, 16, 18) == []  # ... not one just before it
    assert diffs.map_range(hunks, 5, 8) == (6, 9)
    assert diffs.map_range(hunks, 10, 10) is None  # deleted
    assert diffs.map_range(hunks, 2, 4) == (2, 5)  # line 3 became two lines
    assert diffs.map_range(hunks, 17, 20) == (18, 21)


def test_raw_records_grouped_by_tree_pair() -> None:
    a, b, c = "1" * 40, "2" * 40, "3" * 40
    out = (
        f"{a} {b}\n{c} {b}\n"
        f":100644 100644 {a} {b} M\0src/x.py\0:100644 100644 {a} {b} R090\0old.py\0new.py\0"
        f":100644 000000 {a} {'0' * 40} D\0gone.py\0"
    )
    groups = diffs.parse_raw(out)
    assert groups[(a, b)] == []
    assert [(r.status, r.old_path, r.new_path) for r in groups[(c, b)]] == [
        ("M", "src/x.py", "src/x.py"),
        ("R", "old.py", "new.py"),
        ("D", "gone.py", "gone.py"),
    ]
