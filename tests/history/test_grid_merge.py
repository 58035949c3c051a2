"""The whole-Blackboard merge `gridgit sync` runs: trees of .grid/ files, cross-file invariants, symmetry."""

from __future__ import annotations

import copy
import json
import random
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from gridgit.history.grid_merge import merge_grid
from gridgit.model import state
from gridgit.model.learnings import LearningsFile
from gridgit.phases import lifecycle, promotion
from gridgit.scratchpad import store
from gridgit.scratchpad.archive import Archive
from gridgit.scratchpad.document import Scratchpad
from gridgit.scratchpad.entry import Entry
from gridgit.store.layout import Layout
from gridgit.validation.rules import validate_bytes
from tests.conftest import Repo
from tests.history.test_merge import E1, E2, E3, pad

PAD = "phases/01-foundation/scratchpad.md"
ARCHIVE = "phases/01-foundation/scratchpad_archived.md"


def test_entry_archived_on_one_side_and_changed_on_the_other_is_archived_once_with_the_change() -> None:
    archived = Archive("01-foundation", "Foundation")
    archived.add([copy.deepcopy(E1)], set(), "2026-01-02T00:00:00Z")
    changed = copy.deepcopy(E1)
    changed.content = "one, edited\n- Commit: abc1234"  # a three-way change: not a union with the old line
    base = {PAD: pad(E1, E2).encode()}
    ours = {PAD: pad(E2).encode(), ARCHIVE: archived.render().encode()}
    theirs = {PAD: pad(changed, E2, E3).encode()}
    result = merge_grid(base, ours, theirs)
    assert result.conflicts == []
    assert merge_grid(base, theirs, ours).files == result.files
    entries = Scratchpad.parse(result.files[PAD].decode(), "s").entries
    assert [e.content for e in entries] == ["three", "two"]
    assert [e.content for e in Archive.parse(result.files[ARCHIVE].decode(), "a").entries] == [changed.content]


def test_an_entry_or_learning_one_side_lost_by_hand_is_kept_and_only_an_archive_move_removes() -> None:
    learnings = "# Learnings\n\n## gotchas\n\n### Retry\n\nBack off.\n\n### Cache\n\nWarm it.\n"
    hand_edited = learnings.replace("### Cache\n\nWarm it.\n", "")
    base = {PAD: pad(E1, E2).encode(), "LEARNINGS.md": learnings.encode()}
    ours = {PAD: pad(E1).encode(), "LEARNINGS.md": hand_edited.encode()}  # E2 and a learning deleted by hand
    theirs = {PAD: pad(E1, E2, E3).encode(), "LEARNINGS.md": learnings.encode()}
    for result in (merge_grid(base, ours, theirs), merge_grid(base, theirs, ours)):
        assert [e.content for e in Scratchpad.parse(result.files[PAD].decode(), "s").entries] == ["one", "three", "two"]
        titles = [item.title for item in LearningsFile.parse(result.files["LEARNINGS.md"].decode()).learnings()]
        assert titles == ["Retry", "Cache"]
    archived = Archive("01-foundation", "Foundation")
    archived.add([copy.deepcopy(E2)], set(), "2026-01-02T00:00:00Z")
    moved = merge_grid(base, {PAD: pad(E1).encode(), ARCHIVE: archived.render().encode()}, theirs)
    assert [e.content for e in Scratchpad.parse(moved.files[PAD].decode(), "s").entries] == ["one", "three"]


def test_files_merge_by_lines_or_by_a_reported_choice() -> None:
    base = {"CHECKPOINT.md": b"a\nb\nc\n", "config.json": b'{"x": 1, "y": 1}\n'}
    ours = {"CHECKPOINT.md": b"A\nb\nc\n", "config.json": b'{"x": 2, "y": 1}\n'}
    theirs = {"CHECKPOINT.md": b"a\nb\nC\n", "config.json": b'{"x": 3, "y": 2}\n'}
    result = merge_grid(base, ours, theirs)
    assert result.files["CHECKPOINT.md"] == b"A\nb\nC\n"
    assert result.conflicts == ["config.json"]
    assert merge_grid(base, theirs, ours).files == result.files
    assert json.loads(result.files["config.json"])["y"] == 2  # merged key by key; x is one side's choice


def test_additions_are_kept_and_a_file_one_side_lacks_is_never_deleted() -> None:
    base = {"a.md": b"a\n", "b.md": b"b\n", "events/archive/current-000001.jsonl": b""}
    ours = {"a.md": b"a\n", "c.md": b"c\n"}  # b.md gone here: damage, or an earlier gridgit
    theirs = {"b.md": b"b\n", "a.md": b"a\n", "events/archive/current-000001.jsonl": b""}
    result = merge_grid(base, ours, theirs)
    # Only operations remove: b.md stays; a rotated event segment leaves by retention, an operation.
    assert result.files == {"a.md": b"a\n", "b.md": b"b\n", "c.md": b"c\n"}
    assert merge_grid(base, theirs, ours).files == result.files


