"""Debug sessions: an investigation file, notes, and a root cause that becomes a promotable gotcha."""

from __future__ import annotations

from gridgit.store import frontmatter
from gridgit.work.debug import SESSION_RE
from tests.conftest import Repo

ME = "executor-001"


def test_a_debug_session_from_hypothesis_to_gotcha(repo: Repo) -> None:
    opened = repo.gridgit_json("debug", "start", "Login times out", "--hypothesis", "the pool is too small", agent=ME)
    session = opened["session_id"]
    assert SESSION_RE.match(session) and "-login-times-out-" in session
    repo.gridgit("debug", "note", session, "raised the pool to 20: still slow", agent=ME)
    repo.gridgit("debug", "note", session, "-", "--section", "hypothesis", agent=ME, input="DNS on every request\n")
    listed = repo.gridgit("status").stdout
    assert f"{session}" in listed and "open" in listed and "Login times out" in listed
    closed = repo.gridgit_json("debug", "close", session, "--root-cause", "a DNS lookup per request",
                               "--fix", "cache the resolver", "--evidence", "README.md", agent=ME)  # fmt: skip
    entry = closed["entry"]
    assert (entry["category"], entry["topic"], entry["relevance"]) == ("gotcha", "login-times-out", "HIGH")
    assert "Gotcha: a DNS lookup per request" in entry["content"] and "Fix: cache the resolver" in entry["content"]
    assert "- File: README.md" in entry["content"]
    assert f"- Debug session: .grid/debug/{session}/investigation.md" in entry["content"]
    path = repo.grid / "debug" / session / "investigation.md"
    meta, body = frontmatter.parse(path.read_text(encoding="utf-8"), str(path))
    assert (meta["status"], meta["root_cause"], meta["closed_by"]) == ("closed", "a DNS lookup per request", ME)
    assert meta["gotcha"].startswith(f"01-foundation#{entry['id']} (")
    sections = [line for line in body.splitlines() if line.startswith("## ")]
    assert sections == ["## Hypothesis", "## Tried", "## Result"]
    assert "the pool is too small" in body and "DNS on every request" in body and "still slow" in body
    assert [e["type"] for e in repo.events() if e["type"].startswith("debug_")] == [
        "debug_started", "debug_noted", "debug_noted", "debug_closed",
    ]  # fmt: skip
    # A HIGH gotcha: phase completion promotes it to LEARNINGS.md once three other agents confirmed it.
    preview = repo.gridgit_json("promote", "--dry-run", agent="memory-001")
    assert [w["title"] for w in preview["waiting_for_validations"]] == ["Login times out: a DNS lookup per request"]
    for agent in ("executor-007", "executor-008", "executor-009"):
        repo.gridgit("confirm", str(entry["id"]), agent=agent)
    preview = repo.gridgit_json("promote", "--dry-run", agent="memory-001")
    assert ("Login times out: a DNS lookup per request", "gotchas") in [
        (p["title"], p["category"]) for p in preview["promoted"]
    ]
    assert repo.gridgit("validate").returncode == 0
    repo.gridgit("snapshot")
    log = repo.gridgit("log").stdout
    assert "debug closed" in log and "Login times out: a DNS lookup per request" in log


def test_bad_input_to_debug_sessions(repo: Repo) -> None:
    session = repo.gridgit_json("debug", "start", "Flaky test", agent=ME)["session_id"]
    repo.gridgit("debug", "close", session, "--root-cause", "a shared temp dir", agent=ME)
    before = repo.snapshot()
    cases = [
        (["debug", "start", "   "], 1, "needs a title"),
        (["debug", "note", "../../etc", "x"], 1, "invalid debug session id"),
        (["debug", "note", "20260101-nothing-here-abcd", "x"], 7, "no debug session 20260101-nothing-here-abcd"),
        (["debug", "note", session, "x"], 1, "is closed"),
        (["debug", "close", session, "--root-cause", "again"], 1, "already closed"),
        (["debug", "show", "20260101-nothing-here-abcd"], 7, "no debug session"),
    ]
    for args, code, said in cases:
        result = repo.gridgit(*args, agent=ME, check=False)
        assert (result.returncode, said in result.stderr) == (code, True), (args, result.stderr)
    other = repo.gridgit_json("debug", "start", "Another", agent=ME)["session_id"]
    empty = repo.gridgit("debug", "close", other, "--root-cause", " ", agent=ME, check=False)
    assert empty.returncode == 1 and "--root-cause is empty" in empty.stderr
    scout = repo.gridgit("debug", "close", other, "--root-cause", "x", agent="scout-001", check=False)
    assert scout.returncode == 4
    assert {k: v for k, v in repo.snapshot().items() if session in k} == {
        k: v for k, v in before.items() if session in k
    }
    assert sorted(s["status"] for s in repo.gridgit_json("debug", "list")) == ["closed", "open"]
