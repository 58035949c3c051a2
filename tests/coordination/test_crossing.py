"""Claims and edits across real clones of a bare origin (issue 35): two agents on two clones never both
hold one file exclusively, each is told of the other's edit of a shared file, and what a peer sends
passes the gate of a local claim.

One origin and two clones for the module (each test works on paths of its own); the scenarios that take
a clone offline put its remote back before they end.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest

from gridgit.store import clock
from tests.conftest import Repo, git
from tests.history.test_sync import origin_with_clones


@pytest.fixture(scope="module")
def clones(tmp_path_factory: pytest.TempPathFactory) -> tuple[Repo, Repo]:
    a, b = origin_with_clones(tmp_path_factory.mktemp("crossing"), ["a", "b"])
    for clone, agents in ((a, ("executor-001", "mc-ana")), (b, ("executor-002", "executor-003"))):
        for agent in agents:
            clone.gridgit("agent", "register", agent, "--task", "crossing", agent=agent)
    a.gridgit("sync")
    b.gridgit("sync")
    return a, b


@contextlib.contextmanager
def offline(repo: Repo) -> Iterator[None]:
    """REPO's remote points nowhere meanwhile (a laptop on a train)."""
    url = repo.git("remote", "get-url", "origin").strip()
    repo.git("remote", "set-url", "origin", str(repo.path.parent / "gone.git"))
    try:
        yield
    finally:
        repo.git("remote", "set-url", "origin", url)


def standing(repo: Repo, pattern: str) -> list[tuple[str, bool]]:
    """(agent, holds it) of every exclusive claim on PATTERN in REPO, in their order."""
    return [(c["agent"], c["held"]) for c in repo.gridgit_json("claims") if c["pattern"] == pattern and c["exclusive"]]


def inbox(repo: Repo, agent: str, kind: str, about: str = "") -> list[str]:
    """What AGENT's inbox in REPO tells of KIND (naming ABOUT) now."""
    return [
        i["summary"] for i in repo.gridgit_json("inbox", agent=agent) if i["type"] == kind and about in i["summary"]
    ]


def test_two_agents_on_two_clones_cannot_both_hold_one_file(clones: tuple[Repo, Repo]) -> None:
    a, b = clones
    first = a.gridgit_json("claim", "src/api.py", "--exclusive", agent="executor-001")
    assert first["pushed"] is True and first["granted"][0]["held"] is True
    # b has not synced since: its claim fetches first, so it queues behind a's and is told so.
    second = b.gridgit("claim", "src/api.py", "--exclusive", agent="executor-002")
    assert "waiting behind executor-001's src/api.py" in second.stdout
    assert "confirmed on the remote" in second.stdout
    a.gridgit("sync")
    for clone in (a, b):
        assert standing(clone, "src/api.py") == [("executor-001", True), ("executor-002", False)]
    assert b.gridgit("conflicts", "check", "src/api.py", agent="executor-002", check=False).returncode == 6
    assert a.gridgit("conflicts", "check", "src/api.py", agent="executor-001").returncode == 0
    # a's agent hears of b's claim on its file when the sync brings it (its inbox, a claim from another clone)
    assert any("executor-002 claimed src/api.py" in line for line in inbox(a, "executor-001", "claim"))