# ---- three replicas syncing pairwise: the library's own writes, in-memory history -----------------

PHASES = ["01-foundation", "02-core", "03-api", "04-ui", "05-ship"]
CATEGORIES_WRITTEN = ["discovery", "gotcha", "decision", "blocker", "warning", "handoff", "pattern", "question"]


def _tracked(rel: str) -> bool:
    """What a snapshot holds: everything but machine-local files (the event log is committed here)."""
    parts = rel.split("/")
    return not (
        rel.endswith((".lock", ".tmp")) or "cursors" in parts or ".daemon" in parts or rel == "events/latest.json"
    )


def _read_tree(grid: Path) -> dict[str, bytes]:
    found = {}
    for path in grid.rglob("*"):
        rel = path.relative_to(grid).as_posix()
        if path.is_file() and _tracked(rel):
            found[rel] = path.read_bytes()
    return found


def _write_tree(grid: Path, old: dict[str, bytes], new: dict[str, bytes]) -> None:
    for rel in set(old) - set(new):
        (grid / rel).unlink()
    for rel, data in new.items():
        if old.get(rel) != data:
            (grid / rel).parent.mkdir(parents=True, exist_ok=True)
            (grid / rel).write_bytes(data)


@dataclass
class History:
    """Commits of the grid ref: {id: (parents, tree)}; merge-base as git defines it (a best common ancestor)."""

    commits: dict[int, tuple[tuple[int, ...], dict[str, bytes]]] = field(default_factory=dict)

    def commit(self, parents: tuple[int, ...], tree: dict[str, bytes]) -> int:
        self.commits[len(self.commits)] = (parents, tree)
        return len(self.commits) - 1

    def ancestors(self, commit: int) -> set[int]:
        seen, todo = set(), [commit]
        while todo:
            c = todo.pop()
            if c not in seen:
                seen.add(c)
                todo.extend(self.commits[c][0])
        return seen

    def merge_base(self, a: int, b: int, rng: random.Random) -> int:
        common = self.ancestors(a) & self.ancestors(b)
        best = [c for c in common if not any(c != d and c in self.ancestors(d) for d in common)]
        return rng.choice(sorted(best))  # criss-cross merges have several: any one will do


@dataclass
class Replica:
    layout: Layout
    head: int
    agents: list[str]

    def snapshot(self, history: History) -> dict[str, bytes]:
        tree = _read_tree(self.layout.grid)
        if tree != history.commits[self.head][1]:
            self.head = history.commit((self.head,), tree)
        return tree


def _sync(a: Replica, b: Replica, history: History, rng: random.Random, seen: dict[str, set[str]]) -> None:
    """`gridgit sync` between A and B: snapshot both, merge (or fast-forward), both take the result."""
    trees = {id(r): r.snapshot(history) for r in (a, b)}
    for r in (a, b):
        _observe(trees[id(r)], seen)
    if a.head == b.head:
        return
    if a.head in history.ancestors(b.head) or b.head in history.ancestors(a.head):
        head = b.head if a.head in history.ancestors(b.head) else a.head
        merged = history.commits[head][1]
    else:
        base = history.commits[history.merge_base(a.head, b.head, rng)][1]
        result = merge_grid(base, trees[id(a)], trees[id(b)])
        assert result.conflicts == []
        assert merge_grid(base, trees[id(b)], trees[id(a)]).files == result.files  # symmetric
        merged = result.files
        head = history.commit((a.head, b.head), merged)
    for r in (a, b):
        _write_tree(r.layout.grid, trees[id(r)], merged)
        r.head = head


def _entries(tree: dict[str, bytes]) -> list[Entry]:
    found = []
    for rel, data in tree.items():
        name = rel.rsplit("/", 1)[-1]
        if name == "scratchpad.md":
            found += Scratchpad.parse(data.decode(), rel).entries
        elif name == "scratchpad_archived.md":
            found += Archive.parse(data.decode(), rel).entries
    return found


def _events(tree: dict[str, bytes]) -> list[str]:
    return [
        json.loads(line)["id"] for rel, data in tree.items() if rel.endswith(".jsonl") for line in data.splitlines()
    ]


def _observe(tree: dict[str, bytes], seen: dict[str, set[str]]) -> None:
    """Record every entry, learning and event a replica ever had: none may be lost."""
    seen["entries"].update(e.uid for e in _entries(tree))
    seen["learnings"].update(item.id for item in LearningsFile.parse(tree["LEARNINGS.md"].decode()).learnings())
    seen["events"].update(_events(tree))


