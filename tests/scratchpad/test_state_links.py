"""L2 -> L3 (issue 28): a blocker entry adds a STATE blocker, resolved with it; a decision of
mission scope lands in persistent.decisions; both by the entry's uid, once however often."""

from __future__ import annotations

import shutil
from pathlib import Path

from gridgit import Blackboard
from gridgit.history.merge import merge_state
from gridgit.scratchpad import state_links, store
from gridgit.store.layout import Layout
from tests.conftest import Repo, git

PHASE = "01-foundation"
BLOCKER = "Blocker: Stripe API key not configured\nType: missing_credential\nAction Required: add STRIPE_KEY"
DECISION = "Decision: JWT with refresh rotation\nRationale: stateless auth scales\nAffects: api, web"


def _blockers(repo: Repo) -> list[dict[str, object]]:
    return list(repo.gridgit_json("state", "show", "--field", "blockers"))


def test_a_blocker_entry_adds_a_state_blocker_resolved_with_it(repo: Repo) -> None:
    written = repo.gridgit_json(
        "write", "-c", "blocker", "-t", "payments", "--content", BLOCKER, "--block", "01-03", agent="executor-001"
    )  # an executor may not write STATE blockers itself: this is gridgit's bookkeeping
    uid = written["uid"]
    assert _blockers(repo) == [
        {
            "id": f"blocker-{uid}",
            "type": "missing_credential",
            "description": "Stripe API key not configured",
            "blocking_thread": "01-03",
            "source": "executor-001",
            "added_at": written["timestamp"],
            "phase_id": PHASE,
            "entry": uid,
        }
    ]
    added = repo.events("blocker_added")[-1]["payload"]
    assert (added["blocker_id"], added["entry_uid"], added["added_at"]) == (f"blocker-{uid}", uid, written["timestamp"])
    # One open item (the entry stands for its STATE blocker), in status and the context pack.
    [item] = repo.gridgit_json("status")["open"]
    assert (item["uid"], item["state_id"]) == (uid, f"blocker-{uid}")
    assert "Stripe API key not configured" in repo.gridgit_json("context", agent="executor-002")["text"]

    # Resolved by its STATE id: the entry is resolved with it, one event.
    events = len(repo.events("entry_resolved"))
    done = repo.gridgit_json("resolve", f"blocker-{uid}", "--note", "key added", agent="mc")
    assert (done["source"], done["uid"], done["state_id"]) == ("scratchpad", uid, f"blocker-{uid}")
    assert len(repo.events("entry_resolved")) == events + 1
    [entry] = repo.gridgit_json("read", "-c", "blocker")
    assert entry["resolution"]["note"] == "key added" and entry["resolution"]["by"] == "mc"
    assert _blockers(repo)[0]["resolved_by"] == "mc" and _blockers(repo)[0]["resolution"] == "key added"
    assert repo.gridgit_json("status")["open"] == []

    # Resolved as an entry (by its number): the STATE blocker follows.
    second = repo.gridgit_json(
        "write", "-c", "blocker", "-t", "dns", "--content", "Blocker: no DNS", agent="executor-002"
    )
    repo.gridgit("resolve", str(second["id"]), agent="executor-001")
    [state_item] = [b for b in _blockers(repo) if b["entry"] == second["uid"]]
    assert state_item["resolved_by"] == "executor-001" and state_item["type"] == "blocker"


def test_a_state_blocker_follows_its_entry_into_the_next_phase(repo: Repo) -> None:
    board = Blackboard(repo.path, agent="executor-001")
    entry = board.write("blocker", "payments", BLOCKER)
    board.complete_phase(PHASE, agent="mc")
    [copy] = board.read(phase="02-core", category="blocker")
    [item] = board.state()["blockers"]
    assert (item["id"], item["entry"], item["phase_id"]) == (f"blocker-{entry.uid}", copy.uid, "02-core")
    assert [i.get("state_id") for i in board.status()["open"]] == [item["id"]]
    board.resolve(copy.id, note="key added", agent="executor-002")
    assert board.state()["blockers"][0]["resolution"] == "key added"


