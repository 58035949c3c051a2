"""The file changes of the conflict window, indexed once: which agents changed a path (or a
path it was renamed from or to) lately.

One backward read of the event log builds the index; each path is then a few set lookups, so
checking the 5,000 paths of one commit costs one read of the window, not 5,000.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from gridgit.coordination import presence
from gridgit.events import lines, scan
from gridgit.model.permissions import UNKNOWN_AGENT
from gridgit.store import clock
from gridgit.store.layout import Layout

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


# Paths asked about up to which another clone's file is searched for them before it is parsed.
_NEEDLES = 64


class RecentChanges:
    """`file_modified` events of the window (RECENT, newest first), with renames linked both ways.

    MOVES adds (old_path, path) links that are not in RECENT yet, such as the renames of the
    batch about to be recorded.
    """

    def __init__(
        self, recent: list[dict[str, Any]], moves: Iterable[tuple[str, str]] = (), bytes_read: int = 0
    ) -> None:
        self.bytes_read = bytes_read
        self.events = recent[::-1]  # oldest first: conflicts are listed in the order they happened
        self._by_path: dict[str, list[int]] = defaultdict(list)
        self._parent: dict[str, str] = {}
        for index, event in enumerate(self.events):
            payload = event["payload"]
            for key in ("path", "old_path"):
                name = payload.get(key)
                if isinstance(name, str):
                    self._by_path[name].append(index)
            old, new = payload.get("old_path"), payload.get("path")
            if payload.get("operation") == "moved" and isinstance(old, str) and isinstance(new, str):
                self._link(old, new)
        for old, new in moves:
            self._link(old, new)
        self._members: dict[str, set[str]] = defaultdict(set)
        for name in self._parent:
            self._members[self._root(name)].add(name)

    @classmethod
    def read(
        cls,
        layout: Layout,
        window_minutes: float,
        moves: Iterable[tuple[str, str]] = (),
        paths: Iterable[str] | None = None,
    ) -> RecentChanges:
        """The `file_modified` events of the last WINDOW_MINUTES: the log's, read backwards from its end, and
        the other clones' edits their files told (gridgit.coordination.presence).

        The read stops at the window: its cost follows the window, not the length of the log. PATHS (the
        paths the caller asks about, when it knows them): another clone's file that names none of them nor
        any name a rename links to them, and renames nothing, is not parsed (50 clones' files, each up to
        256 edits, on every after-edit hook).
        """
        stats = lines.ReadStats()
        since = clock.now_seconds() - window_minutes * 60
        recent = list(scan.read_backwards(layout, since=since, types=("file_modified",), stats=stats))
        files = presence.peers(layout, since)
        if not files:
            return cls(recent, moves, stats.bytes_read)
        renaming = [raw for raw in files if presence.MOVED in raw]
        others = [e for raw in renaming for e in presence.edits_of(raw, since)]
        rest = [raw for raw in files if presence.MOVED not in raw]
        asked = list(paths) if paths is not None else []
        if rest and 0 < len(asked) <= _NEEDLES:  # a commit of 5,000 files: parsing is cheaper than searching
            linked = cls([*recent, *others], moves)
            needles = [presence.needle(name) for path in asked for name in linked.names(path)]
            rest = [raw for raw in rest if any(n in raw for n in needles)]
        others += [e for raw in rest for e in presence.edits_of(raw, since)]
        if others:  # newest first, as the log reads; an event the log holds too (`events.commit`) once
            seen = {e.get("id") for e in recent}
            recent += [e for e in others if e["id"] not in seen]
            recent.sort(key=lambda e: str(e.get("timestamp")), reverse=True)
        return cls(recent, moves, stats.bytes_read)

    def _root(self, name: str) -> str:
        parent = self._parent.get(name, name)
        while parent != name:
            grand = self._parent.get(parent, parent)
            self._parent[name] = grand  # path halving keeps every lookup short
            name, parent = parent, grand
        return name

    def _link(self, a: str, b: str) -> None:
        for name in (a, b):
            self._parent.setdefault(name, name)
        root_a, root_b = self._root(a), self._root(b)
        if root_a != root_b:
            self._parent[root_a] = root_b

    def names(self, path: str) -> set[str]:
        """PATH and every path linked to it by renames, in either direction, however many hops."""
        if path not in self._parent:
            return {path}
        return set(self._members[self._root(path)])

    def recorded(self, path: str, blob: str | None, agent_id: str) -> bool:
        """Whether AGENT_ID's newest change of PATH here is an agent hook's record of BLOB: the same edit (for
        `unknown`, anyone's hook record of BLOB). Another agent's change since does not make it another edit;
        a record of the git hooks' own (a commit's) is not one: the next commit of that content changed
        something else (its mode)."""
        if not blob:
            return False
        for index in reversed(self._by_path.get(path, ())):
            payload = self.events[index]["payload"]
            if payload.get("path") != path or agent_id not in (UNKNOWN_AGENT, payload.get("agent")):
                continue
            same = bool(payload.get("source") == "agent-hook" and payload.get("blob") == blob)
            if same or agent_id != UNKNOWN_AGENT:
                return same
        return False

    def by_others(self, names: set[str], agent_id: str) -> list[dict[str, Any]]:
        """The spec's conflict items: other identified agents' changes of any of NAMES, oldest first.

        An unattributed change (a commit or edit with no GRID_AGENT_ID) cannot be told apart
        from the checking agent's own: only two identified agents make a write conflict.
        """
        if agent_id == UNKNOWN_AGENT:
            return []
        hits = sorted({i for name in names for i in self._by_path.get(name, ())})
        found = []
        for index in hits:
            event = self.events[index]
            payload = event["payload"]
            other = payload.get("agent")
            if other in (agent_id, UNKNOWN_AGENT) or not isinstance(other, str):
                continue
            found.append(
                {
                    "conflicting_agent": other,
                    "operation": payload.get("operation", "modified"),
                    "timestamp": event["timestamp"],
                    "path": payload.get("path"),
                    "event_id": event["id"],
                    "source": "file_modified",
                    **({"clone": payload["clone"]} if payload.get("clone") else {}),
                }
            )
        return found
