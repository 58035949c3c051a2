"""The rules of `.grid/` files: one validator for `gridgit validate`, the git hooks and the watcher.

`validate_text` is a pure function of (path inside .grid/, text); which files it runs on
(the work tree or the index) is gridgit.validation.sources'.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Any

from gridgit.errors import BadInput
from gridgit.memory import rules as memory_rules
from gridgit.model import permissions
from gridgit.store import ids
from gridgit.store.layout import PHASE_ID_RE

if TYPE_CHECKING:
    pass

EVENT_KEYS = ("id", "type", "timestamp", "payload")
# Machine-local files gridgit rewrites itself; nothing a user commits.
_SKIPPED_SUFFIXES = (".lock", ".tmp")
_SKIPPED_DIRS = (".daemon", ".cache", "cursors")
# Problem.kind of a scratchpad whose cached index drifted from its entries (the watcher re-indexes it).
INDEX_DRIFT = "index_drift"


@dataclass(frozen=True)
class Problem:
    """One finding: PATH (as the user sees it), LINE (1-based, 0 when unknown), MESSAGE, how to FIX it.

    KIND tells findings apart without parsing their text: "invalid" (the file is wrong and only
    a person can fix it) or "index_drift" (a scratchpad's cached index is stale; `reindex` fixes it).
    """

    path: str
    line: int
    message: str
    fix: str = ""
    kind: str = "invalid"

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        return f"{where}: {self.message}" + (f" (fix: {self.fix})" if self.fix else "")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class _Finder:
    """Collects problems for one file; turns gridgit's `SOURCE line N: message` errors into Problems."""

    def __init__(self, display: str, text: str) -> None:
        self.display = display
        self.text = text
        self.problems: list[Problem] = []
        self._error_re = re.compile(r"^" + re.escape(display) + r"(?: line (\d+))?: (.*)$", re.DOTALL)

    def add(self, line: int, message: str, fix: str = "", kind: str = "invalid") -> None:
        self.problems.append(Problem(self.display, line, message, fix, kind))

    def add_error(self, exc: BadInput, fix: str = "", line: int = 0) -> None:
        match = self._error_re.match(str(exc))
        if match is None:
            self.add(line, str(exc), fix)
        else:
            self.add(int(match.group(1)) if match.group(1) else line, match.group(2), fix)

    def line_of(self, dotted: str) -> int:
        """The line of a YAML key path like `resume.last_commit` (its deepest key found), 0 if absent."""
        lines = self.text.split("\n")
        start, indent, found = 0, -1, 0
        for part in dotted.split("."):
            pattern = re.compile(r"^(\s*)(?:- )?" + re.escape(part) + r"\s*:")
            for i in range(start, len(lines)):
                match = pattern.match(lines[i])
                if match and len(match.group(1)) > indent:
                    start, indent, found = i + 1, len(match.group(1)), i + 1
                    break
            else:
                return found
        return found


# ---- one checker per kind of file -------------------------------------------------------


def _check_state(f: _Finder) -> None:
    from gridgit.model import state, state_schema
    from gridgit.store import frontmatter

    try:
        data, _ = frontmatter.parse(f.text, f.display)
    except BadInput as exc:
        f.add_error(exc, "correct the YAML frontmatter")
        return
    # Every problem, not only the first: one run of validate lists all there is to fix.
    for dotted, message in state_schema.problems(data):
        f.add(f.line_of(dotted), message, "correct the field in the YAML frontmatter")
    if (undefined := state.undefined_position(data)) is not None:
        # A hand edit's: STATE.md's newest valid version from the Blackboard's history brings the position back.
        f.add(f.line_of("position.phase_id"), undefined, "gridgit doctor --repair")


def _check_scratchpad(f: _Finder, folder: str) -> None:
    from gridgit.scratchpad.document import Scratchpad

    try:
        pad = Scratchpad.parse(f.text, f.display)
    except BadInput as exc:
        f.add_error(exc, "edit the entry header or frontmatter by hand; gridgit never deletes text")
        return
    _check_phase_entries(f, folder, pad.phase_id, pad.entries, f"set phase_id: {folder}")
    if not pad.index_is_current():
        f.add(f.line_of("index"), "index does not match the entries (stale cache)",
              f"gridgit reindex --phase {folder}", INDEX_DRIFT)  # fmt: skip


def _entry_lines(text: str) -> dict[int, int]:
    """Entry id -> line of its header (the first one when ids repeat)."""
    from gridgit.scratchpad.entry_markdown import HEADER_RE

    lines: dict[int, int] = {}
    line, counted = 1, 0  # lines counted from where the last header was: one pass, not one per entry
    for match in HEADER_RE.finditer(text):
        line += text.count("\n", counted, match.start())
        counted = match.start()
        lines.setdefault(int(match.group(1)), line)
    return lines


def _check_phase_entries(f: _Finder, folder: str, phase_id: str, entries: Iterable[Any], fix: str = "") -> None:
    """What a scratchpad and its archive share: the phase_id names the folder, every entry is well-formed."""
    from gridgit.scratchpad import entry as entry_mod
    from gridgit.store import clock

    if phase_id != folder:
        f.add(f.line_of("phase_id"), f"phase_id {phase_id!r} does not match its folder {folder!r}", fix)
    where = _entry_lines(f.text)
    seen: set[int] = set()
    uids: set[str] = set()
    for entry in entries:
        line = where.get(entry.id, 0)
        if entry.id in seen:
            f.add(line, f"entry id [{entry.id}] is used twice", "give the later entry the next free id")
        seen.add(entry.id)
        if entry.uid in uids:
            f.add(line, f"entry [{entry.id}] has the Id of an earlier entry ({entry.uid})",
                  "a copied entry needs its own Id: delete its **Id:** line and gridgit gives it one")  # fmt: skip
        uids.add(entry.uid)
        for name, value in (("Id", entry.uid), ("Carried From", entry.carried_from)):
            if value and not ids.is_id(value):
                f.add(
                    line,
                    f"entry [{entry.id}] has an invalid {name} {value!r}",
                    "an id is 26 letters and digits (a ULID)",
                )
        try:
            clock.parse(entry.timestamp)
        except ValueError:
            f.add(
                line,
                f"entry [{entry.id}] has an invalid timestamp {entry.timestamp!r}",
                "use e.g. 2026-01-24T14:30:00Z",
            )
        for check, value in ((permissions.check_agent_token, entry.agent_id), (entry_mod.normalise_topic, entry.topic)):
            try:
                if check(value) != value:
                    raise BadInput(f"invalid topic {value!r}: use a lowercase keyword")
            except BadInput as exc:
                f.add(line, f"entry [{entry.id}]: {exc}")
        if len(entry.content.encode("utf-8")) > entry_mod.MAX_CONTENT_BYTES:
            f.add(line, f"entry [{entry.id}] content exceeds 64 KiB", "shorten it or move detail to a file")


def _check_archive(f: _Finder, folder: str) -> None:
    from gridgit.scratchpad.archive import Archive

    try:
        archive = Archive.parse(f.text, f.display)
    except BadInput as exc:
        f.add_error(exc, "edit the archived entry by hand; gridgit never deletes text")
        return
    _check_phase_entries(f, folder, archive.phase_id, archive.entries)


def _check_learnings(f: _Finder) -> None:
    from gridgit.model.learnings import SECTIONS, LearningsFile, section_name

    _check_learning_ids(f, LearningsFile.parse(f.text).learnings())
    seen: dict[str, int] = {}
    for number, line in enumerate(f.text.split("\n"), start=1):
        if line.startswith("## "):
            name = section_name(line[3:])
            if name not in SECTIONS:
                f.add(number, f"unknown section {line[3:].strip()!r} (one of: {', '.join(SECTIONS)})")
            elif name in seen:
                f.add(number, f"section {name!r} appears twice (first on line {seen[name]})", "merge the two sections")
            seen.setdefault(name, number)


def _check_learning_ids(f: _Finder, learnings: list[Any]) -> None:
    """Each learning's Id is a ULID, and no two learnings share one (a copied learning keeps its Id)."""
    id_lines: dict[str, list[int]] = {}
    for number, text in enumerate(f.text.split("\n"), start=1):
        if text.startswith("- **Id:** "):
            id_lines.setdefault(text[len("- **Id:** ") :].strip(), []).append(number)
    seen: set[str] = set()
    for learning in learnings:
        lines = id_lines.get(learning.id, [])
        line = lines.pop(0) if lines else 0
        if learning.id in seen:
            f.add(line, f"learning {learning.title!r} has the Id of an earlier learning ({learning.id})",
                  "a copied learning needs its own Id: delete its Id line and gridgit gives it one")  # fmt: skip
        elif not ids.is_id(learning.id):
            f.add(line, f"learning {learning.title!r} has an invalid Id {learning.id!r}", "an id is a ULID")
        seen.add(learning.id)


def _check_memory(f: _Finder, rel: str) -> None:
    try:
        found = memory_rules.problems(rel, f.text, f.display)
    except BadInput as exc:
        f.add_error(exc, memory_rules.FIX)
        return
    for line, message in found:
        f.add(line, message, memory_rules.FIX)


def _check_json_object(f: _Finder, what: str = "a JSON object") -> Any:
    try:
        data = json.loads(f.text)
    except json.JSONDecodeError as exc:
        f.add(exc.lineno, f"invalid JSON: {exc.msg}")
        return None
    except RecursionError:
        f.add(1, "JSON nested too deeply")
        return None
    if not isinstance(data, dict):
        f.add(1, f"expected {what}")
        return None
    return data


def _check_config(f: _Finder) -> None:
    from gridgit.store.config import UNKNOWN, problems

    data = _check_json_object(f)
    if data is None:
        return
    for key, problem in problems(data):
        fix = "remove it (a typo of another key?)" if problem == UNKNOWN else ""
        f.add(_json_line(f.text, key.rsplit(".", 1)[-1]), f"{key} {problem}", fix)


def _json_line(text: str, key: str) -> int:
    index = text.find(f'"{key}"')
    return text.count("\n", 0, index) + 1 if index >= 0 else 0


def _check_fields(f: _Finder, problems: Callable[[dict[str, Any]], list[tuple[str, str]]]) -> None:
    """A frontmatter file of the work (a block's PLAN or SUMMARY, a debug investigation): PROBLEMS of its fields."""
    from gridgit.store import frontmatter

    try:
        meta, _ = frontmatter.parse(f.text, f.display)
    except BadInput as exc:
        f.add_error(exc, "correct the YAML frontmatter")
        return
    for key, message in problems(meta):
        f.add(f.line_of(key), message, "correct the field in the YAML frontmatter")


def _check_claims(f: _Finder) -> None:
    """claims.json: a claims file, each claim one gridgit would write (gridgit.coordination.claimfile)."""
    from gridgit.coordination import claimfile

    if _check_json_object(f) is not None:
        for message in claimfile.file_problems(f.text):
            f.add(0, message)


def _check_clone(f: _Finder, name: str) -> None:
    """clones/<clone id>.json: what one clone tells the others (gridgit.coordination.presence)."""
    from gridgit.coordination import presence

    if _check_json_object(f) is not None:
        for message in presence.problems(f.text, name):
            f.add(0, message)


def _check_budget(f: _Finder) -> None:
    from gridgit.work import budget

    data = _check_json_object(f)
    for key, message in budget.problems(data) if data is not None else []:
        f.add(_json_line(f.text, key), message)


def _work_checker(parts: tuple[str, ...]) -> Callable[[_Finder], None] | None:
    """The checker of a work file (gridgit.work): a block's PLAN or SUMMARY, a debug investigation."""
    from gridgit.work import blockfile, debug

    folder, name = parts[1], parts[2]
    if parts[0] == "phases" and blockfile.PLAN_RE.match(name):
        return lambda f: _check_fields(f, lambda meta: blockfile.plan_problems(meta, folder, name))
    if parts[0] == "phases" and blockfile.SUMMARY_RE.match(name):
        return lambda f: _check_fields(f, lambda meta: blockfile.summary_problems(meta, folder, name))
    if parts[0] == "debug" and name == "investigation.md":
        return lambda f: _check_fields(f, lambda meta: debug.problems(meta, folder))
    return None


def _check_event_line(f: _Finder, number: int, line: str) -> None:
    try:
        event = json.loads(line)
    except json.JSONDecodeError as exc:
        f.add(number, f"invalid JSON: {exc.msg} at column {exc.colno}")
        return
    if not isinstance(event, dict):
        f.add(number, "an event must be a JSON object")
        return
    missing = [k for k in EVENT_KEYS if k not in event]
    if missing:
        f.add(number, "event lacks " + ", ".join(missing))
    elif not isinstance(event["payload"], dict) or not isinstance(event["id"], str):
        f.add(number, "event id must be a string and payload an object")


def _check_events(f: _Finder) -> None:
    for number, line in enumerate(f.text.split("\n"), start=1):
        if line.strip():
            _check_event_line(f, number, line)


def _check_latest(f: _Finder) -> None:
    if f.text.strip():
        _check_event_line(f, 1, f.text.strip())


def _check_message(f: _Finder, box: str, name: str) -> None:
    from gridgit.coordination import mailbox

    try:
        message = mailbox.parse(f.text, f.display)
        mailbox.check_target(message.to)
        permissions.check_agent_id(message.sender)
    except BadInput as exc:
        f.add_error(exc)
        return
    if name != f"{message.id}.md":
        f.add(f.line_of("id"), f"message {message.id} is in a file named {name}", f"rename it {message.id}.md")
    if box != message.box:
        f.add(f.line_of("to"), f"a message to {message.to} belongs in messages/{message.box}/, not {box}/")


def _checker(rel: PurePosixPath) -> Callable[[_Finder], None] | None:
    """The checker for a path inside .grid/, or None for files gridgit does not validate."""
    parts = rel.parts
    if not parts or rel.name.endswith(_SKIPPED_SUFFIXES) or any(p in _SKIPPED_DIRS for p in parts):
        return None
    if parts == ("STATE.md",):
        return _check_state
    if parts == ("LEARNINGS.md",):
        return _check_learnings
    if parts == ("budget.json",):
        return _check_budget
    if parts == ("config.json",):
        return _check_config
    if parts == ("claims.json",):
        return _check_claims
    if parts[0] == "clones" and len(parts) == 2:
        return lambda f: _check_clone(f, rel.name)
    if parts[0] == "events" and len(parts) == 2:
        if rel.suffix == ".jsonl":
            return _check_events
        if rel.name == "latest.json":
            return _check_latest
        return None
    if parts[0] == "messages":
        if len(parts) != 3 or rel.suffix != ".md":
            return lambda f: f.add(0, "not a message file (messages/<box>/<id>.md)", "move it out of messages/")
        return lambda f: _check_message(f, parts[1], parts[2])
    if parts[0] == "memory" and len(parts) > 1:
        rel_memory = "/".join(parts[1:])
        return (lambda f: _check_memory(f, rel_memory)) if memory_rules.expected_kind(rel_memory) else None
    if parts[0] == "phases" and len(parts) == 3:
        folder, name = parts[1], parts[2]
        if not PHASE_ID_RE.match(folder):
            return lambda f: f.add(0, f"phase folder {folder!r} is not NN-slug (e.g. 01-foundation)",
                                   "rename the folder")  # fmt: skip
        if name == "scratchpad.md":
            return lambda f: _check_scratchpad(f, folder)
        if name in ("scratchpad_archived.md", "scratchpad_archive.md"):
            return lambda f: _check_archive(f, folder)
    if len(parts) == 3 and parts[0] in ("phases", "debug"):
        return _work_checker(parts)
    return None


def is_validated(rel_path: str) -> bool:
    """True when REL_PATH (inside .grid/) is a file gridgit validates."""
    return _checker(PurePosixPath(rel_path)) is not None


def validate_text(rel_path: str, text: str, display: str | None = None) -> list[Problem]:
    """Problems of TEXT as the .grid/ file REL_PATH (e.g. `phases/01-x/scratchpad.md`).

    DISPLAY is the path problems name (default `.grid/REL_PATH`).
    """
    checker = _checker(PurePosixPath(rel_path))
    finder = _Finder(display or f".grid/{rel_path}", text)
    if checker is not None:
        _check_conflict_markers(finder)
        checker(finder)
    return finder.problems


_MARKER_RE = re.compile(r"^(?:<{7}|>{7}|\|{7})(?: .*)?$|^={7}$", re.MULTILINE)


def _check_conflict_markers(f: _Finder) -> None:
    """Lines a failed git merge left (`<<<<<<<`, `=======`, `>>>>>>>`): both sides are in the file."""
    if "<<<<<<<" not in f.text:
        return  # `=======` alone is a markdown heading underline
    for match in _MARKER_RE.finditer(f.text):
        f.add(f.text.count("\n", 0, match.start()) + 1, f"git conflict marker {match.group()[:20]!r}",
              "keep what both sides meant and delete the marker lines")  # fmt: skip


def validate_bytes(rel_path: str, data: bytes, display: str | None = None) -> list[Problem]:
    """As validate_text, for raw file content (non-UTF-8 is a problem)."""
    shown = display or f".grid/{rel_path}"
    if not is_validated(rel_path):
        return []
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return [Problem(shown, data.count(b"\n", 0, exc.start) + 1, f"not UTF-8 text ({exc.reason})")]
    return validate_text(rel_path, text, shown)


def symlink_problem(shown: str) -> Problem:
    """The finding for a symlink where a .grid/ file should be (SHOWN: its path as the user sees it)."""
    return Problem(
        shown, 0, "is a symlink; gridgit does not follow symlinks in .grid/", "replace it with a regular file"
    )
