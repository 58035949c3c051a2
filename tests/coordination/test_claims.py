"""Advisory claims: globs, TTL, renewals, release, overlaps, storage."""

from __future__ import annotations

import json
import multiprocessing

import pytest

from gridgit.coordination import claims, globs
from gridgit.errors import BadInput
from gridgit.store.layout import Layout
from tests.conftest import Repo

T0 = "2026-03-01T10:00:00Z"


def _layout(repo: Repo) -> Layout:
    return Layout.find(repo.path)


@pytest.mark.parametrize(
    ("pattern", "path", "expected"),
    [
        ("src/**", "src/a.py", True),
        ("src/**", "src/deep/er/a.py", True),
        ("src/**", "srcx/a.py", False),
        ("src/*.py", "src/a.py", True),
        ("src/*.py", "src/deep/a.py", False),
        ("**/*.md", "README.md", True),
        ("**/*.md", "docs/x/a.md", True),
        ("src/a?.py", "src/ab.py", True),
        ("src/[ab].py", "src/b.py", True),
        ("src/[!ab].py", "src/b.py", False),
        ("src", "src/a.py", True),
        ("src/", "src/a.py", True),
        ("src", "srcx", False),
        ("src/a.py", "src/a.py", True),
        ("a+b(1).py", "a+b(1).py", True),
    ],
)
def test_glob_matching(pattern: str, path: str, expected: bool) -> None:
    assert globs.matches(pattern, path) is expected


def test_overlap_is_conservative() -> None:
    assert globs.overlaps("src/**", "src/a.py")
    assert globs.overlaps("src/*.py", "src/**")
    assert globs.overlaps("src", "src/a.py")
    assert not globs.overlaps("src/**", "docs/**")
    assert not globs.overlaps("src/a.py", "src/b.py")


def test_claim_list_renew_and_release(repo: Repo, monkeypatch: pytest.MonkeyPatch) -> None:
    layout = _layout(repo)
    monkeypatch.setenv("GRIDGIT_NOW", T0)
    result = claims.claim(layout, ["src/**", "docs/a.md", "src/**"], "executor-001", ttl_minutes=30)
    assert [c.pattern for c in result.granted] == ["src/**", "docs/a.md"]
    assert result.granted[0].expires_at == "2026-03-01T10:30:00Z" and not result.granted[0].exclusive
    again = claims.claim(layout, ["src/**"], "executor-001", ttl_minutes=60, exclusive=True)
    assert again.granted[0].id == result.granted[0].id  # renewed, not duplicated
    live = claims.live_claims(layout)
    assert [(c.pattern, c.exclusive, c.expires_at) for c in live] == [
        ("docs/a.md", False, "2026-03-01T10:30:00Z"),
        ("src/**", True, "2026-03-01T11:00:00Z"),  # made exclusive now: it takes its place in the order now
    ]
    assert [c.pattern for c in claims.release(layout, "executor-001", ["docs/a.md"])] == ["docs/a.md"]
    assert claims.release(layout, "executor-002") == []
    assert [c.pattern for c in claims.release(layout, "executor-001")] == ["src/**"]
    assert claims.live_claims(layout) == []
    assert [e["type"] for e in repo.events() if e["type"].startswith("claim_")] == [
        "claim_added", "claim_added", "claim_released", "claim_released",
    ]  # fmt: skip


