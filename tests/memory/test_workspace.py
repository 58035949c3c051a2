"""`.grid/memory/` in a real repository: written when a phase completes, rebuilt, validated, rewritten by memory agents."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gridgit.memory import compress, index
from gridgit.memory.budget import estimate_tokens
from gridgit.scratchpad.archive import Archive
from gridgit.store import frontmatter
from tests.conftest import Repo
from tests.memory.mission import P1, P2, copy


def memory_files(repo: Repo) -> dict[str, bytes]:
    return {k: v for k, v in repo.snapshot().items() if k.startswith("memory/")}


def archived(repo: Repo, phase: str) -> Archive:
    path = repo.grid / "phases" / phase / "scratchpad_archived.md"
    return Archive.parse(path.read_text(encoding="utf-8"), str(path))


def test_a_completed_phase_is_compressed_and_indexed(mission: Repo) -> None:
    assert sorted(memory_files(mission)) == [
        "memory/INDEX.md", "memory/compressed/phase-01.md", "memory/compressed/phase-02.md", "memory/decisions.md",
        "memory/gotchas.md", "memory/patterns.md", "memory/tech-context.md",
    ]  # fmt: skip
    text = (mission.grid / "memory/compressed/phase-01.md").read_text(encoding="utf-8")
    meta, body = frontmatter.parse(text, "phase-01.md")
    entries = archived(mission, P1).entries
    assert (meta["phase_id"], meta["written_by"], meta["left_out"]["heartbeat"]) == (P1, "gridgit", 1)
    assert estimate_tokens(text) <= 500 and meta["source"] == compress.fingerprint(entries)
    linked = {uid for _, _, _, uids in compress.items(body) for uid in uids}
    assert linked == {e.uid for e in entries if e.category != "heartbeat"}
    assert "zeppelin importer rewrites timestamps (executor-001; files: src/legacy.py)" in body
    blocks = index.parse((mission.grid / "memory/INDEX.md").read_text(encoding="utf-8"), "INDEX.md")
    assert sorted(blocks) == ["Learnings", f"Phase {P1}", f"Phase {P2}"]
    (gotcha,) = [row for row in blocks[f"Phase {P1}"] if row.kind == "gotcha"]
    assert gotcha.files == ("src/legacy.py",) and gotcha.where.endswith("scratchpad_archived.md [1]")
    assert blocks[f"Phase {P1}"][0].where == "memory/compressed/phase-01.md"
    assert {row.kind for row in blocks["Learnings"]} == {"learning/gotchas", "learning/decisions", "learning/patterns"}
    assert "## postgres\n\n- discovery phases/01-foundation" in (mission.grid / "memory/tech-context.md").read_text()
    assert mission.gridgit("validate").returncode == 0
    assert [e["payload"]["phase_id"] for e in mission.events("memory_updated")] == [P1, P2]


def test_a_rebuild_from_the_truth_gives_the_same_files(mission: Repo, tmp_path: Path) -> None:
    repo = copy(mission, tmp_path)
    before = memory_files(repo)
    for path in sorted((repo.grid / "memory").rglob("*.md")):
        path.unlink()
    data = repo.gridgit_json("memory", "rebuild", agent="memory-001")
    assert memory_files(repo) == before
    assert sorted(data["written"]) == sorted(before)
    assert repo.gridgit("memory", "rebuild", agent="mc").stdout.startswith("memory/ is up to date")


def test_a_memory_file_broken_by_hand_is_named_by_validate_and_restored_by_rebuild(
    mission: Repo, tmp_path: Path
) -> None:
    repo = copy(mission, tmp_path)
    before = memory_files(repo)
    index_path, gotchas = repo.grid / "memory/INDEX.md", repo.grid / "memory/gotchas.md"
    index_path.write_text(index_path.read_text().replace(" | gotcha | ", " gotcha "), encoding="utf-8")
    gotchas.write_text("---\nkind: gotchas\n---\n\n### A learning with no id\n", encoding="utf-8")
    (repo.grid / "memory/compressed/phase-02.md").write_text("---\nkind: [unclosed\n---\n", encoding="utf-8")
    result = repo.gridgit("validate", check=False)
    assert result.returncode == 1
    for name in ("INDEX.md", "gotchas.md", "compressed/phase-02.md"):
        assert f".grid/memory/{name}:" in result.stdout + result.stderr
    assert "gridgit memory rebuild" in result.stdout + result.stderr
    repo.gridgit("memory", "rebuild", agent="mc")
    assert memory_files(repo) == before
    assert repo.gridgit("validate").returncode == 0


def test_phase_completion_mends_a_broken_index_whole(mission: Repo, tmp_path: Path) -> None:
    repo = copy(mission, tmp_path)
    expected = (repo.grid / "memory/INDEX.md").read_text()
    (repo.grid / "memory/INDEX.md").write_text("not an index", encoding="utf-8")
    repo.gridgit("phase", "complete", "03-polish", agent="mc")
    blocks = index.parse((repo.grid / "memory/INDEX.md").read_text(), "INDEX.md")
    assert sorted(blocks) == ["Learnings", f"Phase {P1}", f"Phase {P2}", "Phase 03-polish"]
    assert (
        expected.split("## Phase 01-foundation")[1].split("## Phase 02")[0]
        in (repo.grid / "memory/INDEX.md").read_text()
    )


def agent_summary(repo: Repo, phase: str = P1) -> str:
    uids = [e.uid for e in archived(repo, phase).entries if e.category in ("gotcha", "decision")]
    return (
        "# Foundation, as the memory agent saw it\n\nThe importer and the cookies are what to remember.\n\n"
        f"- The zeppelin importer rewrites timestamps [{uids[0]}]\n- Cookies are signed [{uids[1]}]\n"
    )


def test_a_memory_agent_rewrites_a_compressed_phase_and_rebuild_keeps_it(mission: Repo, tmp_path: Path) -> None:
    repo = copy(mission, tmp_path)
    result = repo.gridgit("memory", "write", P1, "-", "--json", agent="memory-001", input=agent_summary(repo))
    assert json.loads(result.stdout)["data"]["written"][0] == "memory/compressed/phase-01.md"
    path = repo.grid / "memory/compressed/phase-01.md"
    meta, body = frontmatter.parse(path.read_text(), "x")
    assert (meta["written_by"], meta["kept"], meta["source"]) == (
        "memory-001", 2, compress.fingerprint(archived(repo, P1).entries),
    )  # fmt: skip
    assert body.startswith("\n# Foundation, as the memory agent saw it")
    assert "2 of" in (repo.grid / "memory/INDEX.md").read_text().split("memory/compressed/phase-01.md: ")[1]
    rebuilt = repo.gridgit_json("memory", "rebuild", agent="mc")
    assert rebuilt["kept"] == ["memory/compressed/phase-01.md"] and "written_by: memory-001" in path.read_text()
    repo.gridgit("memory", "compress", P1, agent="mc")  # gridgit's own compression replaces it
    assert "written_by: gridgit" in path.read_text()


@pytest.mark.parametrize(
    ("name", "content", "agent", "code", "message"),
    [
        (P1, "- a line that links to no entry\n", "memory-001", 1, "links to no entry"),
        (P1, " \n\n", "memory-001", 1, "is empty"),
        (P1, "- another phase's entry [{p2}]\n", "memory-001", 1, "is no entry of phase 01-foundation"),
        (P1, "- too long [{p1}]\n" + "words " * 2000, "memory-001", 1, "the budget is 500"),
        (P1, "x" * (10 * 1024 * 1024), "memory-001", 1, "the limit is 65536"),
        (P1, "- fine [{p1}]\n", "executor-001", 4, "only memory agents and Master Control"),
        ("INDEX.md", "- fine [{p1}]\n", "memory-001", 1, "is rebuilt by gridgit"),
        ("gotchas", "- fine [{p1}]\n", "memory-001", 1, "is rebuilt by gridgit"),
        ("notes.md", "- fine\n", "memory-001", 1, "is not a memory file"),
        ("09-nowhere", "- fine\n", "memory-001", 7, "no phase 09-nowhere"),
        ("compressed/phase-07.md", "- fine\n", "memory-001", 7, "no phase folder has number 07"),
        (P1, "---\nphase_id: 02-core\n---\n- x [{p1}]\n", "memory-001", 1, "belongs in memory/compressed/phase-02.md"),
        (P1, "---\nphase_id: [\n---\n- x\n", "memory-001", 1, "phase-01.md"),
    ],
)
def test_memory_write_refuses_bad_input_and_changes_nothing(
    mission: Repo, tmp_path: Path, name: str, content: str, agent: str, code: int, message: str
) -> None:
    repo = copy(mission, tmp_path)
    uids = {"p1": archived(repo, P1).entries[0].uid, "p2": archived(repo, P2).entries[-1].uid}
    before = repo.snapshot()
    result = repo.gridgit("memory", "write", name, "-", agent=agent, check=False, input=content.format(**uids))
    assert result.returncode == code, result.stderr
    assert result.stderr.startswith("gridgit: error: ") and message in result.stderr
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert repo.snapshot() == before


def test_show_and_compress_name_what_exists(mission: Repo, tmp_path: Path) -> None:
    assert mission.gridgit("memory", "show").stdout.startswith("---\nkind: index\n")
    assert "# Gotchas" in mission.gridgit("memory", "show", "gotchas").stdout
    for name in (P1, "phase-01", "compressed/phase-01.md", "memory/compressed/phase-01.md"):
        assert mission.gridgit_json("memory", "show", name)["path"] == ".grid/memory/compressed/phase-01.md"
    for args, code, message in (
        (("memory", "show", "nonsense"), 1, "is not a memory file"),
        (("memory", "show", "09-nope"), 7, "no phase 09-nope"),
        (("memory", "show", "03-polish"), 7, "no .grid/memory/compressed/phase-03.md yet"),
        (("memory", "compress", "09-nope", "--agent", "mc"), 7, "no phase 09-nope"),
        (("memory", "compress", "Bad", "--agent", "mc"), 1, "invalid phase id"),
        (("memory", "compress", P1, "--budget", "99", "--agent", "mc"), 2, "99 is not in the range x>=100"),
        (("memory", "rebuild", "--agent", "scout-001"), 4, "only memory agents and Master Control"),
        (("memory", "rebuild"), 1, "no agent id"),
    ):
        result = mission.gridgit(*args, check=False)
        assert (result.returncode, message in result.stderr) == (code, True), result.stderr
    error = json.loads(mission.gridgit("memory", "show", "09-nope", "--json", check=False).stdout)
    assert error["error"]["code"] == "not_found"
    repo = copy(mission, tmp_path)
    (repo.grid / "config.json").write_text(json.dumps({"memory": {"compressed_tokens": 150}}), encoding="utf-8")
    repo.gridgit("memory", "compress", P1, agent="mc")
    text = (repo.grid / "memory/compressed/phase-01.md").read_text()
    assert estimate_tokens(text) <= 150 and "budget: 150" in text
    repo.gridgit("memory", "compress", P1, "--budget", "1000", agent="mc")
    assert "budget: 1000" in (repo.grid / "memory/compressed/phase-01.md").read_text()
    (repo.grid / "config.json").write_text(json.dumps({"memory": {"compressed_tokens": 10}}), encoding="utf-8")
    assert (
        "memory.compressed_tokens must be 100 or more"
        in repo.gridgit("memory", "rebuild", agent="mc", check=False).stderr
    )


def test_a_blackboard_without_memory_says_how_to_make_it(repo: Repo) -> None:
    result = repo.gridgit("memory", "show", check=False)
    assert result.returncode == 7 and "gridgit memory rebuild" in result.stderr
    repo.gridgit("memory", "rebuild", agent="mc")
    assert "None yet." in repo.gridgit("memory", "show").stdout
    assert not (repo.grid / "memory/compressed").exists()  # no phase completed: nothing to compress


def test_completing_twice_writes_nothing_new_and_names_follow_the_phase_numbers(mission: Repo, tmp_path: Path) -> None:
    from gridgit.memory import files, workspace
    from gridgit.store.layout import Layout

    repo = copy(mission, tmp_path)
    assert workspace.phase_completed(Layout.find(repo.path), P1, "mc").written == []
    assert files.compressed_name("01-foundation", ["01-foundation", "01-hotfix"]) == "compressed/phase-01.md"
    assert files.compressed_name("01-hotfix", ["01-foundation", "01-hotfix"]) == "compressed/phase-01-hotfix.md"
    assert files.resolve("memory/gotchas") == "gotchas.md" and files.resolve("index") == "INDEX.md"
