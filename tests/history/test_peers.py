"""Trust nothing that arrives (issue 31): a peer's grid commit passes the gate of a local write,
completion wins across clones, and a broken ref says what happened and what to run. Real
clones of a bare origin; the peer's bad commits are made with git's plumbing, as a buggy or
hostile clone would push them."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from gridgit.scratchpad.document import Scratchpad
from tests.conftest import Repo, git
from tests.history.test_sync import entries, origin_with_clones, shared

BOMB = "a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: [*b, *b, *b, *b, *b, *b]\n"


def _blob(repo: Repo, data: bytes) -> str:
    proc = subprocess.run(["git", "hash-object", "-w", "--stdin"], cwd=repo.path, input=data, capture_output=True)
    return proc.stdout.decode().strip()


def peer_commit(repo: Repo, changes: dict[str, tuple[str, bytes] | None], message: str) -> str:
    """A commit on REPO's grid ref with CHANGES ({path: (mode, bytes)}, None removes), as a peer pushes it."""
    env = {"GIT_INDEX_FILE": str(repo.path / ".git" / "peer-index")}
    repo.git("read-tree", "grid", env=env)
    for path, change in changes.items():
        if change is None:
            repo.git("update-index", "--force-remove", "--", path, env=env)
        else:
            sha = repo.git("rev-parse", "HEAD").strip() if change[0] == "160000" else _blob(repo, change[1])
            repo.git("update-index", "--add", "--cacheinfo", f"{change[0]},{sha},{path}", env=env)
    tree = repo.git("write-tree", env=env).strip()
    trailer = f"{message}\n\nGrid-Agent: executor-666\nGrid-Clone: c-0123456789ab\n"
    commit = repo.git("commit-tree", tree, "-p", "grid", "-m", trailer).strip()
    repo.git("update-ref", "refs/heads/grid", commit)
    return commit


def test_a_peers_bad_files_are_left_out_reported_once_and_the_rest_merged(tmp_path: Path) -> None:
    a, b = origin_with_clones(tmp_path, ["a", "b"])
    a.gridgit("write", "-c", "gotcha", "-t", "mine", "--content", "a-1", agent="executor-001")
    b.gridgit("write", "-c", "decision", "-t", "good", "--content", "from-b", agent="executor-002")
    b.gridgit("snapshot")
    state = b.git("show", "grid:STATE.md").encode()
    pad = b.git("show", "grid:phases/01-foundation/scratchpad.md").encode()
    doubled = pad + pad[pad.index(b"### [1]") :].replace(b"### [1]", b"### [2]")  # one entry's uid twice
    bad = peer_commit(
        b,
        {
            "STATE.md": ("100644", state.replace(b"status:", b"<<<<<<< HEAD\n\xff\xfe\nstatus:", 1)),
            "LEARNINGS.md": ("120000", b"/etc/passwd"),
            "phases/02-core/scratchpad.md": ("100644", b"---\n" + BOMB.encode() + b"---\n"),
            "phases/03-ship/scratchpad.md": ("100644", b"---\nphase_id: !!python/object/apply:os.system [id]\n---\n"),
            "phases/01-foundation/scratchpad.md": ("100644", doubled),
            "config.json": None,  # a deletion no operation made
            "config.json/x": ("100644", b"{}\n"),
            "phases/02-core/notes.md": ("100644", b"a valid new file of the peer's\n"),
            "huge.md": ("100644", b"x\n" * (17 * 1024 * 1024)),  # 34 MiB
            "vendor": ("160000", b""),  # a submodule: the bytes become a commit id below
        },
        "a peer's broken commit",
    )
    b.git("push", "-q", "--no-verify", "origin", "grid")
    before = {name: (a.grid / name).read_bytes() for name in ("STATE.md", "LEARNINGS.md", "config.json")}
    proc = a.gridgit("sync")
    for name in ("STATE.md", "LEARNINGS.md", "phases/03-ship/scratchpad.md", "phases/01-foundation/scratchpad.md",
                 "config.json/x", "phases/02-core/scratchpad.md", "huge.md", "vendor"):  # fmt: skip
        assert f".grid/{name} of a peer (from clone c-0123456789ab, grid commit {bad[:10]})" in proc.stdout, name
    assert proc.stderr.count("left out of the merge") == 8  # announced once each
    assert {name: (a.grid / name).read_bytes() for name in before} == before  # this clone's versions stay
    assert not (a.grid / "phases" / "03-ship").exists() and not (a.grid / "huge.md").exists()
    assert (a.grid / "phases/02-core/notes.md").read_text("utf-8") == "a valid new file of the peer's\n"
    for args in (["validate"], ["status"], ["state", "show"], ["doctor", "--json"]):
        assert a.gridgit(*args, check=False).returncode in (0, 1) and "Traceback" not in a.gridgit(*args).stderr
    assert a.gridgit("validate").returncode == 0
    a.gridgit("write", "-c", "gotcha", "-t", "after", "--content", "still writable", agent="executor-001")
    events = a.events("peer_file_rejected")
    assert len(events) == 8 and {e["payload"]["clone"] for e in events} == {"c-0123456789ab"}
    again = a.gridgit("sync")
    assert "left out" not in again.stderr + again.stdout  # reported once
    doctor = json.loads(a.gridgit("doctor", "--json", check=False).stdout)["data"]
    peers = next(f for f in doctor["findings"] if f["check"] == "peers")
    assert peers["level"] == "warn" and len(peers["details"]) == 8
    b.gridgit("sync")  # the peer gets the good versions back
    a.gridgit("sync")
    assert b.gridgit("validate").returncode == 0 and shared(a) == shared(b)


