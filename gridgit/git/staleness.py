"""Evidence staleness: entries and learnings whose cited lines changed after the commit they cite.

An Evidence list (`- File: src/a.py`, `- Line: 10-12`, `- Commit: abc123`; parsed by
gridgit.git.evidence) says what was true at a commit. It is stale when the commits after it,
up to HEAD, changed those lines, deleted the file or renamed it. The check compares the cited
commit's tree with HEAD's and never walks the history between them: one `git diff-tree
--stdin -M` lists what changed since every cited commit (renames followed), a second one gives
the hunks of the cited files that changed, and a cited range is stale when a hunk changes it;
the hunks also map the range to where those lines are now. So the cost follows the number of
cited files and commits, not the length of the history. History is read only for the stale
ones, to name what changed them: one log of their files, read back from HEAD only as far as
the newest commit that changed each one's cited lines (or renamed or deleted the file), and
over the last WINDOW commits at most (an older one is not named).

A citation without lines is about the file: stale only when the file was deleted or renamed.
A cited commit HEAD does not contain (another agent's branch, not merged here) cannot be
judged from this work tree: it is reported as unverified, never as stale.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

from gridgit.errors import GridError
from gridgit.git import diffs, treediff
from gridgit.git.evidence import Source
from gridgit.scratchpad.citations import Citation
from gridgit.store import gitcmd
from gridgit.store.record import FrozenRecord, Record

TYPE_CHECKING = False  # typing itself costs an agent hook's start ~3 ms
if TYPE_CHECKING:
    from typing import Any

_LOG_FORMAT = "--format=%x1e%H%x1f%an%x1f%aI%x1f%ct%x1f%s"
# How far back the walk for what made evidence stale goes: the last WINDOW commits of HEAD (so
# its cost does not grow with the history), never before the cited commit's time (less the
# clock skew allowed between machines).
WINDOW = 1000
CLOCK_SKEW_SECONDS = 86400


class Change(FrozenRecord):
    """A commit that changed cited lines (or deleted or renamed the file)."""

    FIELDS = ("commit", "author", "date", "summary")
    __slots__ = FIELDS

    def __init__(self, commit: str, author: str, date: str, summary: str) -> None:
        self.commit = commit
        self.author = author
        self.date = date
        self.summary = summary


class Finding(Record):
    """What became of one citation: STATUS `stale`, `fresh` or `unverified`, and why (REASONS)."""

    FIELDS = ("source", "citation", "status", "reasons", "now_path", "now_lines", "hunks", "changes")
    __slots__ = FIELDS

    def __init__(
        self,
        source: Source,
        citation: Citation,
        status: str = "fresh",
        reasons: list[str] | None = None,
        now_path: str | None = None,
        now_lines: list[tuple[int, int]] | None = None,
        hunks: list[str] | None = None,
        changes: list[Change] | None = None,
    ) -> None:
        self.source = source
        self.citation = citation
        self.status = status
        self.reasons = reasons if reasons is not None else []
        self.now_path = now_path
        self.now_lines = now_lines if now_lines is not None else []
        self.hunks = hunks if hunks is not None else []
        self.changes = changes if changes is not None else []

    def describe(self) -> str:
        """One line: `src/a.py:10-12 (abc123): changed by 1a2b3c4 Ann "fix", now src/b.py:10-13`."""
        text = f"{self.citation.where()} ({self.citation.commit}): {', '.join(self.reasons)}"
        if self.changes:
            first = self.changes[0]
            text += f' by {first.commit[:10]} {first.author} "{first.summary}"'
        if self.now_path and self.status == "stale" and "deleted" not in self.reasons:
            now = Citation(self.now_path, tuple(self.now_lines)).where()
            text += f", now {now}" if now != self.citation.where() else ""
        return text


class EvidenceReport(Record):
    """Every citation with a commit that was checked against HEAD."""

    FIELDS = ("head", "findings")
    __slots__ = FIELDS

    def __init__(self, head: str | None = None, findings: list[Finding] | None = None) -> None:
        self.head = head
        self.findings = findings if findings is not None else []

    @property
    def stale(self) -> list[Finding]:
        return [f for f in self.findings if f.status == "stale"]

    @property
    def unverified(self) -> list[Finding]:
        return [f for f in self.findings if f.status == "unverified"]

    def stale_keys(self) -> dict[str, list[Finding]]:
        """Source key -> its stale findings (what status and the context pack mark)."""
        marked: dict[str, list[Finding]] = {}
        for finding in self.stale:
            marked.setdefault(finding.source.key, []).append(finding)
        return marked

    def to_dict(self) -> dict[str, Any]:
        def row(f: Finding) -> dict[str, Any]:
            return {
                "source": f.source.fields(),
                "file": f.citation.path,
                "lines": [list(r) for r in f.citation.lines],
                "commit": f.citation.commit,
                "status": f.status,
                "reasons": f.reasons,
                "now": {"path": f.now_path, "lines": [list(r) for r in f.now_lines]},
                "hunks": f.hunks,
                "changes": [c.fields() for c in f.changes],
                "summary": f.describe(),
            }

        return {
            "head": self.head,
            "checked": len(self.findings),
            "stale": [row(f) for f in self.stale],
            "unverified": [row(f) for f in self.unverified],
        }


def _judge(finding: Finding, change: diffs.RawChange | None, patch: diffs.FileDiff | None) -> None:
    """Set FINDING's status from what happened to its file since the cited commit."""
    cited = finding.citation
    finding.now_path = cited.path
    if change is None:
        finding.now_lines = list(cited.lines)
        return
    if change.status == "D":
        finding.status, finding.reasons, finding.now_path = "stale", ["deleted"], None
        return
    if change.new_path != cited.path:
        finding.reasons.append("renamed")
        finding.now_path = change.new_path
    hunks = patch.hunks if patch else []
    hits = {h.header for a, b in cited.lines for h in diffs.changed_lines(hunks, a, b)}
    if hits or (patch is not None and patch.binary and cited.lines):
        finding.reasons.append("changed")
        finding.hunks = [h.header for h in hunks if h.header in hits]
    finding.now_lines = [r for a, b in cited.lines if (r := diffs.map_range(hunks, a, b))]
    if finding.reasons:
        finding.status = "stale"


