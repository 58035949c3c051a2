"""The protocol's loose ends (issue 28, item 5): a commit counts as its agent's heartbeat (a sign of work, issue 36), Block
defaults to the agent's registered block, STATE list items are stamped, a changed
`scratchpad.max_entries` reaches existing scratchpads, scouts' staleness reads alike everywhere,
and `init`'s first phase starts with a `phase_started`."""

from __future__ import annotations

import json

from gridgit.coordination import activity, heartbeat
from gridgit.scratchpad import store
from gridgit.store.layout import Layout
from tests.conftest import Repo, git
from tests.git.test_hookrun import commit, committed

PHASE = "01-foundation"


def _beats(repo: Repo) -> list[tuple[str, dict[str, object]]]:
    entries = store.load(Layout.find(repo.path), PHASE).entries
    return [(e.agent_id, heartbeat.read_content(e.content)) for e in entries if e.category == "heartbeat"]


def _last_sign(repo: Repo, agent: str) -> str | None:
    """What AGENT's latest sign of work was (gridgit.coordination.activity), or None."""
    found = activity.read(Layout.find(repo.path), agent)
    return None if found is None else str(found["what"])


def test_a_commit_by_an_agent_counts_as_its_heartbeat(repo: Repo) -> None:
    committed(repo)  # the .gitignore line init added; nobody to name for it
    repo.gridgit("agent", "register", "executor-001", "--block", "01-02", agent="executor-001")
    repo.gridgit("heartbeat", "--progress", "40", "--action", "auth", "--thread", "thread 2", agent="executor-001")
    repo.write("src/auth.py", "x = 1\n")
    repo.git("add", "src/auth.py")
    assert commit(repo, "auth", agent="executor-001").returncode == 0
    short = repo.git("rev-parse", "--short", "HEAD").strip()
    assert _last_sign(repo, "executor-001") == f"commit {short}"
    assert len(_beats(repo)) == 1  # the explicit heartbeat only: a commit writes no entry (issue 36)
    [me] = repo.gridgit_json("agent", "list")["active"]
    assert me["warning_level"] == "ok"

    # `git config grid.agent` names the committer too; Master Control's commits are no one's sign.
    repo.git("config", "grid.agent", "executor-002")
    repo.write("src/db.py", "y = 1\n")
    repo.git("add", "src/db.py")
    assert commit(repo, "db").returncode == 0
    assert _last_sign(repo, "executor-002") == f"commit {repo.git('rev-parse', '--short', 'HEAD').strip()}"
    repo.write("src/ui.py", "z = 1\n")
    repo.git("add", "src/ui.py")
    assert commit(repo, "ui", agent="mc").returncode == 0
    assert len(_beats(repo)) == 1


def test_a_commit_in_an_agents_worktree_is_its_heartbeat(repo: Repo) -> None:
    committed(repo)
    tree = repo.path.parent / "wt-agent"
    repo.git("worktree", "add", "-q", str(tree), "-b", "agent/a")
    # An agent tool's session registers itself from its worktree (as the session-start hook does).
    repo.gridgit("agent", "register", "executor-007", cwd=tree, agent="executor-007")
    (tree / "a.py").write_text("a = 1\n", encoding="utf-8")
    git(tree, "add", "a.py")
    proc = commit(Repo(tree), "a")  # no GRID_AGENT_ID, no grid.agent
    assert proc.returncode == 0, proc.stderr
    assert _last_sign(repo, "executor-007") == f"commit {git(tree, 'rev-parse', '--short', 'HEAD').strip()}"


