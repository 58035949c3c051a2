"""One block's files, pure functions of text: `phases/NN-slug/MM-PLAN.md` and `MM-SUMMARY.md` (spec section 5).

A block id is `NN-MM`: NN the number of its phase, MM its number in the phase (`01-02` is
`phases/01-foundation/02-PLAN.md`). The PLAN file's frontmatter is the block's place in the
queue (wave, priority, dependencies, the files it claims), who planned and approved it, and its
take (status, owner, clone, times, commits); its body is the plan. The SUMMARY file, written when the block completes, holds
what was done. Nothing but an id that matches `NN-MM` ever becomes a file name.
"""

from __future__ import annotations

from pathlib import Path

from gridgit.errors import BadInput
from gridgit.store import clock, frontmatter
from gridgit.store.layout import PHASE_ID_RE, Layout
from gridgit.store.lazyre import lazy
from gridgit.store.record import Record

TYPE_CHECKING = False  # typing costs a hook's start ~2.5 ms (see gridgit.store.record)
if TYPE_CHECKING:
    from typing import Any

BLOCK_ID_RE = lazy(r"^(\d{2})-(\d{2})$")
PLAN_RE = lazy(r"^(\d{2})-PLAN\.md$")
SUMMARY_RE = lazy(r"^(\d{2})-SUMMARY\.md$")
# `proposed`: planned by an agent in `hands_on` mode, waiting for Master Control's approval (gridgit.model.mode).
STATUSES = ("proposed", "planned", "taken", "in_progress", "complete")
HELD = ("taken", "in_progress")
# What a take is: the fields that move when a block is taken, started, completed or released.
TAKE_FIELDS = ("status", "owner", "clone", "taken_at", "started_at", "completed_at", "commits")
MAX_WAVE = 99
# Priority orders the ready blocks of a wave: 0 first, 4 last (beads' P0-P4); 2 when nobody said.
PRIORITIES = range(0, 5)
DEFAULT_PRIORITY = 2
# A top-level item of a plan's task list, `- task` or `- [x] task` (its box, when it has one).
_TASK_RE = lazy(r"^[-*+] +(?:\[([ xX])\] *)?\S")

TEMPLATE = """## Goal
{What this block delivers, in one or two sentences}

## Tasks
- {Task 1}
- {Task 2}

## Done when
- {A check anyone can run}
"""


def check_block_id(block_id: Any) -> str:
    """BLOCK_ID when it is `NN-MM` (MM from 01); nothing else ever names a block's file."""
    match = BLOCK_ID_RE.match(block_id) if isinstance(block_id, str) else None
    if match is None or match.group(2) == "00":
        shown = block_id if not isinstance(block_id, str) or len(block_id) <= 40 else block_id[:40] + "…"
        raise BadInput(f"invalid block id {shown!r}: expected NN-NN, e.g. 01-02 (phase 01, block 02)")
    return str(block_id)


def sort_key(block_id: str) -> tuple[int, int]:
    return int(block_id[:2]), int(block_id[3:])


def plan_path(layout: Layout, phase_id: str, block_id: str) -> Path:
    return layout.phase_dir(phase_id) / f"{check_block_id(block_id)[3:]}-PLAN.md"


def summary_path(layout: Layout, phase_id: str, block_id: str) -> Path:
    return layout.phase_dir(phase_id) / f"{check_block_id(block_id)[3:]}-SUMMARY.md"


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def is_time(value: Any) -> bool:
    """VALUE is an ISO 8601 time (a string)."""
    if not isinstance(value, str):
        return False
    try:
        clock.parse(value)
    except ValueError:
        return False
    return True


def _optional(check: Any) -> Any:
    return lambda v: v is None or check(v)


def _strings(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _block_ids(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) and BLOCK_ID_RE.match(v) for v in value)


