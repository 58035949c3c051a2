"""A claim's glob covers exactly the files git's own `:(glob)` pathspec matches: proven against `git ls-files`."""

from __future__ import annotations

from gridgit.coordination import globs
from tests.conftest import Repo

FILES = [
    "src/a", "srca", "srcxa", "srcya", "src/b/a.py", "src/b/c/d.py", "a.py", "b/a.py", "docs/x.md", "src/[x]",
    "src/ab.py", "a b/c.txt", "deep/x/y/z.py", "foo.pyc", "src/.hidden",
]  # fmt: skip
PATTERNS = [
    # brackets never match `/` (`src[!x]a` is not `src/a`); `\` makes a character literal
    "src[!x]a", "src[^x]a", "src[xy]a", "src?a", "[!s]*", "[a-c]*", "src/[x]", "src/\\[x]",
    # `*` stays in a folder; `**/` and a final `**` cross folders; other `**` are one `*`
    "src*", "src/*", "src/**", "src/**/", "**/a.py", "src/**/*.py", "*.py", "**", "**/", "*/a.py",
    "deep/**/z.py", "**/z.py", "deep/**/y/*", "**/b/**", "src/*/a.py", "d*/**", "sr**", "s**a", "src/b**",
    "**a.py", "src/**a", "s**/a", "a?b/*", "*.pyc", "src/a*",
    # a path without glob characters: itself, and everything under it
    "src", "src/", "src/b", "a.py",
]  # fmt: skip


def test_claim_globs_match_what_git_matches(bare_repo: Repo) -> None:
    for name in FILES:
        bare_repo.write(name, "x\n")
    bare_repo.git("add", "--", *FILES)
    tracked = bare_repo.git("ls-files", "-z").split("\0")[:-1]
    for pattern in PATTERNS:
        listed = bare_repo.git("ls-files", "-z", "--", f":(glob){pattern}").split("\0")[:-1]
        assert {f for f in tracked if globs.matches(pattern, f)} == set(listed), pattern
