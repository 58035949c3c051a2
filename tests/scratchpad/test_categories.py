"""The spec's required fields per category and its templates: a warning, or a refusal when strict."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gridgit.scratchpad import categories
from gridgit.scratchpad.entry import CATEGORIES
from tests.conftest import Repo


@pytest.mark.parametrize("category", CATEGORIES)
def test_each_template_has_its_required_fields(category: str) -> None:
    assert categories.missing_fields(category, categories.template(category)) == []
    assert categories.missing_fields(category, "nothing here") == [
        name for name, _ in categories.REQUIRED_FIELDS[category]
    ]


@pytest.mark.parametrize(
    ("category", "content", "missing"),
    [
        ("discovery", "Found: x\nImpact: y\n\nEvidence:\n- File: a", []),  # the protocol's `Found` is the Finding
        ("discovery", "Finding: x\n- impact: y", ["Evidence"]),
        ("handoff", "**Completed:**\n- a\n**For Next Agent**: b\nFiles: c", []),
        ("gotcha", "Gotcha: g\nFirst  hit: h", ["Fix"]),
        ("blocker", "> **Blocker:** b\nType: t", ["Action Required"]),
        ("question", "The Question: is not a label\nContext: c\nUrgency: u", ["Question"]),
    ],
)
def test_missing_fields(category: str, content: str, missing: list[str]) -> None:
    assert categories.missing_fields(category, content) == missing


def test_write_warns_about_missing_fields_and_strict_refuses(repo: Repo) -> None:
    ok = repo.gridgit(
        "write",
        "-c",
        "decision",
        "-t",
        "db",
        "--content",
        "Decision: a\nRationale: b\nAffects: c",
        agent="executor-001",
    )
    assert ok.stderr == ""
    loose = repo.gridgit("write", "-c", "decision", "-t", "api", "--content", "we chose REST", agent="executor-001")
    assert loose.stderr.strip() == (
        "gridgit: warning: decision entry [2] lacks the spec's Decision, Rationale, Affects "
        "(see `gridgit write --template decision`)"
    )
    config = json.loads((repo.grid / "config.json").read_text())
    (repo.grid / "config.json").write_text(json.dumps({**config, "entries": {"strict": True}}))
    before = repo.snapshot()
    refused = repo.gridgit(
        "write", "-c", "decision", "-t", "ui", "--content", "we chose React", agent="executor-001", check=False
    )
    assert refused.returncode == 1 and refused.stderr.strip() == (
        "gridgit: error: a decision entry needs Decision, Rationale, Affects (entries.strict is on; "
        "`gridgit write --template decision` shows the spec's template)"
    )
    assert repo.snapshot() == before


def test_write_template_prints_the_spec_template(repo: Repo) -> None:
    out = repo.gridgit("write", "--template", "blocker").stdout
    assert out.startswith("Blocker: {What is blocked}\nType: {missing_credential|external_api|permission|dependency}")
    assert repo.gridgit_json("write", "--template", "handoff")["template"] == categories.template("handoff")
    bad = repo.gridgit("write", "--template", "memo", check=False)
    assert bad.returncode == 1 and "unknown category 'memo'" in bad.stderr
    usage = repo.gridgit("write", "-c", "decision", agent="executor-001", check=False)
    assert usage.returncode == 2 and "missing option(s) --topic, --content" in usage.stderr


@given(
    st.sampled_from(sorted(categories.REQUIRED_FIELDS)),
    st.lists(
        st.sampled_from(["Found", "IMPACT", "files to review", "First  Hit", ":", "**", "- ", "\n", "x", "ı"])
    ).map("".join),
)
def test_fields_found_without_compiling_are_those_the_patterns_find(category: str, content: str) -> None:
    # The word prefilter only spares compiling a pattern; the answer is the patterns' own.
    expected = [
        name
        for name, labels in categories.REQUIRED_FIELDS[category]
        if not categories._label_re(labels).search(content)
    ]
    assert categories.missing_fields(category, content) == expected
