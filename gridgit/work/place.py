"""Where work belongs: the phases gridgit knows (STATE's definitions and the phase folders), and a block's phase."""

from __future__ import annotations

from typing import Any

from gridgit.errors import BadInput, NotFound
from gridgit.model import state
from gridgit.store.layout import PHASE_ID_RE, Layout, check_phase_id
from gridgit.work.blockfile import check_block_id


def phase_ids(layout: Layout, st: dict[str, Any] | None = None) -> list[str]:
    """Every phase STATE defines or that has a folder, in order."""
    st = state.read(layout) if st is None else st
    defined = [str(d.get("id")) for d in (st.get("phases") or {}).get("definitions") or [] if isinstance(d, dict)]
    return sorted({p for p in defined if PHASE_ID_RE.match(p)} | set(layout.phase_ids()))


def check_phase_known(layout: Layout, phase: str, st: dict[str, Any] | None = None) -> str:
    """PHASE when STATE defines it or it has a folder (errors.NotFound otherwise)."""
    if check_phase_id(phase) not in phase_ids(layout, st):
        raise NotFound(f"unknown phase {phase}: not in STATE.md and no .grid/phases/{phase}/")
    return phase


def resolve_phase(layout: Layout, block_id: str, phase: str | None = None, st: dict[str, Any] | None = None) -> str:
    """The phase of BLOCK_ID: the one whose number is its first two digits (PHASE when given, which must agree)."""
    number = check_block_id(block_id)[:2]
    if phase:
        known_phase = check_phase_known(layout, phase, st)  # an unknown phase is not found, like everywhere
        if known_phase[:2] != number:
            raise BadInput(f"block {block_id} belongs to phase {number}, not to {phase}")
        return known_phase
    known = [p for p in phase_ids(layout, st) if p[:2] == number]
    if not known:
        raise NotFound(f"no phase numbered {number} for block {block_id} (`gridgit phase list`)")
    if len(known) > 1:
        raise BadInput(f"phases {', '.join(known)} share the number {number}: pass --phase")
    return known[0]
