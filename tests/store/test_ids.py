"""Stable ids: ULIDs made by many processes at once never collide; legacy items get the same ids in every clone."""

from __future__ import annotations

import multiprocessing
import re
from pathlib import Path

from gridgit.events import bus
from gridgit.model import learnings
from gridgit.scratchpad import reads, store
from gridgit.scratchpad.document import Scratchpad
from gridgit.store import ids
from gridgit.store.layout import Layout
from tests.conftest import Repo, git

PHASE = "01-foundation"


def _make(queue: multiprocessing.Queue[list[str]], count: int) -> None:
    queue.put([ids.new_id() for _ in range(count)] + [bus.new_id() for _ in range(count)])


def test_ids_from_eight_processes_at_once_are_unique_and_each_process_sorts_its_own() -> None:
    ctx = multiprocessing.get_context("fork")  # forked children start with the parent's state
    ids.new_id(), bus.new_id()
    queue: multiprocessing.Queue[list[str]] = ctx.Queue()
    procs = [ctx.Process(target=_make, args=(queue, 5000)) for _ in range(8)]
    for proc in procs:
        proc.start()
    batches = [queue.get(timeout=120) for _ in procs]
    for proc in procs:
        proc.join(timeout=60)
    made = [i for batch in batches for i in batch]
    assert len(made) == len(set(made)) == 8 * 10_000
    for batch in batches:
        entry_ids, event_ids = batch[:5000], batch[5000:]
        assert entry_ids == sorted(entry_ids) and all(ids.is_id(i) for i in entry_ids)
        assert event_ids == sorted(event_ids)


def test_an_id_sorts_by_time_and_a_derived_one_is_a_function_of_its_fields() -> None:
    assert ids.derived_id("2026-01-24T14:30:00Z", "a", "b") == ids.derived_id("2026-01-24T14:30:00Z", "a", "b")
    assert ids.derived_id("2026-01-24T14:30:00Z", "a", "b") != ids.derived_id("2026-01-24T14:30:00Z", "a", "c")
    assert ids.derived_id("2026-01-24T14:30:00Z", "x") < ids.derived_id("2026-01-24T14:30:01Z", "x")
    assert ids.derived_id("2026-01-24T14:30:01Z", "x") < ids.new_id()
    assert ids.is_id(ids.derived_id("not a time", "x")) and not ids.is_id("01-foundation")


LEGACY_ENTRY = (
    "### [{n}] [2026-01-24T14:30:00Z] executor-001 | gotcha | auth\n\n"
    "**Topic:** Auth\n**Tags:** auth\n**Relevance:** HIGH\n**Block:** 01-02\n\n{content}\n\n---\n\n"
)
LEGACY_LEARNING = (
    "### Auth: order\n\nGotcha: order.\n\n"
    "- **Origin:** 01-foundation@2026-01-24T14:30:00Z/executor-001/gotcha/auth\n"
    "- **From:** 01-foundation [1] 2026-01-24T14:30:00Z executor-001 | gotcha | auth\n\n"
    "### By hand\n\nWritten by a person.\n\n"
)


def _legacy_board(repo: Repo) -> None:
    """What an earlier gridgit wrote: entries and learnings without ids (two entries alike but for content)."""
    path = repo.grid / "phases" / PHASE / "scratchpad.md"
    pad = Scratchpad.parse(path.read_text(encoding="utf-8"), "s")
    body = "".join(LEGACY_ENTRY.format(n=n, content=c) for n, c in ((1, "Gotcha: order."), (2, "Another one.")))
    path.write_text(pad.render().replace(pad.preamble, pad.preamble + body), encoding="utf-8")
    store.reindex(Layout.find(repo.path), PHASE)
    learnings_path = repo.grid / "LEARNINGS.md"
    text = learnings_path.read_text(encoding="utf-8")
    learnings_path.write_text(text.replace("## gotchas\n", "## gotchas\n\n" + LEGACY_LEARNING), encoding="utf-8")
    assert "**Id:**" not in path.read_text(encoding="utf-8") + learnings_path.read_text(encoding="utf-8")


def _id_lines(repo: Repo) -> list[str]:
    text = (repo.grid / "phases" / PHASE / "scratchpad.md").read_text(encoding="utf-8")
    text += (repo.grid / "LEARNINGS.md").read_text(encoding="utf-8")
    return re.findall(r"^(?:- )?\*\*Id:\*\* (\S+)$", text, re.MULTILINE)


def test_legacy_files_get_the_same_ids_in_two_clones_on_first_touch(repo: Repo, tmp_path: Path) -> None:
    _legacy_board(repo)
    repo.git("add", "-A", "--force")
    repo.git("commit", "-q", "--no-verify", "-m", "a blackboard of the previous version")
    clone = Repo(tmp_path / "clone")
    git(tmp_path, "clone", "-q", str(repo.path), str(clone.path))
    read_before = [e.uid for e in reversed(reads.read_entries(Layout.find(clone.path), PHASE, category="gotcha"))]
    for side, agent in ((repo, "executor-002"), (clone, "executor-003")):  # each clone touches the files once
        layout = Layout.find(side.path)
        store.write_entry(layout, PHASE, agent, "discovery", "db", f"new in {agent}", [])
        learnings.add(layout, [learnings.Learning("patterns", f"From {agent}", "text", origin=ids.new_id())], "system")
    ours, theirs = _id_lines(repo), _id_lines(clone)
    # Two legacy entries, the new one, two legacy learnings, the new one: the legacy ids agree.
    assert len(ours) == len(theirs) == 6
    assert ours[:2] == theirs[:2] and ours[3:5] == theirs[3:5] and len(set(ours[:2])) == 2
    assert ours[2] != theirs[2] and ours[5] != theirs[5]
    assert read_before == ours[:2]  # a read before the first touch already sees those ids
    # The legacy learning's origin names the legacy entry by its derived uid: it is never promoted again.
    [legacy] = [item for item in learnings.read(Layout.find(repo.path), "gotchas") if item.title == "Auth: order"]
    assert legacy.origin == ours[0]


def test_a_copy_made_at_another_moment_in_another_clone_gets_the_same_id() -> None:
    """The cause of a flaky 3-replica sync: a carried copy's uid came from its timestamp, which is
    when that clone carried it; carried on again (or promoted) in two clones a second apart, it got
    two uids and the merge kept it twice."""
    from gridgit.phases.carry_forward import carried_uid
    from gridgit.scratchpad.entry import Entry

    source = ids.new_id()
    copies = [Entry(1, stamp, "system", "gotcha", "auth", [], "HIGH", "", "x", uid=source)
              for stamp in ("2026-01-01T10:00:00Z", "2026-01-01T10:00:07Z")]  # fmt: skip
    assert carried_uid("03-next", copies[0]) == carried_uid("03-next", copies[1])
    assert learnings.learning_id(source, copies[0].timestamp) == learnings.learning_id(source, copies[1].timestamp)
    assert carried_uid("03-next", copies[0])[:10] == source[:10]  # still sorts by when the item was made
    assert ids.is_id(carried_uid("03-next", copies[0])) and carried_uid("04-x", copies[0]) != carried_uid(
        "03-next", copies[0]
    )
