"""Every git hook with every kind of staged path git can produce, through real `git commit`.

One repository, a few git operations that bundle every kind: a commit creating them, one
renaming, deleting and changing them, an amend (post-rewrite), a checkout and a merge.
Each kind is then a parameter: no hook crashed, no commit was blocked, and each path's
`file_modified` event names it as gridgit writes it (store.pathtext); a name with a line break
is the path gate's (store.usertext.check_path): left out with one warning, the commit goes on.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import GIT_ENV

NON_UTF8 = os.fsdecode(b"caf\xe9-latin1.txt")
DEEP = "/".join(f"d{i}" for i in range(30)) + "/deep.txt"
# kind -> (paths created by the first commit, expected (path text, operation) events of the second)
CREATED = {
    "spaces": ["dir with space/a b.txt"],
    "newline": ["new\nline.txt"],
    "quotes": ["q\"uote'd.txt"],
    "non-utf8": [NON_UTF8],
    "leading-dash": ["-dash.txt", "--no-verify"],
    "unicode-nfc": ["caf\u00e9-nfc.txt"],
    "unicode-nfd": ["cafe\u0301-nfd.txt"],
    "deep-dirs": [DEEP],
    "rename": ["old name.txt"],
    "deletion": ["doomed.txt"],
    "mode-change": ["script.sh"],
    "symlink": ["link-out", "link-in"],
    "gitlink": ["sub"],
}
SECOND: dict[str, list[tuple[str, str]]] = {
    "rename": [("old name.txt", "deleted"), ("new-name-\u00e9.txt", "created")],
    "deletion": [("doomed.txt", "deleted")],
    "mode-change": [("script.sh", "modified")],
    "non-utf8": [(NON_UTF8, "modified")],
    "symlink": [("link-in", "modified")],
    "gitlink": [("sub", "modified")],
}


def _text(path: str) -> str:
    return path.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


class Scenario:
    def __init__(self, root: Path, home: Path) -> None:
        self.root = root
        self.env = {
            **os.environ,
            **GIT_ENV,
            "HOME": str(home),
            "GRIDGIT_HOOK_SYNC": "1",
            "GRID_AGENT_ID": "executor-001",
        }
        for name in ("GRID_DIR", "GRIDGIT_SKIP", "GIT_DIR", "GIT_INDEX_FILE"):
            self.env.pop(name, None)
        self.runs: list[tuple[list[str], subprocess.CompletedProcess[str]]] = []

    def git(self, *args: str, record: bool = False) -> str:
        proc = subprocess.run(
            ["git", *args], cwd=self.root, env=self.env, capture_output=True, encoding="utf-8", errors="surrogateescape"
        )
        if record:
            self.runs.append((list(args), proc))
        assert proc.returncode == 0, f"git {args}: {proc.stderr}"
        return proc.stdout

    def write(self, rel: str, text: str) -> None:
        path = self.root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")

    def events(self) -> list[dict[str, Any]]:
        import json

        log = self.root / ".grid" / "events" / "current.jsonl"
        return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.fixture(scope="module")
def scenario(tmp_path_factory: pytest.TempPathFactory) -> Scenario:
    base = tmp_path_factory.mktemp("hook-paths")
    (base / "home").mkdir()
    s = Scenario(base / "repo", base / "home")
    s.root.mkdir()
    s.git("init", "-q", "-b", "main")
    s.write("README.md", "# paths\n")
    s.git("add", "README.md")
    s.git("commit", "-q", "-m", "initial")
    gridgit = subprocess.run([sys.executable, "-m", "gridgit", "init", "--mission", "Paths", "--phase", "01-a:A"],
                             cwd=s.root, env=s.env, capture_output=True, text=True)  # fmt: skip
    assert gridgit.returncode == 0, gridgit.stderr
    s.git("add", "-A")
    s.git("commit", "-q", "-m", "gridgit init")
    initial = s.git("rev-parse", "HEAD").strip()
    s.git("switch", "-q", "-c", "kinds", record=True)
    for kind, paths in CREATED.items():
        for rel in paths:
            if kind == "symlink":
                os.symlink("/etc/hostname" if rel == "link-out" else "README.md", s.root / rel)
            elif kind != "gitlink":
                s.write(rel, f"{kind}\n")
    s.git("add", "-A", "--", ".")
    # A gitlink (a submodule's commit) needs no submodule checkout to be staged.
    s.git("update-index", "--add", "--cacheinfo", f"160000,{initial},sub")
    s.git("commit", "-q", "-m", "every kind of path", record=True)
    s.git("mv", "old name.txt", "new-name-\u00e9.txt")
    s.git("rm", "-q", "doomed.txt")
    (s.root / "script.sh").chmod(0o755)
    (s.root / NON_UTF8).write_text("changed\n", encoding="utf-8")
    (s.root / "link-in").unlink()
    os.symlink(".gitignore", s.root / "link-in")
    s.git("add", "-A", "--", ".")
    s.git("update-index", "--add", "--cacheinfo", f"160000,{s.git('rev-parse', 'HEAD').strip()},sub")
    s.git("commit", "-q", "-m", "rename, delete, chmod, relink", record=True)
    s.git("commit", "-q", "--amend", "-m", "rename, delete, chmod, relink (amended)", record=True)
    s.git("switch", "-q", "main", record=True)  # post-checkout over every kind
    s.git("merge", "-q", "--no-ff", "-m", "merge kinds", "kinds", record=True)  # post-merge
    return s


@pytest.mark.parametrize("kind", sorted(CREATED))
def test_every_hook_with_every_kind_of_path(scenario: Scenario, kind: str) -> None:
    refused = (
        "gridgit: path 'new\\nline.txt' holds a control character (\\n): a path must be one line of text; not recorded"
    )
    for args, proc in scenario.runs:
        assert "Traceback" not in proc.stderr, (args, proc.stderr)
        # No hook failed, ran out of time or refused; only the path gate said what it left out.
        assert all(line == refused for line in proc.stderr.splitlines()), (args, proc.stderr)
    assert refused in scenario.runs[1][1].stderr  # the commit creating it
    modified = [e["payload"] for e in scenario.events() if e["type"] == "file_modified"]
    seen = {(p["path"], p["operation"]) for p in modified}
    if kind == "newline":  # a name that would forge a line of CHECKPOINT.md: refused by the path gate
        assert not [p for p in modified if "line.txt" in p["path"]]
        assert "new\nline.txt" in scenario.git("ls-tree", "-r", "-z", "--name-only", "HEAD").split("\0")
        return
    for rel in CREATED[kind]:
        assert (_text(rel), "created") in seen, sorted(seen)
    for rel, operation in SECOND.get(kind, []):
        assert (_text(rel), operation) in seen, sorted(seen)
    assert all(p["agent"] == "executor-001" for p in modified)
    # Committed, not blocked: every path is in the merged history as git has it.
    listed = set(scenario.git("ls-tree", "-r", "-z", "--name-only", "HEAD").split("\0"))
    for rel in CREATED[kind]:
        if (rel, "deleted") not in SECOND.get(kind, []) and kind != "rename":
            assert rel in listed
