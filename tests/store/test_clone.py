"""This clone's id: made once, the same for every process that asks at once."""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import Repo

_ASK = (
    "from gridgit.store.clone import clone_id; from gridgit.store.layout import Layout; print(clone_id(Layout.find()))"
)


def test_processes_asking_at_once_share_one_id(repo: Repo) -> None:
    """`git config` refuses a second writer while `.git/config.lock` is held: the first takes must not fail on it."""
    procs = [
        subprocess.Popen([sys.executable, "-c", _ASK], cwd=repo.path, text=True, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
        for _ in range(12)
    ]  # fmt: skip
    answers = [(proc.communicate(timeout=60), proc.returncode) for proc in procs]
    assert [code for _, code in answers] == [0] * 12, [err for (_, err), _ in answers]
    assert {out.strip() for (out, _), _ in answers} == {repo.git("config", "gridgit.cloneid").strip()}
