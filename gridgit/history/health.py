"""What is wrong with the Blackboard's history right now, kept machine-local for `status` and `doctor`.

`<git common dir>/gridgit/health.json` holds one list of findings per section, each written
by the part of gridgit that found them:

- `snapshot`: the damage the last snapshot kept out of the grid ref, the files it redacted
  (gridgit.history.staging);
- `peers`: files of fetched grid commits left out of a merge (gridgit.history.peers);
- `recording`: post-commit work that failed and waits to be retried (gridgit.git.recording).

`note` replaces a section and returns the findings that were not there before, so each is
announced once (one warning line, one event) while `status` and `doctor` show it for as long
as it lasts. Its lock is a leaf of the lock order: it is taken under the Blackboard's lock.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from gridgit.store import fileio, locks
from gridgit.store.layout import Layout

SECTIONS = ("snapshot", "peers", "recording")
MAX_FINDINGS = 200  # per section: a Blackboard broken everywhere is still a small file


def path(layout: Layout) -> Path:
    return layout.git_common / "gridgit" / "health.json"


def read(layout: Layout) -> dict[str, list[dict[str, Any]]]:
    """Every section's findings (a section nobody wrote, or an unreadable file, has none)."""
    try:
        data = json.loads(path(layout).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        data = {}
    if not isinstance(data, dict):
        data = {}
    return {s: [f for f in data.get(s) or [] if isinstance(f, dict)] for s in SECTIONS}


def _key(finding: dict[str, Any]) -> tuple[str, ...]:
    return tuple(str(finding.get(k, "")) for k in ("path", "kind", "commit"))


def note(layout: Layout, section: str, findings: list[dict[str, Any]], add: bool = False) -> list[dict[str, Any]]:
    """SECTION's findings become FINDINGS (with ADD: FINDINGS join them); the ones it did not hold yet."""
    target = path(layout)
    if not findings and not target.exists():
        return []
    target.parent.mkdir(parents=True, exist_ok=True)
    with locks.locked(target):
        current = read(layout)
        before = {_key(f) for f in current[section]}
        fresh = [f for f in findings if _key(f) not in before]
        merged = [*current[section], *fresh] if add else findings
        if merged != current[section]:
            current[section] = merged[-MAX_FINDINGS:]
            fileio.atomic_write(target, json.dumps(current, indent=1, ensure_ascii=False) + "\n", durable=False)
    return fresh
