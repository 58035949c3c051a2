"""Commit evidence: the files, lines and commits entries and learnings cite, and linking entries to commits.

An entry's content may hold an Evidence list (`- File: src/a.py`, `- Line: 23-45`, `- Commit:
abc123`); `scratchpad.citations` reads it, `gather` collects the citations of scratchpads and LEARNINGS.md
(gridgit.git.staleness judges them). An entry whose list has no `Commit:` line gets
`- Commit: <short hash>` from the first commit that changes one of its files: the post-commit
hook records each commit at once, in scratchpads and archives. Recording is idempotent: an
entry with a Commit line is never touched again, so running twice gives the same files;
after an amend or a rebase, `rewrite` renames the hashes of the rewritten commits.
"""

from __future__ import annotations

import re
from pathlib import Path

from gridgit.errors import GridError
from gridgit.scratchpad.citations import EVIDENCE_ITEM_RE, FILE_RE, Citation, citations, named_files
from gridgit.store.layout import Layout
from gridgit.store.record import FrozenRecord, Record

TYPE_CHECKING = False  # typing itself costs an agent hook's start ~3 ms
if TYPE_CHECKING:
    from typing import Any

    from gridgit.model.learnings import Learning
    from gridgit.scratchpad.entry import Entry

_COMMIT_RE = re.compile(r"^[ \t]*-?[ \t]*Commit:", re.MULTILINE)
_COMMIT_HASH_RE = re.compile(r"^[ \t]*-?[ \t]*Commit:[ \t]*`?([0-9a-fA-F]{4,40})\b", re.MULTILINE)
MAX_COMMITS = 100
TRAILER = "Grid-Phase-Complete"


class Commit(Record):
    FIELDS = ("sha", "short", "files", "phases")
    __slots__ = FIELDS

    def __init__(self, sha: str, short: str, files: list[str] | None = None, phases: list[str] | None = None) -> None:
        self.sha = sha
        self.short = short
        self.files = files if files is not None else []
        self.phases = phases if phases is not None else []


class Source(FrozenRecord):
    """What cites: a scratchpad entry (`01-foundation#3`) or a learning (`learning:<origin or title>`)."""

    FIELDS = ("key", "kind", "title", "agent")
    __slots__ = FIELDS

    def __init__(self, key: str, kind: str, title: str, agent: str = "") -> None:
        self.key = key
        self.kind = kind
        self.title = title
        self.agent = agent


def add_commit_line(content: str, files: set[str], short: str) -> str | None:
    """CONTENT with `- Commit: SHORT` after its evidence list when it names one of FILES; else None."""
    if _COMMIT_RE.search(content):
        return None
    matches = [m for m in FILE_RE.finditer(content) if files.intersection(named_files(m.group(1)))]
    if not matches:
        return None
    lines = content.split("\n")
    at = content.count("\n", 0, matches[-1].start())
    # The evidence list goes on after the File line (`- Line: 23-45`): append after its last item.
    while at + 1 < len(lines) and EVIDENCE_ITEM_RE.match(lines[at + 1]):
        at += 1
    indent = re.match(r"^[ \t]*", lines[at])
    lines.insert(at + 1, f"{indent.group(0) if indent else ''}- Commit: {short}")
    return "\n".join(lines)


def commit_hashes(content: str) -> list[str]:
    """The commits an entry's evidence names (`- Commit: <hash>` lines, by hooks or by hand), in order."""
    return list(dict.fromkeys(m.lower() for m in _COMMIT_HASH_RE.findall(content)))


def _names_any(text: str, files: set[str]) -> bool:
    return any(files.intersection(named_files(m.group(1))) for m in FILE_RE.finditer(text))


def apply_to_entries(entries: list[Any], commits: list[Commit]) -> list[str]:
    """Give each entry the oldest of COMMITS (oldest first) that changed a file it names; the uids changed."""
    changed = []
    for entry in entries:
        for commit in commits:
            new = add_commit_line(entry.content, set(commit.files), commit.short)
            if new is not None:
                entry.content = new
                changed.append(entry.uid)
                break
    return changed