def test_block_defaults_to_the_agents_registered_block(repo: Repo) -> None:
    repo.gridgit("block", "plan", "01-01", agent="mc")  # STATE's position: block 01-01
    repo.gridgit("block", "plan", "01-02", agent="mc")  # registering names a block that exists
    repo.gridgit("agent", "register", "executor-001", "--block", "01-02", agent="executor-001")
    assert repo.gridgit_json("write", "-c", "gotcha", "-t", "a", "--content", "x", agent="executor-001")[
        "block_id"
    ] == ("01-02")
    with_phase = repo.gridgit_json("write", "-c", "gotcha", "-t", "b", "--content", "x", "--phase", PHASE,
                                   agent="executor-001")  # fmt: skip
    assert with_phase["block_id"] == "01-02"
    beat = repo.gridgit_json("heartbeat", "--progress", "5", "--action", "x", agent="executor-001")
    assert beat["block_id"] == "01-02"
    given = repo.gridgit_json("write", "-c", "gotcha", "-t", "c", "--content", "x", "--block", "01-09",
                              agent="executor-001")  # fmt: skip
    assert given["block_id"] == "01-09"
    # An agent that did not register gets STATE's position.
    assert repo.gridgit_json("write", "-c", "gotcha", "-t", "d", "--content", "x", agent="executor-002")[
        "block_id"
    ] == ("01-01")


def test_state_warnings_and_blockers_are_stamped(repo: Repo) -> None:
    repo.gridgit("state", "update", "--add", "warnings={message: slow CI}", agent="mc")
    repo.gridgit("state", "update", "--add", "blockers={description: no key}", agent="mc")
    given = "2026-01-24T14:30:00Z"
    repo.gridgit("state", "update", "--add", f"warnings={{message: old, timestamp: '{given}'}}", agent="mc")
    st = repo.gridgit_json("state", "show")
    first, kept = st["warnings"]
    assert first["timestamp"] and kept["timestamp"] == given
    assert st["blockers"][0]["added_at"]
    # A later update leaves the stamps as they were.
    repo.gridgit("state", "update", "--update", f"warnings={{id: {first['id']}, message: slower CI}}", agent="mc")
    assert repo.gridgit_json("state", "show", "--field", "warnings")[0]["timestamp"] == first["timestamp"]


def test_a_changed_max_entries_reaches_existing_scratchpads(repo: Repo) -> None:
    repo.gridgit("write", "-c", "gotcha", "-t", "a", "--content", "x", "--phase", "02-core", agent="executor-001")
    config = json.loads((repo.grid / "config.json").read_text(encoding="utf-8"))
    config["scratchpad"].update(max_entries=8, keep_recent=4)
    (repo.grid / "config.json").write_text(json.dumps(config), encoding="utf-8")
    [finding] = [f for f in repo.gridgit_json("doctor")["findings"] if f["check"] == "limits"]
    assert finding["level"] == "warn" and "gridgit reindex" in finding["fix"]
    assert finding["details"] == ["01-foundation: max_entries 50", "02-core: max_entries 50"]
    repo.gridgit("reindex")
    layout = Layout.find(repo.path)
    assert [store.load(layout, p).max_entries for p in (PHASE, "02-core")] == [8, 8]
    assert [f["level"] for f in repo.gridgit_json("doctor")["findings"] if f["check"] == "limits"] == ["ok"]
    for n in range(9):
        repo.gridgit("write", "-c", "discovery", "-t", f"d{n}", "--content", "Found: x", agent="executor-001")
    assert layout.scratchpad_archive(PHASE).exists()  # archived at the new limit


def test_scouts_staleness_reads_alike_everywhere(repo: Repo) -> None:
    for agent in ("scout-001", "executor-001"):
        repo.gridgit("agent", "register", agent, agent=agent)
    listed = {row["id"]: row for row in repo.gridgit_json("agent", "list")["active"]}
    watched = {row["agent_id"]: row for row in repo.gridgit_json("stale", "--all")}
    assert listed["scout-001"]["warning_level"] == watched["scout-001"]["warning_level"] == "n/a"
    assert listed["scout-001"]["stale"] is None and watched["scout-001"]["stale"] is None
    assert [r["agent_id"] for r in repo.gridgit_json("stale")] == []  # a scout is never reported stale
    assert repo.gridgit_json("status")["agents"][0]["warning_level"] == "n/a"


def test_inits_first_phase_has_its_phase_started(repo: Repo) -> None:
    [started] = repo.events("phase_started")
    assert started["payload"] == {"phase_id": PHASE, "phase_name": "Foundation", "agent": "system"}
    types = [e["type"] for e in repo.events()]
    assert types.index("grid_initialised") < types.index("phase_started")
