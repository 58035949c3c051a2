"""Two clones' versions of memory/ files merged by `gridgit sync`: no conflict, the same whichever side is ours."""

from __future__ import annotations

from gridgit.history.grid_merge import merge_grid
from gridgit.memory import compress, index
from gridgit.store import ids
from tests.memory.test_compress import P1, entry


def row(name: str, phase: str = P1) -> index.Row:
    return index.Row(
        ids.derived_id("", name), "decision", name, (), (), f"phases/{phase}/scratchpad_archived.md [1]", name
    )


def test_index_lines_of_both_clones_are_kept_and_the_merge_is_symmetric() -> None:
    base = index.render({index.LEARNINGS_BLOCK: [], f"Phase {P1}": [row("a")]})
    ours = index.render({index.LEARNINGS_BLOCK: [], f"Phase {P1}": [row("a"), row("b")]})
    theirs = index.render(
        {index.LEARNINGS_BLOCK: [], f"Phase {P1}": [row("a"), row("c")], "Phase 02-core": [row("d", "02-core")]}
    )
    result = merge_grid({"memory/INDEX.md": base.encode()}, {"memory/INDEX.md": ours.encode()},
                        {"memory/INDEX.md": theirs.encode()})  # fmt: skip
    assert result.conflicts == []
    blocks = index.parse(result.files["memory/INDEX.md"].decode(), "INDEX.md")
    assert sorted(r.topic for r in blocks[f"Phase {P1}"]) == ["a", "b", "c"] and len(blocks["Phase 02-core"]) == 1
    swapped = merge_grid({"memory/INDEX.md": base.encode()}, {"memory/INDEX.md": theirs.encode()},
                         {"memory/INDEX.md": ours.encode()})  # fmt: skip
    assert swapped.files == result.files


def test_a_memory_agents_compressed_phase_wins_over_gridgits_and_other_files_keep_one_version() -> None:
    entries = [entry(1, "decision", "auth", "Decision: cookies")]
    gridgit = compress.compress(P1, "Foundation", entries, 500)
    agent = gridgit.replace("written_by: gridgit", "written_by: memory-001").replace("(executor-001)", "(said better)")
    for ours, theirs in ((gridgit, agent), (agent, gridgit)):
        result = merge_grid({}, {"memory/compressed/phase-01.md": ours.encode()},
                            {"memory/compressed/phase-01.md": theirs.encode()})  # fmt: skip
        assert (result.conflicts, result.files["memory/compressed/phase-01.md"]) == ([], agent.encode())
    one, two = b"---\nkind: gotchas\nlearnings: 0\n---\n\n# Gotchas\n", b"---\nkind: gotchas\nlearnings: 1\n---\n"
    result = merge_grid({}, {"memory/gotchas.md": one}, {"memory/gotchas.md": two})
    assert result.conflicts == [] and result.files["memory/gotchas.md"] in (one, two)
    assert merge_grid({}, {"memory/gotchas.md": two}, {"memory/gotchas.md": one}).files == result.files
    broken = merge_grid({}, {"memory/INDEX.md": b"not an index"}, {"memory/INDEX.md": b"nor this"})
    assert broken.conflicts == []
