"""Stale evidence: cited lines changed, files renamed or deleted after the cited commit, in real repositories."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from gridgit import Blackboard
from gridgit.git.staleness import EvidenceReport
from tests.conftest import Repo

NO_HOOKS = {"GRIDGIT_SKIP": "1"}


def lines(name: str, count: int = 50) -> str:
    return "".join(f"{name} line {n}\n" for n in range(1, count + 1))


def commit(repo: Repo, message: str) -> str:
    repo.git("add", "-A")  # .grid/ is ignored: the code branch never holds it
    repo.git("commit", "-q", "-m", message, env=NO_HOOKS)
    return repo.git("rev-parse", "HEAD").strip()


def change_line(repo: Repo, rel: str, number: int, text: str) -> None:
    path = repo.path / rel
    content = path.read_text(encoding="utf-8").split("\n")
    content[number - 1] = text
    path.write_text("\n".join(content), encoding="utf-8")


@pytest.fixture
def cited(repo: Repo) -> tuple[Repo, str]:
    """REPO with src/a.py (50 lines) committed and a gotcha citing its lines 10-12 at that commit."""
    repo.write("src/a.py", lines("a"))
    repo.write("src/b.py", lines("b"))
    cited_commit = commit(repo, "a and b")
    content = f"Gotcha: the retry loop.\n\nEvidence:\n- File: src/a.py\n- Line: 10-12\n- Commit: {cited_commit[:7]}"
    Blackboard(repo.path).write("gotcha", "retry", content, agent="executor-001")
    return repo, cited_commit


def check(repo: Repo, **options: Any) -> EvidenceReport:
    report: EvidenceReport = Blackboard(repo.path).check_evidence(**options)
    return report


def test_a_later_change_of_a_cited_line_makes_it_stale(cited: tuple[Repo, str]) -> None:
    repo, _ = cited
    change_line(repo, "src/a.py", 11, "a line eleven, rewritten")
    changed_by = commit(repo, "rewrite line 11")
    (finding,) = check(repo).stale
    assert finding.source.key == "01-foundation#1" and finding.source.agent == "executor-001"
    assert finding.reasons == ["changed"] and finding.hunks == ["@@ -11 +11 @@"]  # no def above it
    assert [(c.commit, c.author, c.summary) for c in finding.changes] == [(changed_by, "Grid Test", "rewrite line 11")]
    assert finding.now_path == "src/a.py" and finding.now_lines == [(10, 12)]


def test_a_change_elsewhere_in_the_file_is_not_stale(cited: tuple[Repo, str]) -> None:
    repo, _ = cited
    change_line(repo, "src/a.py", 40, "a line forty, rewritten")
    path = repo.path / "src/a.py"
    path.write_text("# header\n# more\n" + path.read_text(encoding="utf-8"), encoding="utf-8")
    commit(repo, "line 40 and a header")
    report = check(repo)
    assert report.stale == [] and len(report.findings) == 1
    assert report.findings[0].status == "fresh" and report.findings[0].now_lines == [(12, 14)]  # moved down by two


def test_a_rename_is_followed(cited: tuple[Repo, str]) -> None:
    repo, _ = cited
    repo.git("mv", "src/a.py", "src/retry.py")
    renamed_by = commit(repo, "rename")
    (finding,) = check(repo).stale
    assert finding.reasons == ["renamed"] and finding.now_path == "src/retry.py"
    assert finding.changes[0].commit == renamed_by
    change_line(repo, "src/retry.py", 12, "a line twelve, rewritten")
    commit(repo, "edit after the rename")
    (finding,) = check(repo).stale
    assert finding.reasons == ["renamed", "changed"] and finding.now_lines == [(10, 12)]
    assert "now src/retry.py:10-12" in finding.describe()


def test_a_deleted_file_is_stale(cited: tuple[Repo, str]) -> None:
    repo, _ = cited
    (repo.path / "src/a.py").unlink()
    deleted_by = commit(repo, "drop a")
    (finding,) = check(repo).stale
    assert finding.reasons == ["deleted"] and finding.now_path is None
    assert finding.changes[0].commit == deleted_by


def test_what_cannot_be_judged_is_unverified_never_stale(cited: tuple[Repo, str]) -> None:
    repo, cited_commit = cited
    repo.git("switch", "-q", "-c", "elsewhere")
    change_line(repo, "src/b.py", 3, "b line three, elsewhere")
    other = commit(repo, "on another branch")
    repo.git("switch", "-q", "main")
    board = Blackboard(repo.path)
    board.write("gotcha", "other", f"- File: src/b.py\n- Line: 3\n- Commit: {other[:8]}", agent="executor-002")
    board.write("gotcha", "ghost", "- File: src/b.py\n- Line: 3\n- Commit: 0123abcd", agent="executor-002")
    board.write("gotcha", "typo", f"- File: src/nope.py\n- Line: 3\n- Commit: {cited_commit}", agent="executor-002")
    board.write("gotcha", "whole", f"- File: src/b.py\n- Commit: {cited_commit}", agent="executor-002")
    change_line(repo, "src/b.py", 3, "b line three, changed on main")
    commit(repo, "b on main")
    report = check(repo)
    assert report.stale == []
    reasons = {f.source.title: f.reasons for f in report.unverified}
    assert reasons == {
        "gotcha | other": [f"{other[:8]} is not in the history of HEAD"],
        "gotcha | ghost": ["no commit 0123abcd in this repository"],
        "gotcha | typo": [f"src/nope.py is not in {cited_commit}"],
    }
    # a citation without lines is about the file: a change inside it is not staleness
    assert next(f for f in report.findings if f.source.title == "gotcha | whole").status == "fresh"


def test_learnings_cite_too(cited: tuple[Repo, str]) -> None:
    from gridgit.model import learnings

    repo, cited_commit = cited
    board = Blackboard(repo.path)
    learning = learnings.Learning(
        "gotchas", "Retry: backoff", "Back off.", evidence=["File: src/b.py", "Line: 5-6", f"Commit: {cited_commit}"]
    )
    learnings.add(board.layout, [learning], "memory-001")
    change_line(repo, "src/b.py", 6, "b line six, rewritten")
    commit(repo, "b")
    (finding,) = check(repo, learnings=True).stale
    assert finding.source.key == "learning:Retry: backoff" and finding.source.kind == "learning"
    assert check(repo, phase="01-foundation").stale == []  # the phase alone: its entry is fresh
    assert [f.source.kind for f in check(repo).stale] == ["learning"]  # the default: current phase and learnings


def test_cli_status_context_and_validate(cited: tuple[Repo, str]) -> None:
    repo, cited_commit = cited
    change_line(repo, "src/a.py", 10, "a line ten, rewritten")
    commit(repo, "rewrite line 10")
    data = repo.gridgit_json("evidence", "check")
    (row,) = data["stale"]
    assert (row["source"]["key"], row["file"], row["lines"], row["reasons"]) == (
        "01-foundation#1", "src/a.py", [[10, 12]], ["changed"],
    )  # fmt: skip
    assert row["changes"][0]["summary"] == "rewrite line 10" and row["commit"] == cited_commit[:7]
    human = repo.gridgit("evidence", "check").stdout
    assert "stale  01-foundation#1  gotcha | retry (executor-001)" in human
    assert ": changed by " in human and 'Grid Test "rewrite line 10"' in human
    status = repo.gridgit_json("status")
    assert [s["source"] for s in status["stale_evidence"]] == ["01-foundation#1"]
    assert "Stale evidence (1" in repo.gridgit("status").stdout
    pack = repo.gridgit_json("context", agent="executor-002")
    item = next(i for i in pack["items"] if i["key"] == "01-foundation#1")
    assert "(stale evidence: src/a.py:10-12 (" in item["text"]
    assert repo.gridgit("validate").returncode == 0  # knowledge, not syntax


def test_evidence_check_on_a_fresh_blackboard(repo: Repo) -> None:
    assert repo.gridgit("evidence", "check").stdout.strip() == "no evidence with a commit to check"
    proc = repo.gridgit("evidence", "check", "--phase", "bad", "--json", check=False)
    assert proc.returncode == 1 and json.loads(proc.stdout)["error"]["code"] == "bad_input"


def test_naming_what_changed_walks_back_a_bounded_way(cited: tuple[Repo, str], monkeypatch: pytest.MonkeyPatch) -> None:
    from gridgit.git import staleness

    repo, _ = cited
    change_line(repo, "src/a.py", 11, "a line eleven, rewritten")
    changed_by = commit(repo, "the change")
    change_line(repo, "src/a.py", 30, "a line thirty, rewritten")
    commit(repo, "a later edit elsewhere in the file")
    (finding,) = check(repo).stale
    assert [c.commit for c in finding.changes] == [changed_by]  # not the newest commit of the file
    monkeypatch.setattr(staleness, "WINDOW", 1)  # the last commit only
    (finding,) = check(repo).stale
    assert finding.reasons == ["changed"] and finding.changes == []  # stale all the same; who is unknown


def test_no_git_runs_when_nothing_cites_a_commit(tmp_path: Path) -> None:
    from gridgit.git.evidence import Source
    from gridgit.git.staleness import check as check_citations
    from gridgit.scratchpad.citations import Citation

    source = Source("01-foundation#1", "entry", "gotcha | x")
    report = check_citations(tmp_path / "not-a-repository", [(source, Citation("a.py", ((1, 2),)))])
    assert report.findings == [] and report.head is None