_is_str = lambda v: isinstance(v, str)  # noqa: E731
# field -> (check, what it must be); every field of a PLAN file's frontmatter.
PLAN_SCHEMA: dict[str, tuple[Any, str]] = {
    "block_id": (lambda v: isinstance(v, str) and bool(BLOCK_ID_RE.match(v)), "a block id NN-NN"),
    "phase_id": (lambda v: isinstance(v, str) and bool(PHASE_ID_RE.match(v)), "a phase id NN-slug"),
    "name": (_is_str, "a string"),
    "wave": (lambda v: _is_int(v) and 1 <= v <= MAX_WAVE, f"a whole number from 1 to {MAX_WAVE}"),
    "priority": (lambda v: _is_int(v) and v in PRIORITIES, "a whole number from 0 (first) to 4 (last)"),
    "depends_on": (_block_ids, "a list of block ids"),
    "files": (_strings, "a list of paths or globs"),
    "status": (lambda v: v in STATUSES, "one of " + ", ".join(STATUSES)),
    "owner": (_optional(_is_str), "an agent id or null"),
    "clone": (_optional(_is_str), "a clone id or null"),
    "taken_at": (_optional(is_time), "an ISO 8601 time or null"),
    "started_at": (_optional(is_time), "an ISO 8601 time or null"),
    "completed_at": (_optional(is_time), "an ISO 8601 time or null"),
    "commits": (_strings, "a list of commit hashes"),
    "planned_by": (_optional(_is_str), "an agent id or null"),
    "planned_at": (_optional(is_time), "an ISO 8601 time or null"),
    "approved_by": (_optional(_is_str), "an agent id or null"),
    "approved_at": (_optional(is_time), "an ISO 8601 time or null"),
    "contested": (lambda v: isinstance(v, list) and all(isinstance(c, dict) for c in v), "a list of mappings"),
}
SUMMARY_SCHEMA: dict[str, tuple[Any, str]] = {
    "block_id": PLAN_SCHEMA["block_id"],
    "phase_id": PLAN_SCHEMA["phase_id"],
    "name": PLAN_SCHEMA["name"],
    "agent": (_is_str, "an agent id"),
    "completed_at": (is_time, "an ISO 8601 time"),
    "commits": PLAN_SCHEMA["commits"],
}
_REQUIRED = ("block_id", "phase_id", "status")


def schema_problems(
    meta: dict[str, Any], schema: dict[str, tuple[Any, str]], required: tuple[str, ...]
) -> list[tuple[str, str]]:
    """(field, message) for every way META breaks SCHEMA: missing REQUIRED fields, unknown or wrong ones."""
    found = [(key, f"missing field {key!r}") for key in required if key not in meta]
    for key, value in meta.items():
        if key not in schema:
            found.append((key, f"unknown field {key!r}"))
        elif not schema[key][0](value):
            found.append((key, f"field {key!r} must be {schema[key][1]}, got {value!r:.60}"))
    return found


def _place_problems(meta: dict[str, Any], folder: str, name: str) -> list[tuple[str, str]]:
    """The block and phase a file names must be those of its place: `phases/01-x/02-PLAN.md` is block 01-02 of 01-x."""
    found = []
    block_id = meta.get("block_id")
    if isinstance(block_id, str) and BLOCK_ID_RE.match(block_id) and block_id != f"{folder[:2]}-{name[:2]}":
        found.append(("block_id", f"block_id {block_id!r} does not match its file {folder}/{name}"))
    if isinstance(meta.get("phase_id"), str) and meta["phase_id"] != folder:
        found.append(("phase_id", f"phase_id {meta['phase_id']!r} does not match its folder {folder!r}"))
    return found


def plan_problems(meta: dict[str, Any], folder: str, name: str) -> list[tuple[str, str]]:
    """Every problem of a PLAN file's frontmatter META, found in phase folder FOLDER under file NAME."""
    found = schema_problems(meta, PLAN_SCHEMA, _REQUIRED) + _place_problems(meta, folder, name)
    block_id = meta.get("block_id")
    if meta.get("status") in HELD and not meta.get("owner"):
        found.append(("owner", f"a block {meta['status']} needs its owner"))
    if block_id in (meta.get("depends_on") or []):
        found.append(("depends_on", f"block {block_id} depends on itself"))
    return found