def _records(lines: Iterator[str]) -> Iterator[tuple[list[str], str]]:
    """(header fields, patch) of each commit of a `git log -p` stream written with _LOG_FORMAT."""
    header: list[str] | None = None
    body: list[str] = []
    for line in lines:
        if line.startswith("\x1e"):
            if header is not None:
                yield header, "".join(body)
            header, body = line[1:].rstrip("\n").split("\x1f", 4), []
        else:
            body.append(line)
    if header is not None:
        yield header, "".join(body)


class _Trail(Record):
    """A stale finding followed back through history: its file's PATH and the cited RANGES in the commit read."""

    FIELDS = ("finding", "since", "path", "ranges", "wanted")
    __slots__ = FIELDS

    def __init__(
        self,
        finding: Finding,
        since: int,
        path: str = "",
        ranges: list[tuple[int, int]] | None = None,
        wanted: set[str] | None = None,
    ) -> None:
        self.finding = finding
        self.since = since
        self.path = path
        self.ranges = ranges if ranges is not None else []
        self.wanted = wanted if wanted is not None else set()

    def found(self, change: Change, reason: str) -> None:
        if change not in self.finding.changes:
            self.finding.changes.append(change)
        self.wanted.discard(reason)


def _follow(trail: _Trail, change: Change, files: list[diffs.FileDiff]) -> None:
    """Move TRAIL back through one commit's FILES: note what it did to the cited lines or file."""
    if "deleted" in trail.wanted:
        if any(f.old_path == trail.path and f.new_path is None for f in files):
            trail.found(change, "deleted")
        return
    file = next((f for f in files if f.new_path == trail.path), None)
    if file is None:
        return
    back = diffs.reverse(file.hunks)
    if "changed" in trail.wanted and any(diffs.changed_lines(back, a, b) for a, b in trail.ranges):
        trail.found(change, "changed")
    if "renamed" in trail.wanted and file.old_path != file.new_path:
        trail.found(change, "renamed")
    if file.old_path is None:
        trail.wanted.clear()  # the file starts here: nothing older to find
    trail.path = file.old_path or trail.path
    trail.ranges = [r for a, b in trail.ranges if (r := diffs.map_range(back, a, b))]


def _walk_back(root: Path, trails: list[_Trail], window_start: str | None) -> None:
    """Find, walking back from HEAD, the newest commits that changed each trail's lines, renamed or deleted its file.

    One `git log -p` of all the stale files (under their cited and current names), read as
    git writes it and stopped once every trail has its answer or the oldest cited commit's time
    is passed, over the last WINDOW commits only (from WINDOW_START, when the history is longer):
    one walk however many citations are stale, whatever the length of the history.
    """
    paths = sorted({p for t in trails for p in (t.finding.citation.path, t.path) if p})
    since = min(t.since for t in trails)
    args = [_LOG_FORMAT, "-p", "-U0", "-M", "--diff-merges=first-parent", *treediff.DIFF_OPTIONS, "HEAD"]
    args += [f"^{window_start}", "--"] if window_start else ["--"]
    with gitcmd.stream(root, "-c", "core.quotePath=false", "log", *args, *(f":(literal){p}" for p in paths)) as lines:
        for fields, patch in _records(lines):
            sha, author, date, committed, subject = fields
            if int(committed) < since:
                break
            change, files = Change(sha, author, date, subject), diffs.parse(patch)
            for trail in trails:
                if trail.wanted and int(committed) < trail.since:
                    trail.wanted.clear()  # older than its cited commit
                elif trail.wanted:
                    _follow(trail, change, files)
            if not any(t.wanted for t in trails):
                break


