"""What one clone tells the others of its agents' edits: `.grid/clones/<clone id>.json`, in the shared history.

The event log is a machine-local bus; what conflict detection needs from another clone travels in
a small file per clone, written only by its own clone (so two clones never change one file) at
every snapshot (so a sync carries it):

```json
{"version": 1, "clone": "c-3f9a0b1c2d4e",
 "files": [{"id": "<event id>", "at": "2026-03-01T10:00:00Z", "agent": "executor-001",
            "operation": "modified", "path": "src/a.py"}]}
```

`files`: the clone's `file_modified` events of the last RETAIN_WINDOWS conflict windows, at most
MAX_FILES (the newest): bounded, not the log. Conflict detection adds the other clones' to the
window it reads (gridgit.coordination.recent), and a merge that brings some checks them against
this clone's own edits at once (gridgit.coordination.crossing). A clone with no edit to tell
writes no file (or empties the one it wrote).

With `events.commit` on, the event log itself travels and `files` stays empty. A peer's file
passes the gate of what arrives (gridgit.history.peers): an event whose path is not one line of
repository-relative text is left out, as a local path would be refused.
"""

from __future__ import annotations

import json
import os

from gridgit.store import clock, fileio

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from gridgit.store.layout import Layout

FOLDER = "clones"
VERSION = 1
RETAIN_WINDOWS = 2  # the edits a clone tells: the last two conflict windows (a sync every window is plenty)
MAX_FILES = 256
_OPERATIONS = ("created", "modified", "deleted", "moved")
_NOBODY = ("unknown", "system", None)


def path(layout: Layout, clone: str) -> str:
    return os.path.join(layout.grid, FOLDER, f"{clone}.json")


def _read(file: str) -> dict[str, Any] | None:
    try:
        with open(file, "rb") as handle:
            data = json.loads(handle.read())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def export(layout: Layout) -> bool:
    """Write this clone's file from its event log; True when it changed (none is made with nothing to tell).

    Called by the snapshot, under the Blackboard's lock held exclusive.
    """
    from gridgit.store.clone import clone_id
    from gridgit.store.gitignore import commits_events

    clone = clone_id(layout)
    target = path(layout, clone)
    before = _read(target) or {}
    edits = _recent_edits(layout, _window(layout) * RETAIN_WINDOWS)
    files = [] if commits_events(layout) else edits
    record = {"version": VERSION, "clone": clone, "files": files}
    if record == before or (not files and not before):
        return False
    from pathlib import Path

    os.makedirs(os.path.dirname(target), exist_ok=True)
    fileio.atomic_write(Path(target), json.dumps(record, indent=1, ensure_ascii=False) + "\n", durable=False)
    return True


def _window(layout: Layout) -> float:
    from gridgit.errors import GridError
    from gridgit.store import config

    try:
        return float(config.value(layout, "conflicts.window_minutes"))
    except GridError:  # a broken config.json is damage the snapshot reports; the default window meanwhile
        return float(config.defaults()["conflicts"]["window_minutes"])


def _recent_edits(layout: Layout, minutes: float) -> list[dict[str, Any]]:
    """This clone's `file_modified` events of the last MINUTES, oldest first, the newest MAX_FILES of them."""
    from gridgit.events import scan

    since = clock.now_seconds() - minutes * 60
    found = []
    for event in scan.read_backwards(layout, since=since, types=("file_modified",)):
        payload = event.get("payload") or {}
        if not isinstance(payload.get("path"), str) or payload.get("agent") in _NOBODY:
            continue  # an edit nobody is named for conflicts with no one (gridgit.coordination.recent)
        item = {"id": event["id"], "at": event["timestamp"], "agent": payload["agent"],
                "operation": payload.get("operation", "modified"), "path": payload["path"]}  # fmt: skip
        if isinstance(payload.get("old_path"), str):
            item["old_path"] = payload["old_path"]
        if edit_problem(item) is not None:
            continue  # a file name no clone would take from a peer (a line break, a `\xNN` byte): told to none
        found.append(item)
        if len(found) == MAX_FILES:
            break
    return found[::-1]


# ---- the other clones' ----------------------------------------------------------------------------


def peers(layout: Layout, since: float = 0.0) -> list[bytes]:
    """Every other clone's file as bytes, of those written here since SINCE (seconds): a file that arrived before
    it holds no edit after it (a clone writes an edit after making it, and a merge here after that), so it is not
    read. The after-edit hook asks on every edit."""
    folder = os.path.join(layout.grid, FOLDER)
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return []
    from gridgit.store.clone import clone_id

    mine = f"{clone_id(layout)}.json"
    found = []
    for name in names:
        file = os.path.join(folder, name)
        if not name.endswith(".json") or name == mine:
            continue
        try:
            if since and os.stat(file).st_mtime < since:
                continue
            with open(file, "rb") as handle:
                found.append(handle.read())
        except OSError:
            continue
    return found


