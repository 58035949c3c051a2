"""STATE's `mode`: what waits for a person (Master Control) before it happens (docs/serve.md, "The mode").

| mode | a phase completes | a block an agent plans |
|---|---|---|
| `autopilot` | when `phase complete` or a `Grid-Phase-Complete:` commit asks | planned: in the queue at once |
| `guided` | only when Master Control approves it (`gridgit approve phase`); asking records the request | planned |
| `hands_on` | only when approved, as in `guided` | proposed: offered by `ready`/`take` once approved (`gridgit approve block`) |

Master Control's own plans need no approval, and approving is Master Control's alone. Outside
`hands_on`, a block still proposed (from a time the mode was `hands_on`) is offered like a planned one:
the mode decides what waits, and nobody waits for an approval no one is asked for.
"""

from __future__ import annotations

from gridgit.model.state_schema import MODES

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

DEFAULT = "autopilot"
# Agent types whose word is the person's: they approve, and what they plan or complete needs no approval.
APPROVERS = frozenset({"mc", "system"})


def mode_of(st: dict[str, Any]) -> str:
    """STATE's mode (autopilot when it has none)."""
    value = st.get("mode")
    return value if value in MODES else DEFAULT


def phase_waits(st: dict[str, Any]) -> bool:
    """Whether completing a phase waits for Master Control's approval."""
    return mode_of(st) in ("guided", "hands_on")


def proposals_wait(st: dict[str, Any]) -> bool:
    """Whether proposed blocks wait for approval (are not offered) and agents' new blocks are proposed."""
    return mode_of(st) == "hands_on"


def proposes(st: dict[str, Any], planner_type: str) -> bool:
    """Whether a block a PLANNER_TYPE agent plans now starts as proposed."""
    return proposals_wait(st) and planner_type not in APPROVERS