def test_default_ttl_comes_from_config(repo: Repo, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRIDGIT_NOW", T0)
    [granted] = claims.claim(_layout(repo), ["a.py"], "executor-001").granted
    assert granted.expires_at == "2026-03-01T11:00:00Z"  # claims.ttl_minutes: 60


def test_expired_claims_are_ignored_and_pruned(repo: Repo, monkeypatch: pytest.MonkeyPatch) -> None:
    layout = _layout(repo)
    monkeypatch.setenv("GRIDGIT_NOW", T0)
    claims.claim(layout, ["old/**"], "executor-001", ttl_minutes=5)
    monkeypatch.setenv("GRIDGIT_NOW", "2026-03-01T10:06:00Z")
    assert claims.live_claims(layout) == []
    claims.claim(layout, ["new/**"], "executor-002")
    stored = json.loads((repo.grid / "claims.json").read_text(encoding="utf-8"))
    assert [c["pattern"] for c in stored["claims"]] == ["new/**"]


def test_overlapping_claims_are_granted_and_reported(repo: Repo) -> None:
    layout = _layout(repo)
    claims.claim(layout, ["src/**"], "executor-001", exclusive=True)
    result = claims.claim(layout, ["src/a.py"], "executor-002")
    assert [c.pattern for c in result.granted] == ["src/a.py"]
    assert [c.agent for c in result.conflicts] == ["executor-001"]
    shared = claims.claim(layout, ["docs/**"], "executor-001")
    assert claims.claim(layout, ["docs/a.md"], "executor-002").conflicts == []  # shared + shared
    assert shared.conflicts == []
    assert [c.agent for c in claims.claim(layout, ["docs/a.md"], "executor-003", exclusive=True).conflicts] == [
        "executor-001", "executor-002",
    ]  # fmt: skip
    assert repo.events("claim_added")[-1]["payload"]["conflicting_agents"] == ["executor-001", "executor-002"]


def test_patterns_are_repo_relative(repo: Repo) -> None:
    layout = _layout(repo)
    result = claims.claim(layout, [str(repo.path / "src" / "*.py"), "./lib/../docs/**"], "executor-001")
    assert [c.pattern for c in result.granted] == ["src/*.py", "docs/**"]


@pytest.mark.parametrize("bad", ["../x/**", "/etc/passwd", ".", "", ".git/**", "a\nb"])
def test_bad_patterns_are_refused_and_nothing_changes(repo: Repo, bad: str) -> None:
    before = repo.snapshot()
    with pytest.raises(BadInput):
        claims.claim(_layout(repo), [bad], "executor-001")
    assert repo.snapshot() == before


@pytest.mark.parametrize("ttl", [0, -5])
def test_a_ttl_must_be_positive(repo: Repo, ttl: float) -> None:
    with pytest.raises(BadInput, match="ttl"):
        claims.claim(_layout(repo), ["a.py"], "executor-001", ttl_minutes=ttl)


def test_a_corrupt_claims_file_is_a_clear_error(repo: Repo) -> None:
    (repo.grid / "claims.json").write_text("{oops", encoding="utf-8")
    with pytest.raises(BadInput, match=r"claims\.json"):
        claims.live_claims(_layout(repo))


def test_renewing_never_makes_an_exclusive_claim_shared_unless_asked(repo: Repo) -> None:
    layout = _layout(repo)
    claims.claim(layout, ["src/**"], "executor-001", exclusive=True)
    renewed = claims.claim(layout, ["src/**"], "executor-001", ttl_minutes=90)  # no --exclusive: it stays one
    assert renewed.granted[0].exclusive and renewed.kept_exclusive == ["src/**"]
    said = repo.gridgit("claim", "src/**", "--ttl", "30", agent="executor-001").stdout
    assert "exclusive" in said and "stays exclusive (renewed; `--shared` makes it shared)" in said
    shared = claims.claim(layout, ["src/**"], "executor-001", exclusive=False)  # `--shared`: asked for
    assert not shared.granted[0].exclusive and shared.kept_exclusive == []


def test_claims_are_in_the_blackboards_history(repo: Repo) -> None:
    claims.claim(_layout(repo), ["a.py"], "executor-001", exclusive=True)
    repo.gridgit("snapshot")
    stored = json.loads(repo.git("show", "grid:claims.json"))
    assert [(c["pattern"], c["agent"], c["exclusive"]) for c in stored["claims"]] == [("a.py", "executor-001", True)]


def test_of_two_overlapping_exclusive_claims_the_first_holds_and_the_other_waits(repo: Repo) -> None:
    layout = _layout(repo)
    first = claims.claim(layout, ["src/**"], "executor-001", exclusive=True)
    second = claims.claim(layout, ["src/a.py"], "executor-002", exclusive=True)
    assert first.granted[0].held and not second.granted[0].held
    assert [c.pattern for c in second.waiting] == ["src/a.py"] and second.granted[0].behind.agent == "executor-001"
    said = repo.gridgit("claims").stdout
    assert "src/a.py  executor-002  exclusive, waiting behind executor-001's src/**" in said
    # The holder's write is no conflict; the waiting agent's is.
    assert repo.gridgit("conflicts", "check", "src/a.py", agent="executor-001").returncode == 0
    assert repo.gridgit("conflicts", "check", "src/a.py", agent="executor-002", check=False).returncode == 6
    claims.release(layout, "executor-001")
    [now] = claims.live_claims(layout, "executor-002")
    assert now.held  # the first released: the next in the order holds
    assert repo.events("claim_added")[-1]["payload"]["waiting"] == ["src/a.py"]


def _claimer(root: str, agent: str) -> None:
    layout = Layout.find(root)
    for i in range(20):
        claims.claim(layout, [f"{agent}/{i}.py"], agent)


def test_concurrent_claims_lose_nothing(repo: Repo) -> None:
    ctx = multiprocessing.get_context("fork")
    procs = [ctx.Process(target=_claimer, args=(str(repo.path), f"executor-{n:03d}")) for n in range(4)]
    for proc in procs:
        proc.start()
    for proc in procs:
        proc.join(timeout=120)
        assert proc.exitcode == 0
    assert len(claims.live_claims(_layout(repo))) == 80


def test_a_claim_made_exclusive_offline_moves_after_the_remotes_claims_at_the_merge() -> None:
    from gridgit.coordination import claimfile

    def claim(claim_id: str, agent: str, seq: int, exclusive: bool, clone: str) -> claimfile.Claim:
        return claimfile.Claim(claim_id, agent, "src/a.py", exclusive, "2026-03-01T10:00:00Z", "2999-01-01T00:00:00Z",
                               "", clone, seq)  # fmt: skip

    shared = claim("claim-0000000a", "executor-001", 1, False, "c-aaaaaaaaaaaa")
    base = claimfile.ClaimFile([shared], 1).render()
    # This clone made its shared claim exclusive offline (seq 2); the remote meanwhile confirmed another's (seq 2).
    ours = claimfile.ClaimFile([shared.replace(exclusive=True, seq=2)], 2).render()
    other = claim("claim-0000000b", "executor-002", 2, True, "c-bbbbbbbbbbbb")
    theirs = claimfile.ClaimFile([shared, other], 2).render()
    merged = claimfile.merge(base, ours, theirs, "claims.json")
    moved = claimfile.sequence_after(merged, base, theirs, "claims.json")
    assert moved is not None  # the upgrade was never on the remote: it goes after the remote's claims
    order = claimfile.waiting(claimfile.parse(moved, "claims.json").claims)
    assert [(c.agent, c.held) for c in order] == [("executor-002", True), ("executor-001", False)]
    assert claimfile.sequence_after(moved, base, moved, "claims.json") is None  # once on the remote, it stays


def test_a_claims_file_an_earlier_gridgit_wrote_reads_as_it_was(repo: Repo) -> None:
    old = {"claims": [{"id": "claim-1a2b3c4d", "agent": "executor-001", "pattern": "src/**", "exclusive": True,
                       "created_at": "2026-01-01T00:00:00Z", "expires_at": "2999-01-01T00:00:00Z", "reason": ""}]}  # fmt: skip
    (repo.grid / "claims.json").write_text(json.dumps(old), encoding="utf-8")
    assert repo.gridgit("validate").returncode == 0
    claims.claim(_layout(repo), ["src/a.py"], "executor-002", exclusive=True)
    listed = [(c.agent, c.held, c.seq) for c in claims.live_claims(_layout(repo))]
    assert listed == [("executor-001", True, 0), ("executor-002", False, 1)]  # the earlier claim first, and held