def _attribute(root: Path, stale: list[Finding], cited: dict[str, tuple[str | None, str | None]]) -> None:
    """Name the commits that made each of STALE stale (best effort: a failure leaves them unnamed)."""
    shas = sorted({c for f in stale if (c := cited[f.citation.commit or ""][0])})
    (window_start,) = gitcmd.resolve(root, [f"HEAD~{WINDOW}^{{commit}}"])
    out = gitcmd.run(root, "show", "-s", "--format=%H %ct", *shas)
    times = dict(line.split(" ", 1) for line in out.split("\n") if line)
    trails = []
    for finding in stale:
        since = int(times.get(cited[finding.citation.commit or ""][0] or "", "0")) - CLOCK_SKEW_SECONDS
        path = finding.citation.path if "deleted" in finding.reasons else finding.now_path or ""
        ranges = list(finding.now_lines) if "changed" in finding.reasons else []
        trails.append(_Trail(finding, since, path, ranges, set(finding.reasons)))
    with contextlib.suppress(GridError, OSError, ValueError):  # the findings stand, their authors unknown
        _walk_back(root, trails, window_start)


def check(root: Path, cited: list[tuple[Source, Citation]], attribute: bool = True) -> EvidenceReport:
    """Judge every citation with a commit against HEAD of work tree ROOT (see the module's docstring)."""
    cited = [(s, c) for s, c in cited if c.commit]
    report = EvidenceReport()
    if not cited:
        return report
    commits = list(dict.fromkeys(c.commit for _, c in cited if c.commit))
    names = ["HEAD^{commit}", "HEAD^{tree}"]
    names += [f"{c}^{{{kind}}}" for c in commits for kind in ("commit", "tree")]
    names += [f"{c.commit}:{c.path}" for _, c in cited]
    head, head_tree, *answers = gitcmd.resolve(root, names)
    if head is None or head_tree is None:
        return report  # an unborn branch: nothing to compare with yet
    report.head = head
    full = {c: (answers[2 * i], answers[2 * i + 1]) for i, c in enumerate(commits)}
    present = answers[2 * len(commits) :]
    known = [sha for sha, _ in full.values() if sha]
    outside = set(gitcmd.run(root, "rev-list", *known, "--not", head).split()) if known else set()
    judged: list[tuple[Finding, str]] = []
    for (source, citation), blob in zip(cited, present, strict=True):
        finding = Finding(source, citation)
        report.findings.append(finding)
        sha, tree = full[citation.commit or ""]
        if sha is None or tree is None:
            finding.status, finding.reasons = "unverified", [f"no commit {citation.commit} in this repository"]
        elif sha in outside:
            finding.status, finding.reasons = "unverified", [f"{citation.commit} is not in the history of HEAD"]
        elif blob is None:
            finding.status, finding.reasons = "unverified", [f"{citation.path} is not in {citation.commit}"]
        else:
            judged.append((finding, tree))
    pairs = list(dict.fromkeys((tree, head_tree) for _, tree in judged if tree != head_tree))
    changes = treediff.tree_changes(root, pairs)
    # Hunks only for cited ranges in files that changed (not deleted): one more diff-tree for all of them.
    wanted = [
        (f, tree, ch)
        for f, tree in judged
        if f.citation.lines and (ch := changes.get((tree, head_tree), {}).get(f.citation.path)) and ch.status != "D"
    ]
    paths = sorted({p for _, _, ch in wanted for p in (ch.old_path, ch.new_path)})
    patch_pairs = list(dict.fromkeys((tree, head_tree) for _, tree, _ in wanted))
    patches = treediff.tree_patches(root, patch_pairs, paths)
    for finding, tree in judged:
        pair = (tree, head_tree)
        _judge(
            finding, changes.get(pair, {}).get(finding.citation.path), patches.get(pair, {}).get(finding.citation.path)
        )
    if attribute and report.stale:
        _attribute(root, report.stale, full)
    return report