@pytest.mark.parametrize("minutes", [-10, 10])
def test_a_claim_made_offline_with_a_clock_ten_minutes_off_loses_to_one_the_remote_holds(
    clones: tuple[Repo, Repo], minutes: int
) -> None:
    a, b = clones
    path = f"src/cart{minutes:+d}.py"
    skewed = {"GRIDGIT_NOW": clock.format_iso(clock.now() + timedelta(minutes=minutes))}
    with offline(b):
        made = b.gridgit("claim", path, "--exclusive", "--json", agent="executor-003", env=skewed, check=False)
        assert made.returncode == 9 and json.loads(made.stdout)["data"]["provisional"] is True
        assert standing(b, path) == [("executor-003", True)]  # it holds, in this clone, for now
        a.gridgit_json("claim", path, "--exclusive", agent="executor-001")  # confirmed on the remote
    b.gridgit("sync")
    # b's clock said 10 minutes earlier (or later), but the remote held a's first: a's holds, in both clones.
    a.gridgit("sync")
    for clone in (a, b):
        assert standing(clone, path) == [("executor-001", True), ("executor-003", False)]
    [lost] = [e["payload"] for e in b.events("claim_lost") if e["payload"]["pattern"] == path]
    assert (lost["holder"], lost["winner"]) == ("executor-003", "executor-001")
    assert inbox(b, "executor-003", "claim", path)[-1] == (
        f"your exclusive claim on {path} waits behind executor-001's on {path}, made first in another "
        "clone: they hold those files; coordinate before editing them"
    )
    b.gridgit("sync")
    assert len([e for e in b.events("claim_lost") if e["payload"]["pattern"] == path]) == 1  # told once


def test_two_clones_claiming_one_file_in_the_same_second_end_with_one_holder(clones: tuple[Repo, Repo]) -> None:
    a, b = clones
    now = {"GRIDGIT_NOW": clock.now_iso()}
    procs = [
        clone.gridgit_popen("claim", "src/same.py", "--exclusive", "--json", agent=agent, env=now)
        for clone, agent in ((a, "executor-001"), (b, "executor-002"))
    ]
    answers = [json.loads(p.communicate(timeout=300)[0])["data"] for p in procs]
    assert all(answer["pushed"] for answer in answers)  # both confirmed: in one order on the remote
    assert sorted(answer["granted"][0]["held"] for answer in answers) == [False, True]
    for clone in (a, b, a):
        clone.gridgit("sync")
    assert standing(a, "src/same.py") == standing(b, "src/same.py")
    assert [held for _, held in standing(a, "src/same.py")] == [True, False]


def test_each_agent_is_told_of_the_others_edit_of_a_shared_file_after_the_next_sync(
    clones: tuple[Repo, Repo],
) -> None:
    a, b = clones
    a.gridgit("touch", "src/shared.py", agent="executor-001")
    b.gridgit("touch", "src/shared.py", agent="executor-002")  # before either synced: nobody knows yet
    shared = "src/shared.py"
    assert inbox(a, "executor-001", "conflict", shared) == [] and inbox(b, "executor-002", "conflict", shared) == []
    a.gridgit("sync")
    b.gridgit("sync")  # brings a's edit: b's agent is told
    a.gridgit("sync")  # brings b's: a's agent is told
    told = "write conflict on src/shared.py with {}: coordinate first (.grid/CHECKPOINT.md)"
    assert inbox(b, "executor-002", "conflict", shared) == [told.format("executor-001")]
    assert inbox(a, "executor-001", "conflict", shared) == [told.format("executor-002")]
    warnings = [e for e in a.events("entry_written") if "src/shared.py" in json.dumps(e["payload"])]
    assert len(warnings) <= 1  # the scratchpad's warning once, by the clone that recorded it first
    # a later edit in a's clone finds b's edit through b's clone file, with no sync in between
    a.gridgit("touch", "src/shared.py", agent="executor-001")
    checked = a.gridgit("conflicts", "check", "src/shared.py", "--json", agent="executor-001", check=False)
    assert checked.returncode == 6 and json.loads(checked.stdout)["data"]["conflicting_agents"] == ["executor-002"]


