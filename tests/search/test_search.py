"""`gridgit search`: one ranked search over everything the Blackboard held, its machine-local index, bad input."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from gridgit import Blackboard
from gridgit.errors import BadInput, NotFound
from gridgit.search import query
from tests.conftest import Repo
from tests.memory.mission import P1, P3, copy


def hits(repo: Repo, *args: str) -> list[dict[str, object]]:
    found: list[dict[str, object]] = repo.gridgit_json("search", *args)["hits"]
    return found


def test_finds_an_entry_archived_two_phases_ago_by_a_word_and_by_the_file_it_cites(mission: Repo) -> None:
    assert Blackboard(mission.path).state()["position"]["phase_id"] == P3  # two phases on from 01
    by_word = hits(mission, "zeppelin")
    archived = [h for h in by_word if h["kind"] == "archived"]
    assert [(h["phase"], h["number"], h["category"], h["where"]) for h in archived] == [
        (P1, 1, "gotcha", f"{P1}#1 (archive)")
    ]
    assert archived[0]["files"] == ["src/legacy.py"] and "[zeppelin]" in str(archived[0]["snippet"])
    assert {h["kind"] for h in by_word} == {
        "archived",
        "learning",
    }  # promoted too; memory/ lines say it again: left out
    by_file = hits(mission, "--file", "src/legacy.py")
    assert [(h["kind"], h["id"]) for h in by_file if h["kind"] == "archived"] == [("archived", archived[0]["id"])]
    assert hits(mission, "--file", "./src/") == hits(mission, "--file", "src/")
    assert {h["id"] for h in hits(mission, "--file", "src/")} >= {archived[0]["id"]}
    text = mission.gridgit("search", "zeppelin").stdout
    assert f"{P1}#1 (archive)  gotcha | legacy  executor-001" in text and "files: src/legacy.py" in text


def test_phrases_prefixes_or_and_not(mission: Repo) -> None:
    def where(*args: str) -> set[str]:
        return {str(h["where"]) for h in hits(mission, *args) if h["kind"] in ("archived", "entry")}

    assert where('"signed cookies"') == {f"{P1}#2 (archive)"}
    assert where('"cookies signed"') == set()
    assert where("cook*") == {f"{P1}#2 (archive)"}
    assert where("zeppelin", "OR", "tabs") == {f"{P1}#1 (archive)", f"{P3}#2"}
    assert {h.where() for h in Blackboard(mission.path).search("found -tabs", kinds=["archived"]).hits} == {
        f"{P1}#3 (archive)"
    }
    assert where("found", "NOT", "pool") == {f"{P3}#2"}
    assert where("src/auth.py") == {f"{P1}#2 (archive)"}  # a path is a phrase of its words
    assert where("ZEPPÉLIN") == {f"{P1}#1 (archive)"}  # case and accents folded


def test_filters(mission: Repo) -> None:
    def kinds_and_ids(*args: str) -> list[tuple[object, object]]:
        return [(h["kind"], h["where"]) for h in hits(mission, *args)]

    assert kinds_and_ids("--category", "blocker", "--kind", "archived") == [
        ("archived", "02-core#1 (archive)"), ("archived", f"{P1}#5 (archive)"),
    ]  # fmt: skip
    assert {h["agent"] for h in hits(mission, "found", "--agent", "executor-002")} == {"executor-002"}
    assert {h["phase"] for h in hits(mission, "--phase", P3)} == {P3}
    assert hits(mission, "found", "--since", "2999-01-01") == []
    assert len(hits(mission, "found", "--since", "30d")) == 2
    assert len(hits(mission, "--category", "discovery", "--limit", "1")) == 1
    newest_first = hits(mission, "--kind", "archived", "--kind", "entry", "--limit", "50")
    assert [h["timestamp"] for h in newest_first] == sorted((h["timestamp"] for h in newest_first), reverse=True)


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        ((), 1, "nothing to search for"),
        (("-x",), 2, "No such option"),
        (("x", "--phase", "09-nope"), 7, "no phase 09-nope"),
        (("x", "--phase", "Bad"), 1, "invalid phase id"),
        (("x", "--category", "nope"), 1, "unknown category"),
        (("x", "--agent", "a b"), 1, "invalid agent id"),
        (("x", "--since", "yesterday"), 1, "--since 'yesterday'"),
        (("x", "--limit", "0"), 2, "0 is not in the range 1<=x<=1000"),
        (("x", "--file", "/etc/passwd"), 1, "outside the repository"),
        (("NOT", "x"), 1, "only leaves words out"),
    ],
)
def test_bad_filters_are_one_line_errors(mission: Repo, args: tuple[str, ...], code: int, message: str) -> None:
    result = mission.gridgit("search", *args, check=False)
    assert result.returncode == code and message in result.stderr, result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(
    "text",
    ['"unterminated', "a AND", "NOT", "((", "File: x", "a-b", "'", "***", '"', 'zeppelin"*', "OR OR", "x NEAR(y)",
     "col:umn", "^start", "a\tb", "\u202e\u0000"],
)  # fmt: skip
def test_no_query_is_an_fts_syntax_error(mission: Repo, text: str) -> None:
    try:
        assert isinstance(Blackboard(mission.path).search(text).hits, list)
    except BadInput as exc:  # a query with no word to find says so
        assert "nothing to search for" in str(exc) or "only leaves words out" in str(exc)
    match = query.match_expression(text)
    assert match is None or match.count('"') % 2 == 0


def test_queries_with_nul_control_characters_and_10_mb(mission: Repo) -> None:
    board = Blackboard(mission.path)
    assert [h.kind for h in board.search("zeppelin\x00importer").hits if h.kind == "archived"] == ["archived"]
    assert board.search("\x1b[31mzeppelin").hits
    with pytest.raises(BadInput, match="the query is 10485760 bytes; the limit is 4096"):
        board.search("x" * 10 * 1024 * 1024)
    with pytest.raises(NotFound):
        board.search("x", phase="09-nope")


def test_the_index_follows_the_files_and_writes_pay_nothing(mission: Repo, tmp_path: Path) -> None:
    repo = copy(mission, tmp_path)
    board = Blackboard(repo.path)
    first = board.search("zeppelin")
    assert first.refreshed == len(list(repo.grid.glob("phases/*/scratchpad*.md"))) + 1 + 7  # + LEARNINGS, memory/
    assert board.search("zeppelin").refreshed == 0
    database = repo.grid / ".cache/search.sqlite3"
    stamp = database.stat().st_mtime_ns
    repo.gridgit(
        "write", "-c", "gotcha", "-t", "dirigible", "--content", "Gotcha: the dirigible floats", agent="executor-001"
    )
    assert database.stat().st_mtime_ns == stamp  # the write did not touch the index
    found = board.search("dirigible")
    assert found.refreshed == 1 and [h.where() for h in found.hits] == [f"{P3}#3"]
    (repo.grid / "phases" / P3 / "scratchpad.md").unlink()  # a file gone: its documents go too
    assert board.search("dirigible").hits == []


@pytest.mark.parametrize("damage", ["delete", "garbage", "truncate", "schema"])
def test_a_missing_or_corrupt_index_is_built_again(mission: Repo, tmp_path: Path, damage: str) -> None:
    repo = copy(mission, tmp_path)
    expected = hits(repo, "zeppelin")
    database = repo.grid / ".cache/search.sqlite3"
    if damage == "delete":
        database.unlink()
    elif damage == "garbage":
        database.write_bytes(b"this is no database\n" * 500)
    elif damage == "truncate":
        with database.open("r+b") as handle:
            handle.truncate(database.stat().st_size // 3)
    else:
        with sqlite3.connect(database) as conn:
            conn.execute("PRAGMA user_version=99")
    for name in ("search.sqlite3-wal", "search.sqlite3-shm"):
        (repo.grid / ".cache" / name).unlink(missing_ok=True)
    result = repo.gridgit("search", "zeppelin", "--json", check=False)
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr
    assert json.loads(result.stdout)["data"]["hits"] == expected


def test_the_index_is_machine_local_and_never_snapshotted(mission: Repo, tmp_path: Path) -> None:
    repo = copy(mission, tmp_path)
    gitignore = repo.grid / ".gitignore"
    assert ".cache/\n" in gitignore.read_text()
    gitignore.write_text(gitignore.read_text().replace(".cache/\n", ""))  # written by an older gridgit
    hits(repo, "zeppelin")
    assert (repo.grid / ".cache/.gitignore").read_text() == "*\n"
    repo.gridgit("snapshot", "-m", "with an index on disk")
    tracked = repo.git("ls-tree", "-r", "--name-only", "grid").split()
    assert "memory/INDEX.md" in tracked and not [p for p in tracked if p.startswith(".cache")]
    assert repo.gridgit("validate").returncode == 0


def test_a_broken_source_file_is_named_and_the_rest_still_found(mission: Repo, tmp_path: Path) -> None:
    repo = copy(mission, tmp_path)
    pad = repo.grid / "phases" / P3 / "scratchpad.md"
    pad.write_text(pad.read_text().replace("### [1]", "### [x]"), encoding="utf-8")
    result = repo.gridgit("search", "zeppelin")
    assert f"not searched: .grid/phases/{P3}/scratchpad.md line" in result.stdout
    assert f"{P1}#1 (archive)" in result.stdout


def test_two_writers_and_searches_at_once(mission: Repo, tmp_path: Path) -> None:
    repo = copy(mission, tmp_path)
    writes = [["write", "-c", "discovery", "-t", f"race{n}", "--content", f"Found: marker{n}"] for n in range(12)]
    searches = [["search", "marker*", "--json", "--limit", "50"] for _ in range(4)]
    writers = [subprocess.Popen([sys.executable, "-m", "gridgit", *args, "--agent", f"executor-00{n % 2 + 1}"],
                                cwd=repo.path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
               for n, args in enumerate(writes)]  # fmt: skip
    found = repo.gridgit_at_once(searches)
    for proc in writers:
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
    for result in found:
        assert result.returncode == 0, result.stderr
        assert all(h["topic"].startswith("race") for h in json.loads(result.stdout)["data"]["hits"])
    final = hits(repo, "marker*", "--limit", "50")
    assert sorted(str(h["topic"]) for h in final) == sorted(f"race{n}" for n in range(12))


def test_the_python_api(mission: Repo) -> None:
    result = Blackboard(mission.path).search("zeppelin", kinds=["archived"])
    (hit,) = result.hits
    assert (hit.where(), hit.path, result.match) == (
        f"{P1}#1 (archive)", f".grid/phases/{P1}/scratchpad_archived.md", '"zeppelin"',
    )  # fmt: skip
    assert hit.to_dict()["where"] == hit.where() and result.to_dict()["hits"][0]["id"] == hit.id


def test_block_plans_and_summaries_are_searched_where_a_phase_has_them(mission: Repo, tmp_path: Path) -> None:
    repo = copy(mission, tmp_path)
    folder = repo.grid / "phases" / P3
    (folder / "01-PLAN.md").write_text("# Block 01: the gazebo\n\nBuild the gazebo.\n\n- File: src/gazebo.py\n")
    (folder / "01-SUMMARY.md").write_text("---\nblock: 01\n---\n# Done\n\nThe gazebo stands.\n")
    (folder / "notes.md").write_text("gazebo notes: not a plan by the naming rule\n")
    found = {(h["kind"], h["title"], h["where"]) for h in hits(repo, "gazebo")}
    assert found == {
        ("plan", "Block 01: the gazebo", f"phases/{P3}/01-PLAN.md"), ("summary", "Done", f"phases/{P3}/01-SUMMARY.md"),
    }  # fmt: skip
    assert [h["kind"] for h in hits(repo, "--file", "src/gazebo.py")] == ["plan"]


def test_messages_between_agents_are_searched_too(repo: Repo) -> None:
    """issue 38: messages were not searchable (0 hits)."""
    repo.gridgit("send", "--to", "executor-002", "--content", "the flaky fixture binds port 8765", agent="executor-001")
    data = repo.gridgit_json("search", "flaky")
    (hit,) = data["hits"]
    assert hit["kind"] == "message" and hit["path"].startswith(".grid/messages/executor-002/")
    assert (
        repo.gridgit_json("search", "flaky", "--agent", "executor-001")["hits"]
        and not repo.gridgit_json("search", "flaky", "--agent", "executor-002")["hits"]
    )
    assert repo.gridgit_json("search", "flaky", "--kind", "entry")["hits"] == []
