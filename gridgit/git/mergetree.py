"""`git merge-tree --write-tree` (git 2.38+): the merge of two commits, computed without a work tree or index.

It writes the result's objects into the object store and touches nothing else. Exit 0 is a
clean merge, 1 a merge with conflicts; but git 2.39 also exits 1, with empty output, for a
revision it cannot find, so a conflict is only believed when the output starts with a tree id.
Older git reads `--write-tree` as a revision (`fatal: unknown rev --write-tree`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from gridgit.errors import GridError
from gridgit.store import gitcmd

MINIMUM_GIT = (2, 38)
FEATURE = "conflict prediction (git merge-tree --write-tree)"
_OID_RE = re.compile(r"[0-9a-f]{40,64}")


@dataclass(frozen=True)
class Message:
    """One informational message: the PATHS it is about, its TYPE (`CONFLICT (contents)`) and its TEXT."""

    paths: tuple[str, ...]
    type: str
    text: str


@dataclass
class MergeResult:
    """The tree a merge would make; STAGES maps each conflicted path to {stage: blob id} (1 base, 2 ours, 3 theirs)."""

    clean: bool
    tree: str
    stages: dict[str, dict[int, str]] = field(default_factory=dict)
    messages: list[Message] = field(default_factory=list)

    def conflict_kind(self, path: str) -> tuple[str, str]:
        """(kind, message) of the conflict on PATH: `content`, `binary`, `modify/delete`, `rename/rename` ..."""
        for message in self.messages:
            if path in message.paths and message.type.startswith("CONFLICT"):
                kind = message.type.removeprefix("CONFLICT").strip(" ()")
                # -z names every text conflict `contents`; the message tells an add/add apart.
                kind = "add/add" if "(add/add)" in message.text else "content" if kind == "contents" else kind
                return kind, message.text
        return "content", ""


def parse(out: str, clean: bool) -> MergeResult:
    """`TREE\\0` + `MODE OID STAGE\\tPATH\\0`... + `\\0` + `N\\0PATH\\0...TYPE\\0MESSAGE\\0`... (the -z layout)."""
    fields = out.split("\0")
    result = MergeResult(clean, fields[0])
    i = 1
    while i < len(fields) and fields[i]:
        info, _, path = fields[i].partition("\t")
        _mode, oid, stage = info.split(" ")
        result.stages.setdefault(path, {})[int(stage)] = oid
        i += 1
    i += 1  # the empty field that opens the messages
    while i + 1 < len(fields) and fields[i].isdigit():
        count = int(fields[i])
        paths = tuple(fields[i + 1 : i + 1 + count])
        i += 1 + count
        result.messages.append(Message(paths, fields[i], fields[i + 1].rstrip("\n")))
        i += 2
    return result


def merge(root: Path, left: str, right: str) -> MergeResult:
    """The merge of commits LEFT and RIGHT; GridError for an old git, an unknown revision or unrelated histories."""
    gitcmd.require_version(MINIMUM_GIT, FEATURE)
    proc = gitcmd.call(root, "merge-tree", "--write-tree", "-z", "--messages", gitcmd.END_OF_OPTIONS, left, right)
    first = proc.stdout.split("\0", 1)[0]
    if proc.returncode not in (0, 1) or not _OID_RE.fullmatch(first):
        error = proc.stderr.strip()
        if "unknown rev --write-tree" in error or error.startswith("usage: git merge-tree <base-tree>"):
            raise GridError(f"{FEATURE} needs git {'.'.join(map(str, MINIMUM_GIT))} or later: {error}")
        detail = (error.splitlines() or [f"exit code {proc.returncode}"])[-1]
        raise GridError(f"git merge-tree {left} {right} failed: {detail}")
    return parse(proc.stdout, proc.returncode == 0)