def parse_log(out: str) -> list[Commit]:
    """Commits from `git log --format=%x1e%H%x1f%h%x1f<trailers> --name-only -z`, newest first."""
    commits = []
    for record in out.split("\x1e")[1:]:
        header, _, rest = record.partition("\0")
        sha, short, trailers = [*header.split("\x1f"), "", ""][:3]
        files = [f for f in rest.lstrip("\n").split("\0") if f and f != "\n"]
        phases = [p.strip() for p in trailers.replace("\n", ",").split(",") if p.strip()]
        commits.append(Commit(sha, short, files, phases))
    return commits


def _completed_in(text: str) -> set[str]:
    """Phase ids a STATE.md text records as complete (an unreadable one records none)."""
    from gridgit.store import frontmatter

    try:
        data, _ = frontmatter.parse(text, "STATE.md")
    except GridError:
        return set()
    phases = data.get("phases")
    if not isinstance(phases, dict):
        return set()
    done = {str(p) for p in phases.get("completed") or []}
    definitions = [d for d in phases.get("definitions") or [] if isinstance(d, dict)]
    return done | {str(d.get("id")) for d in definitions if d.get("status") == "complete"}


def marked_complete(layout: Layout, commit: Commit, state_path: str) -> list[str]:
    """Phases COMMIT marks complete in STATE.md (repo-relative STATE_PATH) that its first parent did not."""
    if state_path not in commit.files:
        return []
    from gridgit.store import gitcmd  # subprocess: only where git runs (a dashboard reads citations)

    # One `git cat-file --batch` for both sides; a side that does not exist reads as empty.
    after, before = gitcmd.read_blobs(layout.root, [f"{commit.sha}:{state_path}", f"{commit.sha}^:{state_path}"])
    return sorted(_completed_in(after.decode("utf-8", "replace")) - _completed_in(before.decode("utf-8", "replace")))


LOG_FORMAT = f"--format=%x1e%H%x1f%h%x1f%(trailers:key={TRAILER},valueonly,separator=%x2C)"


def commits_in(layout: Layout, *revisions: str, limit: int = MAX_COMMITS) -> list[Commit]:
    """Commits of `git log REVISIONS` (e.g. `HEAD`, `^ORIG_HEAD`), oldest first, with files and phase trailers."""
    from gridgit.store import gitcmd

    out = gitcmd.run(
        layout.root, "log", LOG_FORMAT, "--name-only", "-z", "--diff-merges=first-parent",
        f"--max-count={limit}", gitcmd.END_OF_OPTIONS, *revisions, "--",
    )  # fmt: skip
    return list(reversed(parse_log(out)))


def commits_of(layout: Layout, shas: list[str]) -> list[Commit]:
    """The commits SHAS (those that exist), with files and phase trailers, oldest first by commit date."""
    from gridgit.store import gitcmd

    if not shas:
        return []
    out = gitcmd.run(
        layout.root, "log", LOG_FORMAT, "--name-only", "-z", "--diff-merges=first-parent", "--no-walk=sorted",
        "--ignore-missing", *shas, "--",
    )  # fmt: skip
    return list(reversed(parse_log(out)))


def record(layout: Layout, commits: list[Commit], agent_id: str, resume: dict[str, Any]) -> dict[str, Any]:
    """Write COMMITS into scratchpad evidence and STATE `resume.last_commit`; what changed, as data.

    RESUME is STATE's `resume` as the caller read it (to skip a STATE write that changes nothing).
    """
    from gridgit.model import state

    summary: dict[str, Any] = {"entries": {}, "last_commit": None}
    if not commits:
        return summary
    changed_files = {f for c in commits for f in c.files}
    from gridgit.scratchpad import archive, store

    for phase_id in layout.phase_ids():
        # Parse (and lock) only a file whose text names one of the files: the common case is none.
        # Archived entries too: a phase may close before the commit of the work it recorded.
        if _cites_any(layout.scratchpad(phase_id), changed_files):
            with store.modify(layout, phase_id) as pad:
                changed = apply_to_entries(pad.entries, commits)
            if changed:
                summary["entries"][phase_id] = changed
        if _cites_any(layout.scratchpad_archive(phase_id), changed_files):
            with archive.modify(layout, phase_id) as held:
                changed = apply_to_entries(held.entries, commits) if held else []
            if changed:
                summary["entries"].setdefault(phase_id, []).extend(changed)
    head = commits[-1].short
    if resume.get("last_commit") != head or resume.get("last_agent") != agent_id:
        from gridgit.validation.sources import grid_prefix

        own = grid_prefix(layout)
        work = [Commit(c.sha, c.short, [f for f in c.files if not own or not f.startswith(own + "/")]) for c in commits]
        state.update_with(layout, lambda st: _resume_updates(st, work, agent_id), "system", f"commit {head}")
    summary["last_commit"] = head
    return summary


