"""Finding 11 of issue 39: completing a phase whose folder was lost brings it back first.

On the landed main, `rm -rf .grid/phases/01-foundation` then `gridgit phase complete` said "0
archived, 0 promoted" and marked the phase complete; `restore --all` then brought its entries back
live into a completed phase, and `validate` failed; `doctor` said "ok damage" while its layout check
failed.
"""

from __future__ import annotations

import json
import shutil

from gridgit.phases import lifecycle
from gridgit.store.layout import Layout
from tests.conftest import Repo


def _written(repo: Repo) -> None:
    for n in range(3):
        repo.gridgit("write", "-c", "decision", "-t", f"d{n}", "--content", f"decided {n}", "--tags", "promote",
                     agent="executor-001")  # fmt: skip
    repo.gridgit("snapshot")


def test_completing_a_phase_whose_folder_was_removed_restores_it_first(repo: Repo) -> None:
    _written(repo)
    shutil.rmtree(repo.grid / "phases" / "01-foundation")
    doctor = json.loads(repo.gridgit("doctor", "--json", check=False).stdout)["data"]["findings"]
    assert not any(f["check"] == "damage" and f["level"] == "ok" for f in doctor)  # main: "ok" beside a failed layout
    done = repo.gridgit("phase", "complete", "01-foundation", agent="mc")
    assert "restored first: .grid/phases/01-foundation/scratchpad.md" in done.stdout
    assert "3 entries archived" in done.stdout  # main: 0 archived, 0 promoted
    assert repo.gridgit("validate").returncode == 0
    repo.gridgit("restore", "--all")
    assert repo.gridgit("validate").returncode == 0
    archived = (repo.grid / "phases/01-foundation/scratchpad_archived.md").read_text(encoding="utf-8")
    assert all(f"decided {n}" in archived for n in range(3))


def test_entries_restored_into_a_phase_completed_meanwhile_are_settled(repo: Repo) -> None:
    _written(repo)
    shutil.rmtree(repo.grid / "phases" / "01-foundation")
    lifecycle.complete_phase(Layout.find(repo.path), "01-foundation", agent_id="mc")  # a completion that did not look
    repo.gridgit("restore", "--all")
    assert repo.gridgit("validate").returncode == 0  # main: "live entries in completed phase"
    archived = (repo.grid / "phases/01-foundation/scratchpad_archived.md").read_text(encoding="utf-8")
    assert all(f"decided {n}" in archived for n in range(3))