class Block(Record):
    """A block as its PLAN file says (see the module docstring); BODY is the markdown below the frontmatter."""

    FIELDS = (
        "block_id", "phase_id", "name", "wave", "priority", "depends_on", "files", "status", "owner", "clone",
        "taken_at", "started_at", "completed_at", "commits", "planned_by", "planned_at", "approved_by",
        "approved_at", "contested", "body",
    )  # fmt: skip
    __slots__ = FIELDS

    def __init__(
        self,
        block_id: str,
        phase_id: str,
        name: str = "",
        wave: int = 1,
        priority: int = DEFAULT_PRIORITY,
        depends_on: list[str] | None = None,
        files: list[str] | None = None,
        status: str = "planned",
        owner: str | None = None,
        clone: str | None = None,
        taken_at: str | None = None,
        started_at: str | None = None,
        completed_at: str | None = None,
        commits: list[str] | None = None,
        planned_by: str | None = None,
        planned_at: str | None = None,
        approved_by: str | None = None,
        approved_at: str | None = None,
        contested: list[dict[str, Any]] | None = None,
        body: str = "",
    ) -> None:
        self.block_id = block_id
        self.phase_id = phase_id
        self.name = name
        self.wave = wave
        self.priority = priority
        self.depends_on = depends_on if depends_on is not None else []
        self.files = files if files is not None else []
        self.status = status
        self.owner = owner
        self.clone = clone
        self.taken_at = taken_at
        self.started_at = started_at
        self.completed_at = completed_at
        self.commits = commits if commits is not None else []
        self.planned_by = planned_by
        self.planned_at = planned_at
        self.approved_by = approved_by
        self.approved_at = approved_at
        self.contested = contested if contested is not None else []
        self.body = body

    @property
    def held(self) -> bool:
        return self.status in HELD

    @property
    def complete(self) -> bool:
        return self.status == "complete"

    @property
    def proposed(self) -> bool:
        return self.status == "proposed"

    @property
    def plan(self) -> str:
        """The plan's text: the body without the heading gridgit writes above it."""
        lines = self.body.lstrip("\n").split("\n", 1)
        text = lines[1] if lines[0].startswith(f"# Block {self.block_id}") and len(lines) > 1 else self.body
        return text.strip("\n")

    def threads(self) -> tuple[int, int]:
        """(threads, threads done): the spec's threads of a block are the items of its plan's `## Tasks`
        list (a plan without one is one thread); done are those checked `- [x]`, and all once it is complete."""
        tasks: list[bool] = []
        inside = False
        for line in self.plan.split("\n"):
            if line.startswith("#"):
                inside = line.lstrip("#").strip().lower() == "tasks"
            elif inside and (item := _TASK_RE.match(line)):
                tasks.append(item.group(1) in ("x", "X"))
        total = max(len(tasks), 1)
        return total, total if self.complete else sum(tasks)

    def meta(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.FIELDS if name != "body"}

    def to_dict(self) -> dict[str, Any]:
        return {**self.meta(), "plan": self.plan}

    def take(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in TAKE_FIELDS}

    def render(self) -> str:
        return frontmatter.render(self.meta(), self.body)

    @classmethod
    def parse(cls, text: str, source: str, folder: str, name: str) -> Block:
        """The block of PLAN file TEXT (in phase folder FOLDER, file NAME); a problem is an error naming SOURCE."""
        meta, body = frontmatter.parse(text, source)
        problems = plan_problems(meta, folder, name)
        if problems:
            raise BadInput(f"{source}: {problems[0][1]}")
        return cls(**meta, body=body)


def plan_body(block_id: str, name: str, plan: str) -> str:
    heading = f"# Block {block_id}" + (f": {name}" if name else "")
    return f"\n{heading}\n\n{plan.strip()}\n" if plan.strip() else f"\n{heading}\n"


class Summary(Record):
    """A SUMMARY file: who completed the block, when, with which commits, and what they wrote."""

    FIELDS = ("block_id", "phase_id", "name", "agent", "completed_at", "commits", "text")
    __slots__ = FIELDS

    def __init__(
        self, block_id: str, phase_id: str, name: str, agent: str, completed_at: str, commits: list[str], text: str
    ) -> None:
        self.block_id = block_id
        self.phase_id = phase_id
        self.name = name
        self.agent = agent
        self.completed_at = completed_at
        self.commits = commits
        self.text = text

    def render(self) -> str:
        meta = {k: getattr(self, k) for k in ("block_id", "phase_id", "name", "agent", "completed_at", "commits")}
        heading = f"# Summary of block {self.block_id}" + (f": {self.name}" if self.name else "")
        return frontmatter.render(meta, f"\n{heading}\n\n{self.text.strip()}\n")


def summary_problems(meta: dict[str, Any], folder: str, name: str) -> list[tuple[str, str]]:
    required = ("block_id", "phase_id", "agent", "completed_at")
    return schema_problems(meta, SUMMARY_SCHEMA, required) + _place_problems(meta, folder, name)