def test_entries_written_into_a_phase_another_clone_completed_are_carried_forward(tmp_path: Path) -> None:
    a, b = origin_with_clones(tmp_path, ["a", "b"])
    a.gridgit("phase", "complete", "01-foundation", agent="mc")
    a.gridgit("sync")
    # B has not seen the completion yet: it goes on writing into 01.
    b.gridgit("write", "-c", "blocker", "-t", "db", "--content", "late blocker", agent="executor-002")
    b.gridgit("write", "-c", "warning", "-t", "ui", "--content", "late warning", agent="executor-002")
    b.gridgit("write", "-c", "discovery", "-t", "x", "--content", "late finding", agent="executor-002")
    proc = b.gridgit("sync")
    assert "phase 01-foundation: entries written after its completion were archived and carried on" in proc.stdout
    a.gridgit("sync")
    b.gridgit("sync")
    for clone in (a, b):
        pad = (clone.grid / "phases/01-foundation/scratchpad.md").read_text("utf-8")
        assert Scratchpad.parse(pad, "pad").entries == []  # nothing live is left in the completed phase
        carried = {e.content.split("\n\n", 1)[-1] for e in entries(clone) if e.carried_from}
        assert carried == {"late blocker", "late warning"}
        assert clone.gridgit("validate").returncode == 0
    assert shared(a) == shared(b)
    assert [e["payload"]["phase_id"] for e in b.events("completed_phase_settled")] == ["01-foundation"]
    # A live entry written into a completed phase here: validate and doctor name it, `phase complete` settles it.
    a.gridgit("write", "-c", "blocker", "-t", "y", "--content", "stray", "--phase", "01-foundation",
              agent="executor-001")  # fmt: skip
    found = a.gridgit("validate", check=False)
    assert found.returncode == 1 and "01-foundation" in found.stdout + found.stderr
    fix = "gridgit phase complete 01-foundation"
    assert fix in found.stdout + found.stderr
    assert "1 late entries archived, 1 carried forward to 02-core" in a.gridgit("phase", "complete", "01-foundation",
                                                                                agent="mc").stdout  # fmt: skip
    assert a.gridgit("validate").returncode == 0
    assert "already complete, nothing changed" in a.gridgit("phase", "complete", "01-foundation", agent="mc").stdout


def test_broken_refs_say_what_happened_and_what_to_run(tmp_path: Path) -> None:
    a, b = origin_with_clones(tmp_path, ["a", "b"])
    origin = tmp_path / "origin.git"
    blob = subprocess.run(["git", "hash-object", "-w", "--stdin"], cwd=origin, input=b"not a Blackboard\n",
                          capture_output=True).stdout.decode().strip()  # fmt: skip
    (origin / "refs" / "heads" / "grid").write_text(blob + "\n")
    (origin / "packed-refs").write_text("")  # the ref lives in its loose file only
    proc = a.gridgit("sync", check=False)
    assert proc.returncode == 1 and proc.stderr.count("\n") == 1
    assert "origin's refs/heads/grid points at a blob, not a commit" in proc.stderr
    assert "git push --force origin refs/heads/grid:refs/heads/grid" in proc.stderr
    # A new clone: init says the team's Blackboard cannot be read, rather than starting an empty one.
    c = Repo(tmp_path / "c")
    git(tmp_path, "clone", "-q", str(origin), str(c.path))
    refused = c.gridgit("init", check=False)
    assert refused.returncode == 1 and "refs/remotes/origin/grid points at a blob" in refused.stderr
    assert "gridgit init --force" in refused.stderr and not (c.grid / "STATE.md").exists()
    c.gridgit("init", "--force")
    a.git("push", "-q", "--force", "--no-verify", "origin", "refs/heads/grid:refs/heads/grid")  # the fix it named
    assert a.gridgit("sync").returncode == 0
    # A local ref pointing at an object that is not there.
    (b.path / ".git" / "refs" / "heads" / "grid").write_text("0123456789abcdef0123456789abcdef01234567\n")
    proc = b.gridgit("snapshot", check=False)
    assert proc.returncode == 1 and "which is missing from the objects" in proc.stderr
    assert "git update-ref -d refs/heads/grid" in proc.stderr
    doctor = json.loads(b.gridgit("doctor", "--json", check=False).stdout)["data"]
    assert not doctor["healthy"]
    assert any(f["check"] == "grid-ref" and f["level"] == "fail" for f in doctor["findings"])
    b.git("update-ref", "-d", "refs/heads/grid")  # the fix it named
    assert b.gridgit_json("snapshot")["commit"] == b.git("rev-parse", "grid").strip()
