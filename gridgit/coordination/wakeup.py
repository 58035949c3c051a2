"""Before an agent stops: is a message to it still unacknowledged? Then ask it to read it, a few times at most.

An agent tool whose stop hook can keep the agent going (Claude Code's Stop: `decision: block`
with a reason, https://code.claude.com/docs/en/hooks#stop) asks `reason` whether to. The
answer is the agent's unacknowledged messages, at most `messages.stop_asks` times per agent
and session (a counter in `.grid/events/cursors/wakeup/<agent>.json`, machine-local), so an
agent that will not ack is never held in a loop: after N asks it stops like any other. A
message the agent was told already (its ledger, gridgit.coordination.ledger) is named by its
id, not told again; one it was never told is told here, and the ledger says so.
"""

from __future__ import annotations

import json
from pathlib import Path

from gridgit.coordination import messages
from gridgit.model.permissions import check_agent_id
from gridgit.store import config, fileio, locks
from gridgit.store.commandline import said
from gridgit.store.layout import Layout

SESSIONS_KEPT = 50  # sessions whose counts an agent's file remembers (newest)
SHOWN = 5  # messages quoted in the reason; the rest are counted


def counter_path(layout: Layout, agent_id: str) -> Path:
    return layout.cursors_dir / "wakeup" / f"{check_agent_id(agent_id)}.json"


def reason(layout: Layout, agent_id: str, session_id: str | None) -> str:
    """Why AGENT_ID should not stop yet ('' when it may): its unacknowledged messages, asked at most N times."""
    waiting = messages.unacked_for(layout, agent_id)
    most = int(config.current(layout)["messages"]["stop_asks"])
    if not waiting or most <= 0:
        return ""
    path = counter_path(layout, agent_id)
    path.parent.mkdir(parents=True, exist_ok=True)
    key = session_id or ""
    with locks.locked(path):
        try:
            counts = json.loads(fileio.read_text(path)) if path.exists() else {}
        except ValueError:
            counts = {}
        counts = counts if isinstance(counts, dict) else {}
        value = counts.get(key)
        asked = value if isinstance(value, int) else 0
        if asked >= most:
            return ""
        counts.pop(key, None)
        counts[key] = asked + 1  # re-inserted last: the oldest sessions are the first dropped
        kept = dict(list(counts.items())[-SESSIONS_KEPT:])
        fileio.atomic_write(path, json.dumps(kept) + "\n", durable=False)
    # A message told before (the ledger) is named, not told again; one never told is news here.
    from gridgit.coordination import inbox
    from gridgit.coordination.ledger import MESSAGE

    known = inbox.ledger(layout, agent_id)
    shown = waiting[:SHOWN]
    lines = [f"- message {m.id} from {m.sender} (told earlier; `{said('ack', m.id)}` once read)"
             if known.knows(m.id) else f"- {m.summary()}" for m in shown]  # fmt: skip
    inbox.note_told(layout, agent_id, [m.id for m in shown if not known.knows(m.id)], session_id, "end", MESSAGE)
    if len(waiting) > SHOWN:
        lines.append(f"- … and {len(waiting) - SHOWN} more (`{said('inbox')}`)")
    return (
        f"gridgit: before you stop, {len(waiting)} message(s) to you are not acknowledged "
        f"(asking {asked + 1} of at most {most} times):\n" + "\n".join(lines) + "\n"
        f"Read each one, act on it or answer (`{said('send', to='SENDER', thread='ID', content='-')}`), "
        f"then `{said('ack', 'ID')}`."
    )