def test_an_architectural_decision_lands_in_persistent_decisions(repo: Repo) -> None:
    written = repo.gridgit_json(
        "write", "-c", "decision", "-t", "auth", "--content", DECISION, "--scope", "mission", agent="executor-001"
    )
    assert "architectural" in written["tags"] and written["relevance"] == "HIGH"
    tagged = repo.gridgit_json(
        "write", "-c", "decision", "-t", "db", "--tags", "architectural", "--content", "Decision: Postgres",
        agent="executor-002",
    )  # fmt: skip
    repo.gridgit("write", "-c", "decision", "-t", "ui", "--content", "Decision: tabs", agent="executor-001")
    decisions = repo.gridgit_json("state", "show", "--field", "persistent.decisions")
    assert [d["entry"] for d in decisions] == [written["uid"], tagged["uid"]]  # the phase-scoped one stays in L2
    assert decisions[0] == {
        "id": f"dec-{written['uid']}",
        "decision": "JWT with refresh rotation",
        "rationale": "stateless auth scales",
        "affects": "api, web",
        "affects_phases": [PHASE, "02-core"],  # the mission's: every phase STATE defines
        "phase_decided": PHASE,
        "source": "executor-001",
        "added_at": written["timestamp"],
        "phase_id": PHASE,
        "entry": written["uid"],
    }
    assert [d["decision"] for d in repo.gridgit_json("status")["decisions"]] == [
        "JWT with refresh rotation",
        "Postgres",
    ]
    assert "Mission decisions" in repo.gridgit("status").stdout
    assert "JWT with refresh rotation" in repo.gridgit_json("context", agent="executor-003")["text"]

    before = repo.snapshot()
    proc = repo.gridgit("write", "-c", "gotcha", "-t", "x", "--content", "y", "--scope", "mission", check=False,
                        agent="executor-001")  # fmt: skip
    assert proc.returncode == 1 and "a gotcha has no mission scope" in proc.stderr
    assert repo.snapshot() == before


def test_recorded_once_by_uid_in_a_rerun_and_across_clones(repo: Repo, tmp_path: Path) -> None:
    layout = Layout.find(repo.path)
    base = layout.state.read_text(encoding="utf-8")
    other = tmp_path / "clone"
    other.mkdir()
    git(other, "init", "-q", "-b", "main")
    shutil.copytree(repo.grid, other / ".grid")
    entry = store.write_entry(layout, PHASE, "executor-001", "blocker", "payments", BLOCKER, [])
    assert state_links.record(layout, PHASE, entry) is False  # a re-run adds nothing
    # The other clone records the same entry (synced to it) on its own: one item after the merge.
    assert state_links.record(Layout.find(other), PHASE, entry) is True
    ours = layout.state.read_text(encoding="utf-8")
    theirs = (other / ".grid" / "STATE.md").read_text(encoding="utf-8")
    merged = merge_state(base, ours, theirs, "STATE.md")
    assert merged.count(f"id: blocker-{entry.uid}") == 1


def test_a_state_write_that_fails_is_a_warning_and_completion_makes_up_for_it(repo: Repo) -> None:
    good = (repo.grid / "STATE.md").read_text(encoding="utf-8")
    (repo.grid / "STATE.md").write_text(good.replace("status: planning", "status: [broken"), encoding="utf-8")
    proc = repo.gridgit(
        "write", "-c", "blocker", "-t", "payments", "--content", BLOCKER, "--phase", PHASE, "--block", "01-03",
        agent="executor-001",
    )  # fmt: skip
    assert "gridgit: warning: blocker [1] is not in STATE.md" in proc.stderr  # the entry is written all the same
    (repo.grid / "STATE.md").write_text(good, encoding="utf-8")
    assert _blockers(repo) == []
    board = Blackboard(repo.path)
    board.complete_phase(PHASE, agent="mc")
    [copy] = board.read(phase="02-core", category="blocker")
    [item] = _blockers(repo)
    assert (item["entry"], item["phase_id"], item["source"]) == (copy.uid, "02-core", "executor-001")


def test_a_decision_bearing_on_later_phases_lands_in_state_with_them(repo: Repo) -> None:
    beyond = repo.gridgit_json(
        "write", "-c", "decision", "-t", "api", "--content", DECISION, "--affects-phases", "02-core,01-foundation",
        agent="executor-001",
    )  # fmt: skip
    assert beyond["affects_phases"] == [PHASE, "02-core"]
    assert (
        "**Affects Phases:** 01-foundation, 02-core\n" in (repo.grid / "phases" / PHASE / "scratchpad.md").read_text()
    )
    own = repo.gridgit_json("write", "-c", "decision", "-t", "ui", "--content", "Decision: tabs",
                            "--affects-phases", PHASE, agent="executor-001")  # fmt: skip
    (item,) = repo.gridgit_json("state", "show", "--field", "persistent.decisions")
    assert (item["entry"], item["affects_phases"]) == (beyond["uid"], [PHASE, "02-core"])
    assert own["uid"] != item["entry"]  # its own phase only: it stays in L2
    for args, code, message in (
        (("-c", "gotcha", "-t", "x", "--content", "Gotcha: y", "--affects-phases", "02-core"), 1, "is for decisions"),
        (("-c", "decision", "-t", "x", "--content", "Decision: y", "--affects-phases", "09-nowhere"), 7, "no phase"),
        (("-c", "decision", "-t", "x", "--content", "Decision: y", "--affects-phases", "../x"), 1, "invalid phase id"),
    ):
        before = repo.snapshot()
        proc = repo.gridgit("write", *args, agent="executor-001", check=False)
        assert proc.returncode == code and message in proc.stderr, proc.stderr
        assert repo.snapshot() == before