def test_another_clones_rename_links_the_old_name_to_the_new_in_this_clones_conflict_checks(
    clones: tuple[Repo, Repo],
) -> None:
    a, b = clones
    b.gridgit("touch", "src/renamed.py", "--operation", "moved", "--from", "src/original.py", agent="executor-002")
    b.gridgit("touch", "src/elsewhere.py", agent="executor-002")
    b.gridgit("sync")
    a.gridgit("sync")
    checked = a.gridgit("conflicts", "check", "src/original.py", "--json", agent="executor-001", check=False)
    assert checked.returncode == 6 and json.loads(checked.stdout)["data"]["conflicting_agents"] == ["executor-002"]
    assert a.gridgit("conflicts", "check", "src/unrelated.py", agent="executor-001").returncode == 0


def test_master_control_releases_a_claim_made_in_another_clone_and_its_holder_is_told(
    clones: tuple[Repo, Repo],
) -> None:
    a, b = clones
    b.gridgit_json("claim", "docs/**", "--exclusive", agent="executor-002")
    a.gridgit("sync")
    a.gridgit("release", "docs/**", "--holder", "executor-002", agent="mc-ana")
    a.gridgit("sync")
    b.gridgit("sync")
    assert standing(b, "docs/**") == []
    assert "mc-ana released your claim on docs/**: it no longer holds" in inbox(b, "executor-002", "claim")


def _peer_commit(origin: Path, scratch: Path, change: dict[str, str]) -> None:
    """Push onto ORIGIN's grid ref a commit of another gridgit that changes CHANGE ({path in .grid/: text})."""
    work = scratch / "peer"
    git(scratch, "clone", "-q", "--branch", "grid", str(origin), str(work))
    for rel, text in change.items():
        (work / rel).parent.mkdir(parents=True, exist_ok=True)
        (work / rel).write_text(text, encoding="utf-8")
    git(work, "add", "-A")
    git(work, "commit", "-q", "-m", "gridgit: a peer\n\nGrid-Clone: c-0123456789ab")
    git(work, "push", "-q", "origin", "grid")


def test_a_peers_claim_or_edit_outside_the_repository_is_refused_like_a_local_one(
    clones: tuple[Repo, Repo], tmp_path: Path
) -> None:
    a, _ = clones
    a.gridgit("sync")
    origin = a.path.parent / "origin.git"
    stored = json.loads(git(a.path, "--git-dir", str(origin), "show", "grid:claims.json"))
    good = {"id": "claim-0a0a0a0a", "agent": "executor-009", "pattern": "lib/ok.py", "exclusive": True,
            "created_at": "2026-01-01T00:00:00Z", "expires_at": "2999-01-01T00:00:00Z", "reason": "",
            "clone": "c-0123456789ab", "seq": stored["seq"] + 1, "released_at": None, "released_by": None}  # fmt: skip
    bad = [{**good, "id": f"claim-0b0b0b0{n}", "pattern": pattern} for n, pattern in
           enumerate(["../etc/passwd", "/etc/passwd", "lib/a\nb.py", ".git/config"])]  # fmt: skip
    clone_file = {"version": 1, "clone": "c-0123456789ab",
                  "files": [{"id": "e1", "at": clock.now_iso(), "agent": "executor-009", "operation": "modified",
                             "path": "../../outside"},
                            {"id": "e2", "at": clock.now_iso(), "agent": "executor-009", "operation": "modified",
                             "path": "lib/fine.py"}]}  # fmt: skip
    claims = {**stored, "claims": [*stored["claims"], good, *bad]}
    _peer_commit(origin, tmp_path, {"claims.json": json.dumps(claims), "clones/c-0123456789ab.json":
                                    json.dumps(clone_file)})  # fmt: skip
    a.gridgit("sync")
    patterns = {c["pattern"] for c in json.loads((a.grid / "claims.json").read_text())["claims"]}
    assert "lib/ok.py" in patterns and not patterns & {"../etc/passwd", "/etc/passwd", "lib/a\nb.py", ".git/config"}
    told = json.loads((a.grid / "clones/c-0123456789ab.json").read_text())
    assert [e["path"] for e in told["files"]] == ["lib/fine.py"]
    rejected = [e["payload"]["message"] for e in a.events("peer_file_rejected")]
    assert any("leaves the repository" in m for m in rejected) and any("control character" in m for m in rejected)
    assert any("is not a repository-relative posix path" in m for m in rejected)
    assert a.gridgit("validate").returncode == 0


