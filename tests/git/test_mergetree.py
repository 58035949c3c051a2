"""`git merge-tree --write-tree -z` output as data (the layout verified on git 2.39)."""

from __future__ import annotations

from gridgit.git import mergetree

TREE, BASE, OURS, THEIRS = "6" * 40, "1" * 40, "2" * 40, "3" * 40


def test_conflicted_files_and_messages() -> None:
    out = (
        f"{TREE}\x00100644 {BASE} 1\tcalc.py\x00100644 {OURS} 2\tcalc.py\x00100644 {THEIRS} 3\tcalc.py\x00"
        f"100644 {OURS} 2\tnew.txt\x00100644 {THEIRS} 3\tnew.txt\x00\x00"
        "1\x00calc.py\x00Auto-merging\x00Auto-merging calc.py\n\x00"
        "1\x00calc.py\x00CONFLICT (contents)\x00CONFLICT (content): Merge conflict in calc.py\n\x00"
        "1\x00new.txt\x00CONFLICT (contents)\x00CONFLICT (add/add): Merge conflict in new.txt\n\x00"
        "1\x00img.bin\x00CONFLICT (binary)\x00CONFLICT (binary): Merge conflict in img.bin\n\x00"
    )
    result = mergetree.parse(out, clean=False)
    assert result.tree == TREE and not result.clean
    assert result.stages == {"calc.py": {1: BASE, 2: OURS, 3: THEIRS}, "new.txt": {2: OURS, 3: THEIRS}}
    assert result.conflict_kind("calc.py") == ("content", "CONFLICT (content): Merge conflict in calc.py")
    assert result.conflict_kind("new.txt")[0] == "add/add"
    assert result.conflict_kind("img.bin")[0] == "binary"


def test_a_clean_merge_is_its_tree() -> None:
    result = mergetree.parse(f"{TREE}\x00", clean=True)
    assert result.clean and result.stages == {} and result.messages == []