MOVED = b'"moved"'  # how a clone's file spells a rename (json.dumps): a file without it links no names


def needle(path: str) -> bytes:
    """PATH as a clone's file spells it (json.dumps, ensure_ascii off): a file without it tells no edit of PATH."""
    return json.dumps(path, ensure_ascii=False).encode("utf-8")


def edits_of(raw: bytes, since: float) -> list[dict[str, Any]]:
    """The edits since SINCE (seconds) one clone's file RAW tells, as `file_modified` events (payload `clone`
    names theirs); a file that does not read tells none (the gate reported it)."""
    try:
        data = json.loads(raw)
    except ValueError:
        return []
    if not isinstance(data, dict):
        return []
    cutoff, clone = clock.iso(since), str(data.get("clone"))
    found = data.get("files")
    items: list[Any] = found if isinstance(found, list) else []
    return [as_event(item, clone) for item in items if isinstance(item, dict) and str(item.get("at")) >= cutoff]


def as_event(item: dict[str, Any], clone: str) -> dict[str, Any]:
    payload = {k: item[k] for k in ("path", "agent", "operation", "old_path") if k in item}
    return {"id": item.get("id"), "type": "file_modified", "timestamp": item.get("at"),
            "payload": {**payload, "clone": clone}}  # fmt: skip


# ---- what a peer's file may hold ------------------------------------------------------------------


def problems(text: str, name: str) -> list[str]:
    """Why TEXT is not a clone's file gridgit would write as clones/NAME: [] when it is."""
    from gridgit.coordination.claimfile import is_clone_id

    try:
        data = json.loads(text)
    except ValueError as exc:
        return [f"not JSON ({exc})"]
    if not isinstance(data, dict) or not isinstance(data.get("files", []), list):
        return ["not a clone's file: a JSON object with `clone` and `files`"]
    found = []
    if not is_clone_id(data.get("clone")) or name != f"{data.get('clone')}.json":
        found.append(f"`clone` must be this file's name, c-<12 hex digits> (clones/{name})")
    if set(data) - {"version", "clone", "files"}:
        found.append(f"unknown field {sorted(set(data) - {'version', 'clone', 'files'})[0]!r}")
    found += [f"edit {n + 1}: {why}" for n, item in enumerate(data.get("files") or []) if (why := edit_problem(item))]
    return found


def _agent_ok(agent: Any) -> bool:
    from gridgit.errors import BadInput
    from gridgit.model.permissions import check_agent_token

    try:
        check_agent_token(agent)
    except BadInput:
        return False
    return True


def edit_problem(item: Any) -> str | None:
    """Why one edit of a clone's file is not one gridgit would tell (its path as a local path is checked)."""
    from gridgit.coordination.claimfile import is_time, relative_problem

    if not isinstance(item, dict) or set(item) - {"id", "at", "agent", "operation", "path", "old_path"}:
        return "an edit is an object of id, at, agent, operation, path (old_path)"
    if not isinstance(item.get("id"), str) or not is_time(item.get("at")) or not _agent_ok(item.get("agent")):
        return "an edit needs its event id, a UTC time and an agent id"
    if item.get("operation") not in _OPERATIONS:
        return f"operation {str(item.get('operation'))[:20]!r} is not one of {', '.join(_OPERATIONS)}"
    for key in ("path", "old_path"):
        if key in item and (why := relative_problem(item[key], key)):
            return why
    return None


def keep_valid(text: str) -> tuple[str, list[str]]:
    """TEXT (a peer's clone file) without the edits that fail `edit_problem`, and why each was left out."""
    data = json.loads(text)
    kept, reasons = [], []
    for item in data.get("files") or []:
        why = edit_problem(item)
        if why:
            reasons.append(f"an edit of {str(item.get('path') if isinstance(item, dict) else '?')[:60]!r}: {why}; "
                           "left out")  # fmt: skip
        else:
            kept.append(item)
    if not reasons:
        return text, []
    return json.dumps({**data, "files": kept}, indent=1, ensure_ascii=False) + "\n", reasons


def merge(ours: str, theirs: str) -> str:
    """Two versions of one clone's file (its own clone writes it: two only when two clones share an id, a copied
    repository): edits united by event id (the newest MAX_FILES)."""
    a, b = json.loads(ours), json.loads(theirs)
    edits = {item["id"]: item for item in [*(a.get("files") or []), *(b.get("files") or [])]}
    files = sorted(edits.values(), key=lambda e: (str(e.get("at")), str(e.get("id"))))[-MAX_FILES:]
    record = {"version": VERSION, "clone": min(str(a.get("clone")), str(b.get("clone"))), "files": files}
    return json.dumps(record, indent=1, ensure_ascii=False) + "\n"