def test_a_clone_offline_for_an_hour_comes_back_with_stale_claims_and_a_lost_take(clones: tuple[Repo, Repo]) -> None:
    a, b = clones
    a.gridgit("block", "plan", "01-09", "--name", "Offline", "--files", "src/offline/**", agent="mc-ana")
    a.gridgit("sync")
    b.gridgit("sync")
    hour_ago = {"GRIDGIT_NOW": clock.format_iso(clock.now() - timedelta(minutes=61))}
    half_hour_ago = {"GRIDGIT_NOW": clock.format_iso(clock.now() - timedelta(minutes=50))}
    with offline(b):  # an hour on a train: a claim that expires meanwhile, then a take of 01-09 and its files
        stale = b.gridgit("claim", "src/stale.py", "--exclusive", "--ttl", "30", agent="executor-003", env=hour_ago,
                          check=False)  # fmt: skip
        took = b.gridgit("take", "01-09", "--json", agent="executor-003", env=half_hour_ago, check=False)
        assert stale.returncode == took.returncode == 9  # provisional, both
        assert json.loads(took.stdout)["data"]["claimed"] == ["src/offline/**"]
        assert a.gridgit_json("take", "01-09", agent="executor-001")["pushed"] is True  # confirmed meanwhile
    b.gridgit("sync")
    a.gridgit("sync")
    for clone in (a, b):
        block = clone.gridgit_json("block", "show", "01-09")
        assert block["owner"] == "executor-001"
        live = [(c["agent"], c["pattern"], c["held"]) for c in clone.gridgit_json("claims")]
        assert ("executor-001", "src/offline/**", True) in live
        mine = [c for c in live if c[0] == "executor-003" and c[1] in ("src/offline/**", "src/stale.py")]
        assert mine == []  # the lost take's claims released, the stale one gone
    [released] = [c for c in json.loads((b.grid / "claims.json").read_text())["claims"]
                  if c["agent"] == "executor-003" and c["pattern"] == "src/offline/**"]  # fmt: skip
    assert released["released_by"] == "system"  # a tombstone until it expires: a clone that missed it releases too
    assert any("your take of block 01-09 lost to executor-001" in line for line in
               [i["summary"] for i in b.gridgit_json("inbox", agent="executor-003") if i["type"] == "block"])  # fmt: skip
    assert a.gridgit("conflicts", "check", "src/offline/x.py", agent="executor-001").returncode == 0
    assert a.gridgit("conflicts", "check", "src/stale.py", agent="executor-001").returncode == 0


def test_a_force_pushed_grid_ref_loses_no_claim_and_leaves_one_holder(clones: tuple[Repo, Repo]) -> None:
    a, b = clones
    a.gridgit("sync")
    b.gridgit("sync")  # b's grid ref is the remote's now: what a force-push from b puts back
    assert a.gridgit_json("claim", "src/forced.py", "--exclusive", agent="executor-001")["pushed"] is True
    b.git("push", "-q", "--force", "--no-verify", "origin", "refs/heads/grid:refs/heads/grid")  # a's claim: gone there
    # b's claim finds no claim on the remote: it is confirmed there, first, and a's comes after it at a's next sync
    assert b.gridgit_json("claim", "src/forced.py", "--exclusive", agent="executor-002")["granted"][0]["held"]
    a.gridgit("sync")
    b.gridgit("sync")
    for clone in (a, b):
        assert standing(clone, "src/forced.py") == [("executor-002", True), ("executor-001", False)]
    assert inbox(a, "executor-001", "claim", "src/forced.py")[-1].startswith(
        "your exclusive claim on src/forced.py waits behind executor-002's"
    )
