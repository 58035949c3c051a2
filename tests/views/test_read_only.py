"""issue 38.1: reading needs no write access. On a read-only checkout `inbox --peek`, `diff`, `search` and
`conflicts predict` failed (a lock file, the search cache, the predictions record) while `doctor` said all was good.

Root ignores file permissions, so as root each command runs in a user namespace of its own (`unshare --user`):
there the process is no longer privileged over root's files and `chmod -R a-w` holds, as for any other user.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator

import pytest

from tests.conftest import Repo

READS = [
    ["status"], ["read"], ["inbox", "--peek", "--agent", "executor-002"], ["diff"], ["search", "readonly"],
    ["conflicts", "predict"], ["log"], ["context", "--agent", "executor-001"], ["state", "show"], ["events", "tail"],
    ["claims"], ["ready"], ["validate"], ["learnings"], ["block", "list"], ["budget"], ["stale"],
    ["conflicts", "list"], ["evidence", "check"], ["phase", "list"], ["agent", "list"], ["thread", "--help"],
]  # fmt: skip


def _as_unprivileged() -> list[str]:
    """The prefix that runs a command without the power to ignore file permissions (none when not root)."""
    if os.geteuid() != 0:
        return []
    unshare = shutil.which("unshare")
    probe = subprocess.run([unshare or "unshare", "--user", "true"], capture_output=True) if unshare else None
    if probe is None or probe.returncode != 0:
        pytest.skip("running as root, and no user namespace to drop the privilege in (unshare --user)")
    return [unshare or "unshare", "--user"]


@pytest.fixture
def read_only(repo: Repo) -> Iterator[Repo]:
    repo.gridgit("write", "-c", "discovery", "-t", "readonly", "--content", "Found: readonly", agent="executor-001")
    repo.gridgit("send", "--to", "executor-002", "--content", "readonly mail", agent="executor-001")
    repo.gridgit("snapshot")
    subprocess.run(["chmod", "-R", "a-w", str(repo.grid)], check=True)
    try:
        yield repo
    finally:
        subprocess.run(["chmod", "-R", "u+w", str(repo.grid)], check=True)


def test_every_command_that_only_reads_works_on_a_read_only_grid(read_only: Repo) -> None:
    prefix = _as_unprivileged()
    before = read_only.snapshot()
    listing = sorted(p.relative_to(read_only.grid).as_posix() for p in read_only.grid.rglob("*"))
    env = {k: v for k, v in os.environ.items() if k != "GRID_AGENT_ID"}
    for args in READS:
        done = subprocess.run([*prefix, sys.executable, "-m", "gridgit", *args], cwd=read_only.path, env=env,
                              capture_output=True, text=True)  # fmt: skip
        assert done.returncode == 0, (args, done.stderr)
        assert "Traceback" not in done.stderr and "gridgit: error" not in done.stderr, (args, done.stderr)
        assert len([line for line in done.stderr.splitlines() if "read-only" in line]) <= 1, (args, done.stderr)
    assert read_only.snapshot() == before
    assert sorted(p.relative_to(read_only.grid).as_posix() for p in read_only.grid.rglob("*")) == listing
    found = subprocess.run([*prefix, sys.executable, "-m", "gridgit", "search", "readonly", "--json"],
                           cwd=read_only.path, env=env, capture_output=True, text=True)  # fmt: skip
    assert {h["kind"] for h in json.loads(found.stdout)["data"]["hits"]} == {"entry", "message"}
    assert "search index is built in memory" in found.stderr


def test_doctor_reports_a_read_only_grid_and_a_write_is_refused_cleanly(read_only: Repo) -> None:
    prefix = _as_unprivileged()
    env = {k: v for k, v in os.environ.items() if k != "GRID_AGENT_ID"}
    doctor = subprocess.run([*prefix, sys.executable, "-m", "gridgit", "doctor", "--json"], cwd=read_only.path,
                            env=env, capture_output=True, text=True)  # fmt: skip
    (writable,) = [f for f in json.loads(doctor.stdout)["data"]["findings"] if f["check"] == "writable"]
    assert writable["level"] == "warn" and "read-only" in writable["message"]
    write = subprocess.run([*prefix, sys.executable, "-m", "gridgit", "write", "-c", "discovery", "-t", "x",
                            "--content", "Found: no", "--agent", "executor-001"], cwd=read_only.path, env=env,
                           capture_output=True, text=True)  # fmt: skip
    assert write.returncode == 4 and "permission denied" in write.stderr and "Traceback" not in write.stderr
