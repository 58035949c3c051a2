"""A phase compressed to its budget, the index and the topic files: pure functions of entries and learnings."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gridgit.errors import BadInput
from gridgit.memory import compress, index, knowledge, rules
from gridgit.memory.budget import estimate_tokens
from gridgit.model.learnings import Learning
from gridgit.scratchpad.entry import CATEGORIES, Entry, Resolution
from gridgit.store import frontmatter, ids

P1 = "01-foundation"


def entry(number: int, category: str, topic: str, content: str, agent: str = "executor-001", **extra: object) -> Entry:
    made = Entry(number, f"2026-01-24T14:{number:02d}:00Z", agent, category, topic, [], "MEDIUM", "01-01", content,
                 uid=ids.derived_id(f"2026-01-24T14:{number:02d}:00Z", str(number), topic))  # fmt: skip
    for name, value in extra.items():
        setattr(made, name, value)
    return made


def mission() -> list[Entry]:
    return [
        entry(1, "heartbeat", "progress", "Status: working"),
        entry(2, "decision", "auth", "Decision: signed cookies\n\nEvidence:\n- File: src/auth.py\n- Commit: 1a2b3c4"),
        entry(3, "gotcha", "db", "Gotcha: the pool is per thread"),
        entry(4, "discovery", "ui", "Found: tabs first draft"),
        entry(5, "discovery", "ui", "Found: the user wants tabs", agent="executor-002"),  # supersedes 4: below
        entry(6, "blocker", "stripe", "Blocker: no Stripe key", agent="recognizer-001"),
        entry(
            7,
            "question",
            "api",
            "Question: REST or RPC?",
            resolution=Resolution("2026-01-24T15:00:00Z", "mc", "", "REST"),
        ),
        entry(8, "handoff", "auth", "Handoff: refresh tokens left", relevance="HIGH"),
        entry(9, "pattern", "api", "Pattern: handlers are pure"),
    ]


def test_keeps_what_matters_drops_heartbeats_and_restated_entries() -> None:
    entries = mission()
    entries[4].supersedes = entries[3].uid  # `gridgit write --supersedes 4`, by another agent
    text = compress.compress(P1, "Foundation", entries, 500)
    meta, body = frontmatter.parse(text, "phase-01.md")
    assert meta["left_out"] == {"heartbeat": 1, "superseded": 1, "budget": 0}
    assert meta["kept"] == 7 and meta["entries"] == 9 and meta["source"] == compress.fingerprint(entries)
    linked = [uid for _, _, _, uids in compress.items(body) for uid in uids]
    assert linked == [
        e.uid for e in (entries[1], entries[2], entries[8], entries[5], entries[7], entries[4], entries[6])
    ]
    assert "- auth: Decision: signed cookies (executor-001; files: src/auth.py) [" in body
    assert "- api: question: Question: REST or RPC? -> REST (executor-001)" in body  # the answer is the knowledge
    assert body.index("## Decisions") < body.index("## Open items") < body.index("## Settled")
    assert "tabs first draft" not in body and "Status: working" not in body
    assert rules.problems("compressed/phase-01.md", text, "phase-01.md") == []


def test_superseding_takes_an_entry_that_says_so_and_a_merged_entry_keeps_every_voice() -> None:
    merged = entry(1, "gotcha", "db", "Gotcha: the pool is per thread\n\n---\n\n**Update from executor-002:**\n"
                   "Also: it leaks on fork", contributors=["executor-001", "executor-002"])  # fmt: skip
    later = entry(2, "gotcha", "db", "Gotcha: pool sizes need a cap")  # the same author and topic: no restatement
    other = entry(3, "gotcha", "cache", "Gotcha: unrelated", supersedes=merged.uid)  # another topic: not it
    body = frontmatter.parse(compress.compress(P1, "Foundation", [merged, later, other], 500), "x")[1]
    assert "- db: Gotcha: the pool is per thread; executor-002: Also: it leaks on fork (executor-001) [" in body
    assert "pool sizes need a cap" in body and compress.superseded([merged, later, other]) == set()
    replacing = entry(4, "gotcha", "db", "Gotcha: one pool per process", agent="executor-003", supersedes=merged.uid)
    assert compress.superseded([merged, later, replacing]) == {merged.uid}


def test_over_budget_the_most_valuable_stay_and_the_rest_are_counted() -> None:
    entries = [entry(n, "discovery", f"t{n}", f"Found: discovery number {n} " + "x" * 120) for n in range(1, 30)]
    entries.append(entry(40, "decision", "auth", "Decision: the one decision"))
    text = compress.compress(P1, "Foundation", entries, 200)
    meta, body = frontmatter.parse(text, "phase-01.md")
    assert estimate_tokens(text) <= 200
    assert "Decision: the one decision" in body  # a decision outranks every discovery
    assert meta["kept"] + meta["left_out"]["budget"] == 30
    assert meta["left_out"]["budget"] > 0


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(CATEGORIES), st.sampled_from(["auth", "db", "ui"]), st.text(max_size=300)),
        max_size=40,
    ),
    st.integers(min_value=100, max_value=1500),
)
def test_any_phase_fits_its_budget_links_its_entries_and_compresses_the_same_way_twice(
    rows: list[tuple[str, str, str]], budget: int
) -> None:
    entries = [entry(n % 60, category, topic, content or "x") for n, (category, topic, content) in enumerate(rows)]
    for n, made in enumerate(entries):
        made.uid = ids.derived_id("", str(n))
    text = compress.compress(P1, "Foundation", entries, budget)
    meta, body = frontmatter.parse(text, "phase-01.md")
    assert estimate_tokens(text) <= budget or meta["kept"] == 0
    held = {e.uid for e in entries if e.category != "heartbeat"}
    assert all(uids and set(uids) <= held for _, _, _, uids in compress.items(body))
    assert compress.compress(P1, "Foundation", entries, budget) == text
    assert rules.problems("compressed/phase-01.md", text, "x") == []


def learning(title: str, section: str, when: str, evidence: list[str], phase: str = P1) -> Learning:
    origin = ids.derived_id(when, title)
    return Learning(section, title, f"{title}.", id=ids.derived_id(when, "learning", title), origin=origin,
                    phase_id=phase, entry_id=1, agent_id="executor-001", timestamp=when, topic="auth",
                    evidence=evidence)  # fmt: skip


def test_topic_files_are_newest_first_one_per_origin_with_staleness_markers() -> None:
    old = learning("Cookies are signed", "decisions", "2026-01-24T14:00:00Z", ["File: src/auth.py", "Commit: 1a2b3c4"])
    new = learning("Sessions in redis", "decisions", "2026-01-25T14:00:00Z", ["File: src/auth.py"], "02-core")
    bare = learning("No evidence", "decisions", "2026-01-23T14:00:00Z", [])
    copy = learning("Cookies are signed", "decisions", "2026-01-24T14:00:00Z", [])
    copy.id = ids.derived_id("", "copy")  # promoted twice by an earlier gridgit: one origin, one item
    text = knowledge.topic_file("decisions", [old, new, bare, copy], "03-polish")
    body = frontmatter.parse(text, "decisions.md")[1]
    assert [line[4:] for line in body.split("\n") if line.startswith("### ")] == [
        "Sessions in redis", "Cookies are signed", "No evidence",
    ]  # fmt: skip
    assert (
        f'superseded? a newer learning cites src/auth.py: "Sessions in redis" [{new.id}]; from 01-foundation, 2 phases ago'
        in body
    )
    assert "unpinned: its evidence names no commit; from 02-core, 1 phase ago" in body
    assert "unverified: no evidence cited; from 01-foundation, 2 phases ago" in body
    alone = knowledge.topic_file("decisions", [old], "01-foundation")
    assert "pinned at 1a2b3c4; from 01-foundation, the newest phase" in alone
    assert rules.problems("decisions.md", text, "decisions.md") == []


def test_tech_context_lists_the_stack_and_what_is_tagged_with_it() -> None:
    tagged = learning("Use pg_bouncer", "patterns", "2026-01-24T14:00:00Z", [])
    tagged.tags = ["postgres"]
    rows = {
        "Phase 01-foundation": [
            index.Row(ids.derived_id("", "d"), "discovery", "db", ("postgres",), (), "x [1]", "Found: pools")
        ]
    }
    text = knowledge.tech_context({"database": "postgres", "web": {"framework": "flask"}}, [tagged], rows)
    assert "- database: postgres\n- web.framework: flask\n" in text
    section = text.split("## postgres\n\n", 1)[1]
    assert section.startswith(f"- learning/patterns: Use pg_bouncer [{tagged.id}]\n- discovery x [1]: Found: pools [")
    assert "## flask" not in text  # nothing tagged with it


def test_index_rows_round_trip_and_refuse_what_gridgit_did_not_write() -> None:
    made = entry(2, "decision", "auth", "Decision: a | b\n\nEvidence:\n- File: src/a.py, src/b.py")
    made.tags = ["x|y", "architectural"]
    row = index.entry_row(made, "phases/01-foundation/scratchpad_archived.md")
    text = index.render({"Phase 01-foundation": [row], index.LEARNINGS_BLOCK: []})
    (parsed,) = index.parse(text, "INDEX.md")["Phase 01-foundation"]
    assert parsed.files == ("src/a.py", "src/b.py") and parsed.tags == ("x/y", "architectural")
    assert parsed.title == "Decision: a / b" and parsed.id == made.uid
    for broken, message in (
        (text.replace(f"- {made.uid} |", "- nonsense |"), "neither an entry's or learning's id"),
        (text.replace(" | decision |", " decision |"), "expected `- id | kind"),
        (text.replace("## Phase", "## Elsewhere"), "unknown block"),
        (text.replace("kind: index", "kind: other"), "kind: index"),
    ):
        with pytest.raises(BadInput, match=message):
            index.parse(broken, "INDEX.md")