def _resume_updates(st: dict[str, Any], commits: list[Commit], agent_id: str) -> dict[str, Any]:
    """`resume.last_commit` and the session's commit and file counts (STATE's Session Summary; the
    COMMITS' files are the project's, the Blackboard's own left out).

    Computed under the STATE lock from the recorded last commit, so recording the same
    commits twice counts them once. Every commit recorded after `gridgit init` counts (init
    notes the HEAD it found as the last commit), and each adds the files it changed, as
    `git log --stat` counts them: the same figures however the hook batched the commits.
    """
    head = commits[-1].short
    resume = st.get("resume") or {}
    if resume.get("last_commit") == head:
        return {"resume": {"last_agent": agent_id}} if resume.get("last_agent") != agent_id else {}
    progress = st.get("progress") or {}

    def count(key: str) -> int:
        value = progress.get(key)
        return value if isinstance(value, int) and not isinstance(value, bool) else 0

    return {
        "resume": {"last_commit": head, "last_agent": agent_id},
        "progress": {"commits": count("commits") + len(commits),
                     "files_changed": count("files_changed") + sum(len(c.files) for c in commits)},
    }  # fmt: skip


def _cites_any(path: Path, files: set[str]) -> bool:
    return path.is_file() and not path.is_symlink() and _names_any(path.read_text("utf-8", "replace"), files)


def entry_citations(phase_id: str, entries: list[Entry]) -> list[tuple[Source, Citation]]:
    """The citations of scratchpad ENTRIES of PHASE_ID, keyed as the context pack keys them."""
    return [
        (Source(f"{phase_id}#{e.id}", "entry", f"{e.category} | {e.topic}", e.agent_id), citation)
        for e in entries
        for citation in citations(e.content)
    ]


def learning_citations(found: list[Learning]) -> list[tuple[Source, Citation]]:
    """The citations of learnings: their Evidence items, and an Evidence list written in the content."""
    cited: list[tuple[Source, Citation]] = []
    for learning in found:
        source = Source(f"learning:{learning.origin or learning.title}", "learning", learning.title, learning.agent_id)
        cited.extend((source, citation) for citation in dict.fromkeys(citations(learning.cited_text())))
    return cited


def gather(layout: Layout, phase_ids: list[str], learnings: bool) -> list[tuple[Source, Citation]]:
    """The citations of PHASE_IDS' scratchpad entries and, with LEARNINGS, of LEARNINGS.md."""
    from gridgit.model import learnings as learnings_mod
    from gridgit.scratchpad import store

    cited = []
    for phase_id in phase_ids:
        cited += entry_citations(phase_id, store.load(layout, phase_id).entries)
    if learnings:
        cited += learning_citations(learnings_mod.read(layout))
    return cited


def _rewritten(content: str, pairs: dict[str, str]) -> str | None:
    """CONTENT with each `Commit: <hash>` of a rewritten commit naming its new hash; None when none is."""

    def swap(match: re.Match[str]) -> str:
        token = match[1].lower()
        new = next((n for old, n in pairs.items() if old.startswith(token)), None)
        return match[0] if new is None else match[0][: match.start(1) - match.start(0)] + new[: len(token)]

    updated = _COMMIT_HASH_RE.sub(swap, content)
    return updated if updated != content else None


def rewrite(layout: Layout, pairs: dict[str, str]) -> int:
    """After an amend or a rebase (PAIRS: old commit -> new), evidence names the new commits; entries changed."""
    from gridgit.scratchpad import archive, store

    old = tuple(o[:7].lower() for o in pairs)
    changed = 0
    for phase_id in layout.phase_ids():
        for path, modify in (
            (layout.scratchpad(phase_id), store.modify),
            (layout.scratchpad_archive(phase_id), archive.modify),
        ):
            if not path.is_file() or not any(o in path.read_text("utf-8", "replace").lower() for o in old):
                continue
            with modify(layout, phase_id) as held:
                for entry in held.entries if held else []:
                    updated = _rewritten(entry.content, pairs)
                    if updated is not None:
                        entry.content = updated
                        changed += 1
    return changed
