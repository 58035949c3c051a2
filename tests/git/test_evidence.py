"""Evidence lists in entries: the files, lines and commits they cite."""

from __future__ import annotations

from gridgit.git import evidence
from gridgit.scratchpad.citations import Citation, citations, line_ranges


def test_the_spec_evidence_block() -> None:
    text = "Gotcha: order matters.\n\nEvidence:\n- File: src/a.py\n- Line: 23-45\n- Commit: abc123"
    assert citations(text) == [Citation("src/a.py", ((23, 45),), "abc123")]


def test_several_files_inline_lines_and_blocks() -> None:
    text = (
        "- Files: src/a.py:10-12, 14, `./src/b.py#L3-L5`\n- Commit: DEADBEEF (the fix)\n\n"
        "Later:\n- File: docs/x.md\n- Lines: 7, 9..11\n- Commit: added\n"
    )
    assert citations(text) == [
        Citation("src/a.py", ((10, 12), (14, 14)), "deadbeef"),
        Citation("src/b.py", ((3, 5),), "deadbeef"),
        Citation("docs/x.md", ((7, 7), (9, 11)), None),  # "added" is a word, not a commit
    ]


def test_line_ranges() -> None:
    assert line_ranges("12–10, L3-L4, 7 to 8") == [(10, 12), (3, 4), (7, 8)]
    assert line_ranges("0") == []
    assert Citation("a.py", ((1, 1), (3, 5))).where() == "a.py:1,3-5"


def test_commit_hashes_an_entry_names() -> None:
    content = (
        "Decision: cookies.\n\nEvidence:\n- File: src/a.py\n- Commit: 1A2B3C4\n"
        "  - Commit: `deadbeefcafe`\nCommit: 1a2b3c4\n- Commit: not-a-hash\nSee Commit: abcdef1 in prose"
    )
    assert evidence.commit_hashes(content) == ["1a2b3c4", "deadbeefcafe"]
    assert evidence.commit_hashes("no evidence") == []
    added = evidence.add_commit_line("Evidence:\n- File: src/a.py", {"src/a.py"}, "0f0f0f0")
    assert added is not None and evidence.commit_hashes(added) == ["0f0f0f0"]
