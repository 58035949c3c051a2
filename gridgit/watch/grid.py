"""The watcher's .grid/ duties: validate changed files, re-index drifted scratchpads, sweep staleness.

It writes only through the same locked library functions commands use (`store.reindex`,
`state.update`), never rewrites a file it could not parse, and remembers the content hash
of every version it has handled, so its own writes (and repeated events) cost one read.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable
from typing import Any

from gridgit.errors import GridError
from gridgit.events import bus
from gridgit.store import clock
from gridgit.store.layout import PHASE_ID_RE, Layout
from gridgit.validation import rules, sources
from gridgit.watch.scope import GRID_SKIPPED_DIRS

log = logging.getLogger("gridgit.watch.watcher")

MAX_PROBLEMS_IN_EVENT = 10


class GridKeeper:
    """Keeps .grid/ honest while agents edit its files by hand."""

    def __init__(self, layout: Layout, on_state_change: Callable[[], None] | None = None) -> None:
        self.layout = layout
        self.on_state_change = on_state_change
        self.handled: dict[str, str] = {}
        self.reported_stale: set[str] = set()

    # ---- one changed file ---------------------------------------------------------------

    def process(self, rel: str, depth: int = 0) -> None:
        """Handle the current content of `.grid/REL` (a path that may be gone by now)."""
        path = self.layout.grid / rel
        if path.is_dir():
            return
        if not path.exists() and not path.is_symlink():
            self.handled.pop(rel, None)
            return
        if path.is_symlink():
            if self.handled.get(rel) != "symlink":
                self.handled[rel] = "symlink"
                self._report(rel, [rules.symlink_problem(self._display(rel))])
            return
        data = path.read_bytes()
        digest = hashlib.sha256(data).hexdigest()
        if self.handled.get(rel) == digest:
            return  # this exact content was handled already (our own write, or a repeated event)
        self.handled[rel] = digest
        if rel == "STATE.md" and self.on_state_change is not None:
            self.on_state_change()
        if not rules.is_validated(rel):
            return
        problems = rules.validate_bytes(rel, data, self._display(rel))
        drift = [p for p in problems if p.kind == rules.INDEX_DRIFT]
        others = [p for p in problems if p not in drift]
        if others:
            self._report(rel, others)
        elif drift and depth < 2:
            if self._reindex(rel):
                # Read back what we wrote (or what someone wrote since) and handle that version:
                # its hash is then known, so the event our own write causes is a no-op.
                self.process(rel, depth + 1)
        elif drift:
            log.error("%s: index still drifted after re-indexing twice; leaving it", self._display(rel))

    def _reindex(self, rel: str) -> bool:
        from gridgit.scratchpad import store

        phase_id = rel.split("/")[1]
        try:
            changed = store.reindex(self.layout, phase_id)
        except GridError as exc:
            # Changed again between our read and the lock: the next event brings the new text.
            log.warning("re-index of %s skipped: %s", self._display(rel), exc)
            self.handled.pop(rel, None)
            return False
        if changed:
            log.info("re-indexed %s (its index had drifted from the entries)", self._display(rel))
        return changed

    def _report(self, rel: str, problems: list[rules.Problem]) -> None:
        first = problems[0]
        log.warning("%s: %d problem(s), first: %s", self._display(rel), len(problems), first)
        payload: dict[str, Any] = {
            "path": first.path,
            "line": first.line,
            "message": first.message,
            "fix": first.fix,
            "count": len(problems),
            "problems": [p.to_dict() for p in problems[:MAX_PROBLEMS_IN_EVENT]],
            "source": "watcher",
        }
        bus.emit(self.layout, "validation_failed", payload)

    def _display(self, rel: str) -> str:
        return sources.display(self.layout, self.layout.grid / rel)

    # ---- start-up pass ------------------------------------------------------------------

    def full_pass(self) -> int:
        """Validate every .grid/ file gridgit validates (re-indexing drifted scratchpads); returns the count."""
        count = 0
        if not self.layout.grid.is_dir():
            return 0
        for path in sorted(self.layout.grid.rglob("*")):
            rel = path.relative_to(self.layout.grid).as_posix()
            if any(p in GRID_SKIPPED_DIRS for p in rel.split("/")) or not rules.is_validated(rel):
                continue
            try:
                self.process(rel)
                count += 1
            except Exception:
                log.exception("start-up validation of %s failed", rel)
        return count

    # ---- staleness sweep ----------------------------------------------------------------

    def sweep(self) -> list[str]:
        """Emit `agent_stale` once per newly stale agent of the current phase; returns those agents."""
        from gridgit.coordination import heartbeat
        from gridgit.model import state

        try:
            current = state.read(self.layout)
        except GridError as exc:
            log.warning("staleness sweep skipped: %s", exc)
            return []
        phase_id = (current.get("position") or {}).get("phase_id")
        if not phase_id or not PHASE_ID_RE.match(str(phase_id)):
            return []
        if not self.layout.scratchpad(phase_id).exists():
            return []
        try:
            report = heartbeat.stale_agents(self.layout, phase_id)
        except GridError as exc:
            log.warning("staleness sweep skipped: %s", exc)
            return []
        stale = {str(r["agent"]): r for r in report if r.get("stale")}
        recorded = {
            str(w.get("agent"))
            for w in current.get("warnings") or []
            if isinstance(w, dict) and w.get("type") == "agent_stale"
        }
        newly = [a for a in stale if a not in self.reported_stale and a not in recorded]
        recovered = [a for a in recorded if a not in stale]
        self.reported_stale = set(stale)
        if newly or recovered:
            self._record_warnings([stale[a] for a in newly], recovered, phase_id)
        for agent in newly:
            row = stale[agent]
            bus.emit(
                self.layout,
                "agent_stale",
                {
                    "agent": agent,
                    "phase_id": phase_id,
                    "last_heartbeat": row.get("last_heartbeat"),
                    "minutes_since": row.get("minutes_since"),
                    "source": "watcher",
                },
            )
            log.info("agent %s is stale (last heartbeat %s)", agent, row.get("last_heartbeat") or "never")
        return newly

    def _record_warnings(self, newly: list[dict[str, Any]], recovered: list[str], phase_id: str) -> None:
        from gridgit.model import state

        now = clock.now_iso()
        added = [
            {
                "level": "warning",
                "type": "agent_stale",
                "agent": str(row["agent"]),
                "message": f"agent {row['agent']} is stale in phase {phase_id} "
                f"(last heartbeat: {row.get('last_heartbeat') or 'never'})",
                "source": "watcher",
                "timestamp": now,
            }
            for row in newly
        ]

        def change(st: dict[str, Any]) -> dict[str, Any]:
            # Computed under the STATE lock from the current list: a warning written by
            # someone else meanwhile is kept.
            kept = [
                w
                for w in st.get("warnings") or []
                if not (isinstance(w, dict) and w.get("type") == "agent_stale" and str(w.get("agent")) in recovered)
            ]
            return {"warnings": kept + added}

        try:
            state.update_with(self.layout, change, "system")
        except GridError as exc:
            log.warning("could not record stale agents in STATE.md: %s", exc)
