"""LEARNINGS.md (L4): lossless parse/render, origins, no duplicates, writers."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gridgit.errors import BadInput, PermissionDenied
from gridgit.model import learnings
from gridgit.model.learnings import Learning, LearningsFile
from gridgit.store.layout import Layout
from tests.conftest import Repo

# Lines that look like the file's own structure, mixed into arbitrary text.
_TRICKY = st.sampled_from(
    [
        "## gotchas",
        "### A learning",
        "\\### escaped",
        "- **Origin:** 01-x@t/a/b/c",
        "- **Tags:** a, b",
        "  - File: x.py",
        "---",
        "```",
        "# Title",
        "#### deeper",
        "## ",
        "",
        "ünïcödé ✓",
        "### [1] [2026-01-24T14:30:00Z] executor-001 | gotcha | auth",
    ]
)
_LINES = st.lists(st.one_of(_TRICKY, st.text(max_size=30)), max_size=12)
ENTRY_UID = "01HQ3W6Y8Z5D0RM2VN7K4XJ1AB"  # the uid of the scratchpad entry a learning came from


def _learning(**fields: object) -> Learning:
    base: dict[str, object] = {
        "category": "gotchas",
        "title": "Auth: middleware order",
        "content": "Gotcha: auth runs after body parsing.",
        "origin": ENTRY_UID,
        "phase_id": "01-foundation",
        "entry_id": 3,
        "agent_id": "executor-001",
        "timestamp": "2026-01-24T14:30:00Z",
        "entry_category": "gotcha",
        "topic": "auth",
        "tags": ["auth", "middleware"],
        "evidence": ["File: src/a.ts", "Line: 23-45"],
    }
    base.update(fields)
    base.setdefault("id", learnings.learning_id(str(base["origin"]), str(base["timestamp"])))
    return Learning(**base)  # type: ignore[arg-type]


@given(_LINES)
@settings(max_examples=200, deadline=None)
def test_any_text_renders_back_byte_for_byte(lines: list[str]) -> None:
    text = "\n".join(lines)
    assert LearningsFile.parse(text).render() == text


@given(
    content=_LINES.map("\n".join),
    title=st.text(min_size=1, max_size=40).filter(lambda t: t.split() != [] and not t.strip().startswith("#")),
    tags=st.lists(st.text(alphabet="abcxyz_-", min_size=1, max_size=8), max_size=3),
    evidence=st.lists(st.text(min_size=1, max_size=20).filter(lambda t: t.split() != []), max_size=3),
)
@settings(max_examples=200, deadline=None)
def test_a_learning_round_trips(content: str, title: str, tags: list[str], evidence: list[str]) -> None:
    original = _learning(
        content=content.strip(),
        title=" ".join(title.split()),
        tags=tags,
        evidence=[" ".join(e.split()) for e in evidence],
    )
    doc = LearningsFile.parse(learnings.template())
    doc.append(original)
    doc.append(_learning(category="gotchas", title="Second", content="after", origin="o2"))
    parsed = LearningsFile.parse(doc.render()).learnings("gotchas")
    assert parsed[0] == original
    assert parsed[1].title == "Second" and parsed[1].content == "after"


def test_hand_written_text_is_kept_and_learnings_go_to_their_section(repo: Repo) -> None:
    layout = Layout.find(repo.path)
    hand = (
        "# LEARNINGS\n\nMy own intro, kept.\n\n## User Preferences\n\n### Tabs, not spaces\n\nThe user said so.\n"
        "## decisions\nno blank line here\n## gotchas\n\n## notes\n\nfree text\n"
    )
    layout.learnings.write_text(hand, encoding="utf-8")
    added = learnings.add(
        layout, [_learning(), _learning(category="patterns", origin="p", content="a pattern")], "memory-001"
    )
    assert len(added) == 2
    text = layout.learnings.read_text(encoding="utf-8")
    assert text.startswith("# LEARNINGS\n\nMy own intro, kept.\n\n## User Preferences\n\n### Tabs, not spaces\n")
    assert "## notes\n\nfree text\n" in text
    doc = LearningsFile.parse(text)
    assert [s.name for s in doc.sections] == ["user_preferences", "decisions", "gotchas", "notes", "patterns"]
    assert [item.title for item in learnings.read(layout, "user_preferences")] == ["Tabs, not spaces"]
    assert learnings.read(layout, "user_preferences")[0].origin == ""
    assert [item.origin for item in learnings.read(layout, "gotchas")] == [_learning().origin]
    assert [item.content for item in learnings.read(layout, "patterns")] == ["a pattern"]
    # The hand-written learning got its id line on this first write; removing it and the added
    # chunks gives back the hand-written text (plus at most blank lines).
    hand_id = learnings.read(layout, "user_preferences")[0].id
    assert f"The user said so.\n\n- **Id:** {hand_id}\n" in text
    stripped = text.replace(f"\n- **Id:** {hand_id}\n", "\n")
    for item in added:
        stripped = stripped.replace(learnings.format_learning(item), "")
    assert stripped.replace("\n", "") == hand.replace("\n", "") + "## patterns"


def test_an_origin_is_never_added_twice(repo: Repo) -> None:
    layout = Layout.find(repo.path)
    assert len(learnings.add(layout, [_learning()], "memory-001")) == 1
    before = layout.learnings.read_bytes()
    # Same origin, other text (the entry was edited or merged since): still not added again.
    assert learnings.add(layout, [_learning(content="edited text")], "memory-002") == []
    assert layout.learnings.read_bytes() == before


def test_identical_text_in_the_same_section_is_not_duplicated(repo: Repo) -> None:
    layout = Layout.find(repo.path)
    learnings.add(layout, [_learning()], "memory-001")
    twin = _learning(
        origin="02-core@x/executor-002/gotcha/auth",
        content="[Carried from 01-foundation]\n\nGOTCHA:  auth runs after\nbody parsing.",
    )
    assert learnings.add(layout, [twin], "memory-001") == []
    # The same text in another section is another learning.
    assert len(learnings.add(layout, [_learning(category="patterns", origin="p")], "memory-001")) == 1
    # And duplicates within one batch collapse too.
    batch = [_learning(origin="b1", content="new one"), _learning(origin="b2", content="New  one")]
    assert [item.origin for item in learnings.add(layout, batch, "memory-001")] == ["b1"]


def test_add_records_who_promoted_and_redacts_secrets(repo: Repo) -> None:
    layout = Layout.find(repo.path)
    secret = "ghp_" + "a" * 36
    [added] = learnings.add(layout, [_learning(content=f"use token: {secret} to call")], "memory-007")
    assert added.promoted_by == "memory-007" and added.promoted_at
    text = layout.learnings.read_text(encoding="utf-8")
    assert secret not in text and "[REDACTED]" in text
    assert learnings.read(layout)[0].promoted_by == "memory-007"


def test_a_missing_file_starts_from_the_template(repo: Repo) -> None:
    layout = Layout.find(repo.path)
    layout.learnings.unlink()
    assert learnings.read(layout) == []
    learnings.add(layout, [_learning()], "memory-001")
    text = layout.learnings.read_text(encoding="utf-8")
    assert text.startswith(learnings.template().split("## gotchas")[0] + "## gotchas\n\n### Auth: middleware order\n")
    assert len(learnings.read(layout, "gotchas")) == 1


@pytest.mark.parametrize("agent", ["executor-001", "mc", "scout-001", "planner-001", "recognizer-001"])
def test_only_memory_agents_and_system_write(repo: Repo, agent: str) -> None:
    layout = Layout.find(repo.path)
    before = repo.snapshot()
    with pytest.raises(PermissionDenied):
        learnings.add(layout, [_learning()], agent)
    assert repo.snapshot() == before
    assert learnings.add(layout, [_learning()], "system")


def test_unknown_category_is_bad_input(repo: Repo) -> None:
    layout = Layout.find(repo.path)
    before = repo.snapshot()
    with pytest.raises(BadInput, match="unknown learnings category 'tips'"):
        learnings.read(layout, "tips")
    with pytest.raises(BadInput, match="unknown learnings category"):
        learnings.add(layout, [_learning(category="tips")], "memory-001")
    assert repo.snapshot() == before


def test_normalise_ignores_case_spacing_and_carry_prefixes() -> None:
    assert learnings.normalise("[Context from 01-a]\n\n[Carried from 02-b] Foo\n  BAR") == "foo bar"
    assert learnings.section_name(" User-Preferences ") == "user_preferences"