def _act(replica: Replica, rng: random.Random, written: list[str], step: str) -> None:
    layout = replica.layout
    current = state.current_phase(state.read(layout)) or PHASES[-1]
    roll = rng.random()
    if roll < 0.75:
        marker = f"[{step}]"
        category = rng.choice(CATEGORIES_WRITTEN)
        tags = rng.choice([[], ["promote"], ["resolved"], ["user_preference"]])
        store.write_entry(layout, current, rng.choice(replica.agents), category, rng.choice(["auth", "db"]),
                          f"{category} {marker}\n- File: src/{step}.py", tags, rng.choice(["HIGH", "LOW"]))  # fmt: skip
        written.append(marker)
    elif roll < 0.87:
        promotion.promote(layout, current, "memory-001")
    elif current != PHASES[-1]:
        lifecycle.complete_phase(layout, current, agent_id="mc")


def _simulate(template: dict[str, bytes], tmp_path: Path, seed: int, rounds: int) -> None:
    rng = random.Random(seed)
    history = History()
    root = history.commit((), template)
    replicas = []
    for n in range(3):
        grid = tmp_path / f"replica{n}" / ".grid"
        _write_tree(grid, {}, template)
        layout = Layout(root=grid.parent, main_root=grid.parent, grid=grid)
        replicas.append(Replica(layout, root, [f"executor-{n}{i:02d}" for i in range(2)]))
    written: list[str] = []
    seen: dict[str, set[str]] = {"entries": set(), "learnings": set(), "events": set()}
    for step in range(rounds):
        replica = rng.choice(replicas)
        if rng.random() < 0.3:
            _sync(replica, rng.choice([r for r in replicas if r is not replica]), history, rng, seen)
        else:
            _act(replica, rng, written, f"s{seed}-{step}")
    for a, b in ((0, 1), (0, 2), (1, 0)):  # everyone ends on the same commit
        _sync(replicas[a], replicas[b], history, rng, seen)
    trees = [_read_tree(r.layout.grid) for r in replicas]
    assert trees[0] == trees[1] == trees[2]
    final = trees[0]
    assert not [rel for rel, data in final.items() if b"<<<<<<<" in data or b">>>>>>>" in data]
    assert not [str(p) for rel, data in final.items() for p in validate_bytes(rel, data)]

    entries = _entries(final)
    uids = [e.uid for e in entries]
    assert len(uids) == len(set(uids)), "an entry is doubled"
    assert seen["entries"] <= set(uids), "an entry was lost"
    by_uid = {e.uid: e for e in entries}
    for marker in written:  # each write is in exactly one entry that is not a carried copy of it
        holders = [e for e in entries if marker in e.content]
        own = [e for e in holders if not (e.carried_from in by_uid and marker in by_uid[e.carried_from].content)]
        assert len(own) == 1, (marker, [e.uid for e in holders])
    carried = [(p, e.carried_from) for p in PHASES for e in _entries({k: v for k, v in final.items() if p in k})
               if e.carried_from]  # fmt: skip
    assert len(carried) == len(set(carried)), "an entry carried twice into one phase"

    items = LearningsFile.parse(final["LEARNINGS.md"].decode()).learnings()
    assert len({item.id for item in items}) == len(items) and seen["learnings"] <= {item.id for item in items}
    origins = [item.origin for item in items]
    assert len(origins) == len(set(origins)), "an entry promoted twice"
    events = _events(final)
    assert len(events) == len(set(events)) and seen["events"] <= set(events)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_three_replicas_syncing_pairwise_converge_losing_and_doubling_nothing(
    bare_repo: Repo, tmp_path: Path, seed: int
) -> None:
    bare_repo.gridgit("init", *[arg for phase in PHASES for arg in ("--phase", phase)])
    layout = Layout.find(bare_repo.path)
    config = json.loads(layout.config.read_text(encoding="utf-8"))
    config["scratchpad"].update(max_entries=6, keep_recent=3)
    layout.config.write_text(json.dumps(config), encoding="utf-8")
    _simulate(_read_tree(layout.grid), tmp_path, seed, rounds=150)


def _log(*event_ids: str) -> bytes:
    return b"".join(
        json.dumps({"id": i, "type": "t", "timestamp": "x", "payload": {}}).encode() + b"\n" for i in event_ids
    )


def test_an_event_is_in_one_event_file_after_one_side_rotated_its_log() -> None:
    segment = "events/archive/current-000001.jsonl"
    base = {"events/current.jsonl": _log("01", "02")}
    ours = {"events/current.jsonl": _log("03"), segment: _log("01", "02")}  # rotated, then one more
    theirs = {"events/current.jsonl": _log("01", "02", "04")}
    result = merge_grid(base, ours, theirs)
    assert result.files == {segment: _log("01", "02"), "events/current.jsonl": _log("03", "04")}
    assert merge_grid(base, theirs, ours).files == result.files
