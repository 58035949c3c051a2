"""What each of gridgit's agent events does, whatever the tool: the answer is a Reply.

- after-edit: one `file_modified` per work-tree file (repository-relative, attributed, with the
  tool and session, and the git blob id of what it holds now, by which the pre-commit hook knows
  the same edit), the write-conflict check, and on a new conflict a message for the model;
  an edited `.grid/` file is validated and what is now invalid is told;
- before-edit: an edit of `.grid/` itself is steered to the gridgit command that does it safely
  (`agents.grid_edits`); another agent's live claim on a file asks or denies (`claims.on_edit`),
  in a decision the tool enforces;
- session-start: register the agent, then what is new for it and its context pack;
- prompt: its inbox (each event once, through its durable cursor) and messages kept for it;
- every channel that reaches the model follows the agent's ledger (gridgit.coordination.ledger):
  a message, conflict or notice is news once, whichever channel and session told it first;
- after any of them, where the tool can say it mid-turn: the urgent part of the inbox
  (messages to the agent, others' conflicts and claims on its files, answers), each once;
- end: a heartbeat (STATE's `last_heartbeat`), the usage new in the session's transcript, and where the tool's stop hook can keep the
  agent going, a reminder of its unacknowledged messages (a few times at most).
"""

from __future__ import annotations

import os
from pathlib import Path

from gridgit.agents import identity
from gridgit.agents.answer import Reply
from gridgit.agents.capabilities import Capability
from gridgit.agents.identity import Identity
from gridgit.agents.payload import Skip
from gridgit.agents.tool import Edit
from gridgit.errors import BadInput, GridError
from gridgit.store.commandline import said
from gridgit.store.layout import Layout
from gridgit.store.record import FrozenRecord, Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

INBOX_LIMIT = 10  # items a prompt event shows; the rest wait for the next one
BLOB_BYTES = 8 * 1024 * 1024  # a bigger file gets no blob id: its commit records it again
PROMPT_CHARS = 2_000  # "short additional context"


def grid_commands() -> tuple[tuple[str, str], ...]:
    """What to use instead of editing a .grid/ file by hand, by its path inside .grid/ (first match wins)."""
    return (
        ("STATE.md", f"`{said('state update', set='FIELD=VALUE')}` (a phase: `{said('phase start', 'PHASE_ID')}`, "
                     f"`{said('phase complete', 'PHASE_ID')}`)"),
        ("LEARNINGS.md", f"`{said('promote')}` at a phase's end (`{said('learnings')}` to read them)"),
        ("CHECKPOINT.md", f"`{said('conflicts resolve', 'PATH')}` once the conflict is settled"),
        ("claims.json", f"`{said('claim', 'PATH')}` and `{said('release', 'PATH')}`"),
        ("config.json", "asking the user: config.json is the team's settings"),
        ("budget.json", f"`{said('budget add', tokens_in='N', tokens_out='N')}` to report usage "
                        f"(`{said('budget')}` to read it)"),
        ("memory/", f"`{said('memory show', 'NAME')}` to read it (a memory agent writes with "
                    f"`{said('memory write', 'NAME', '-')}`)"),
        ("messages/", f"`{said('send', to='AGENT', content='TEXT')}` and `{said('ack', 'ID')}`"),
        ("phases/", f"`{said('write', category='CATEGORY', topic='TOPIC', content='TEXT')}` for a new entry, "
                    f"`{said('resolve', 'ID')}` to close one"),
        ("events/", f"`{said('events emit', 'TYPE')}` (`{said('touch', 'PATH')}` for a file you changed)"),
    )  # fmt: skip


class Change(FrozenRecord):
    """An Edit as the repository knows it: repo-relative paths, and the file's absolute path (SOURCE)."""

    FIELDS = ("path", "operation", "old_path", "source")
    __slots__ = FIELDS

    def __init__(self, path: str, operation: str, old_path: str | None, source: str = "") -> None:
        self.path = path
        self.operation = operation
        self.old_path = old_path
        self.source = source


class Changes(Record):
    """What an edit touched: work-tree files (CHANGES) and Blackboard files (GRID, paths inside .grid/)."""

    FIELDS = ("changes", "grid")
    __slots__ = FIELDS

    def __init__(self, changes: list[Change], grid: list[str]) -> None:
        self.changes = changes
        self.grid = grid


def _absolute(cwd: Path, name: str) -> Path:
    """NAME (absolute, or relative to CWD) as a path, past the one gate of paths (usertext.check_path)."""
    from gridgit.store import usertext

    try:
        usertext.check_path(name)
    except BadInput as exc:
        raise Skip(str(exc)) from None
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        raise Skip(f"a file path that is not UTF-8: {name!r}") from None
    path = Path(name)
    return path if path.is_absolute() else cwd / path


def _in_grid(layout: Layout, path: Path) -> str | None:
    """PATH's place inside .grid/ (posix), or None when it is not in it."""
    try:
        absolute = path.parent.resolve() / path.name
        return absolute.relative_to(layout.grid).as_posix() if absolute != layout.grid else "."
    except (OSError, ValueError):
        return None


def _relative(layout: Layout, path: Path) -> str | None:
    """PATH as a repo-relative path; None outside the work tree or in .git."""
    try:
        rel = layout.relative(path)
    except (GridError, OSError, ValueError):
        return None
    return None if rel == ".git" or rel.startswith(".git/") else rel


def changes(layout: Layout, cwd: Path, edits: list[Edit]) -> Changes:
    """The edits inside the repository, repo-relative (a linked worktree's path is its path in the repository)."""
    found: list[Change] = []
    grid: list[str] = []
    for edit in edits:
        path = _absolute(cwd, edit.path)
        inside = _in_grid(layout, path)
        if inside is not None:
            grid.append(inside)
            continue
        rel = _relative(layout, path)
        if rel is None:
            continue
        old = _relative(layout, _absolute(cwd, edit.old_path)) if edit.old_path else None
        operation = edit.operation if edit.operation != "moved" or old else "created"
        found.append(Change(rel, operation, old, str(path)))
    return Changes(list(dict.fromkeys(found)), list(dict.fromkeys(grid)))


def grid_advice(inside: str) -> str:
    """How to change the .grid/ file INSIDE (a path inside .grid/) without editing it by hand."""
    way = next(
        (how for prefix, how in grid_commands() if inside.startswith(prefix)), "gridgit's commands (`gridgit --help`)"
    )
    return (
        f"gridgit: .grid/{inside} is the agents' shared memory, which gridgit keeps valid, locked and recorded; "
        f"change it with {way} instead of editing the file (config.json agents.grid_edits)."
    )


def conflict_message(result: Any) -> str:
    """What the model is told: the other agents, the file, when, and what to do."""
    seen = "; ".join(
        f"{c['conflicting_agent']} {c['operation']} {c['path']} at {c['timestamp']}" for c in result.conflicts[-3:]
    )
    return (
        f"gridgit: write conflict on {result.path}: {seen} (window {result.window_minutes:g} min). "
        "Stop editing it and coordinate: read .grid/CHECKPOINT.md, agree with them in the phase scratchpad "
        f"(`{said('write', category='decision', topic='TOPIC', content='TEXT')}`), then run "
        f"`{said('conflicts resolve', result.path)}`."
    )


def _validated(layout: Layout, grid: list[str]) -> list[str]:
    """What the edit left invalid in the .grid/ files GRID, and how to put it right."""
    if not grid:
        return []  # the validators not even imported: most edits are not of .grid/
    from gridgit.validation import sources

    told: list[str] = []
    for inside in grid:
        try:
            problems = sources.validate_worktree(layout, [str(layout.grid / inside)])
        except GridError as exc:
            problems = []
            told.append(f"gridgit: .grid/{inside}: {exc}")
        told += [f"gridgit: {p} — the Blackboard is now invalid there" for p in problems]
        told.append(grid_advice(inside))
    return told


def blob_id(path: str) -> str | None:
    """The git blob id of the file at PATH as it is now (what `git add` would stage, with no filter
    configured), or None: gone, unreadable or past BLOB_BYTES. The pre-commit hook knows the same
    edit by it (gridgit.coordination.conflicts.record_modifications `same_edit`)."""
    try:  # the interpreter's own: hashlib's OpenSSL costs a hook ~2.5 ms to import
        from _sha1 import sha1  # type: ignore[import-not-found]
    except ImportError:  # pragma: no cover - an interpreter built without it
        from hashlib import sha1
    try:
        if os.path.getsize(path) > BLOB_BYTES:
            return None
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError:
        return None
    digest: str = sha1(b"blob %d\0" % len(data) + data).hexdigest()
    return digest


def after_edit(layout: Layout, ident: Identity, tool: str, found: Changes) -> list[str]:
    """Record FOUND's work-tree changes and check them; the messages for the model (conflicts, invalid files)."""
    from gridgit.coordination import conflicts

    told: list[str] = []
    if found.changes:
        extra = {"tool": tool, "session_id": ident.session_id, "source": "agent-hook"}
        if ident.subagent:
            extra["subagent"] = ident.subagent
        changes = [
            conflicts.Modification(
                c.path, c.operation, c.old_path, None if c.operation == "deleted" else blob_id(c.source)
            )
            for c in found.changes
        ]
        results = conflicts.record_modifications(layout, changes, ident.agent_id, check=True, extra=extra)
        new = [r.conflict for r in results if r.conflict is not None and r.conflict.has_conflict and r.conflict.new]
        told += [conflict_message(c) for c in new]
        if new:  # told here and now: the inbox's item for the same event is not news again (the ledger)
            from gridgit.coordination import inbox

            ids = [c.event_id for c in new if c.event_id]
            inbox.note_told(layout, ident.agent_id, ids, ident.session_id, "after-edit")
    return told + _validated(layout, found.grid)


def before_edit(layout: Layout, ident: Identity, found: Changes, config: dict[str, Any], cap: Capability) -> Reply:
    """A decision CAP's tool enforces (or nothing): `.grid/` edits first, then other agents' claims."""
    if found.grid:
        mode = config["agents"]["grid_edits"]
        advice = "\n".join(grid_advice(inside) for inside in found.grid)
        if mode == "deny":
            return Reply(decision="deny", reason=advice)
        return Reply(context=advice, notice=advice) if mode == "warn" else Reply()
    mode = config["claims"]["on_edit"]
    if mode == "allow" or not found.changes:
        return Reply()
    from gridgit.coordination import claims

    on = claims.claims_on(claims.live_claims(layout), {c.path for c in found.changes}, exclude_agent=ident.agent_id)
    # A claim that waits behind the agent's own exclusive claim holds nothing here: the agent holds the file.
    held = [c for c in on if c.behind is None or c.behind.agent != ident.agent_id]
    if not held:
        return Reply()
    claimed = "; ".join(
        f"{c.pattern} is claimed by {c.agent}{' exclusively' if c.held else ''} until {c.expires_at}"
        + (f" ({c.reason})" if c.reason else "")
        for c in held
    )
    release = "; ".join(f"`{said('release', c.pattern, agent=c.agent)}`" for c in held)
    if mode == "ask" and "ask" in cap.decisions:
        # Claude Code asks the person; where nobody can answer (`claude -p`) it refuses, and this reason is what
        # the model reads (tried with 2.1.197): the way through is in it either way.
        return Reply(
            decision="ask",
            reason=f"{claimed}. Coordinate with them before editing (`{said('claims')}`); to let the edit through "
            f"anyway, release the claim with {release}, then retry.",
        )
    # `ask` where the tool does not enforce it: refused, and the model is told how the person can let it through.
    ask = " Ask the user: if they want the edit anyway, release the claim with " + release + ", then retry."
    return Reply(
        decision="deny",
        reason=f"{claimed}. Coordinate with them first (`{said('claims')}`)." + (ask if mode == "ask" else ""),
    )


def _inbox_lines(layout: Layout, ident: Identity, limit: int, channel: str) -> list[str]:
    """What is news for the agent (its inbox, through CHANNEL: each item once, by the ledger), as lines."""
    from gridgit.coordination import inbox

    items = inbox.fetch(layout, ident.agent_id, limit=limit, channel=channel, session=ident.session_id)
    return [f"- {item.summary}" for item in items]


def clip(text: str, limit: int) -> str:
    """TEXT cut to LIMIT characters, saying so."""
    if len(text) <= limit:
        return text
    note = f"\n…(cut by gridgit to fit the tool's limit; `{said('context')}` prints it all)"
    return text[: max(0, limit - len(note))].rstrip() + note


def register(layout: Layout, ident: Identity) -> str:
    """Register the agent (idempotent); a registration the agent id does not allow is a warning, not a stop."""
    from gridgit.coordination import agents

    try:
        agents.register(layout, ident.agent_id, ident.agent_id)
    except GridError as exc:
        return f"{ident.agent_id} not registered ({exc})"
    return ""


# Files a tool's SessionStart hook may append `export NAME=value` lines to, which the tool sources before each
# command of the session's shell: Claude Code's ("Persisting environment variables",
# https://code.claude.com/docs/en/hooks#sessionstart) and Codex's, which gives either name
# (openai/codex codex-rs/hooks/src/events/session_start_env_file.rs).
ENV_FILES = ("CLAUDE_ENV_FILE", "CODEX_ENV_FILE")


def export_identity(agent_id: str) -> None:
    """Tell the session's shell who it is (`GRID_AGENT_ID`), where the tool lets a SessionStart hook: the
    agent's own gridgit commands and commits act as the agent its hooks know."""
    for variable in ENV_FILES:
        path = os.environ.get(variable)
        if path:
            try:
                with open(path, "a", encoding="utf-8") as handle:
                    handle.write(f"export GRID_AGENT_ID={agent_id}\n")
            except OSError:
                continue  # the shell goes without: the commands told name --agent anyway
            return


def session_start(layout: Layout, ident: Identity, limit: int) -> tuple[Reply, str]:
    """(the context for the model, a warning); the pack is cut to LIMIT characters."""
    from gridgit.coordination import inbox
    from gridgit.coordination.ledger import MESSAGE
    from gridgit.views import context

    warning = register(layout, ident)
    if not ident.from_env:
        export_identity(ident.agent_id)
    intro = (
        f"gridgit: you are {ident.agent_id}; this repository's agents share a Blackboard in .grid/ "
        f"(`{said('status')}`, `{said('inbox')}`, `{said('write', category='CATEGORY', topic='TOPIC', content='TEXT')}`)."
        " Your edits are recorded and checked for write conflicts with other agents."
    )
    try:
        pack = context.gather(layout, ident.agent_id)
        packed = pack.render()
        # The open messages are in the pack, one line each: state, and news told once (the ledger).
        shown = [i.key.split(":", 1)[1] for i in pack.items if i.section == "message"]
        inbox.note_told(layout, ident.agent_id, shown, ident.session_id, "session-start", MESSAGE)
    except GridError as exc:
        packed = f"(no context pack: {exc})"
    new = _inbox_lines(layout, ident, 50, "session-start")
    news = ["## New for you since your last session\n\n" + "\n".join(new)] if new else []
    return Reply(context=clip("\n\n".join([intro, *news, packed]), limit)), warning


def news(layout: Layout, ident: Identity, channel: str, told: list[str] | None = None) -> str:
    """What the model hears between steps, through CHANNEL: TOLD (this call's own messages), messages kept
    for it, its inbox (what the ledger says it was not told yet)."""
    lines = [f"- {m}" for m in [*(told or []), *identity.take_pending(ident)]]
    lines += _inbox_lines(layout, ident, INBOX_LIMIT, channel)
    return clip(f"gridgit: new for {ident.agent_id}:\n" + "\n".join(lines), PROMPT_CHARS) if lines else ""


def urgent(layout: Layout, ident: Identity) -> list[str]:
    """The urgent inbox items for the model mid-turn (messages to the agent, conflicts, claims, answers), each once."""
    from gridgit.agents import inboxpeek

    if inboxpeek.inbox_quiet(str(layout.grid), ident.agent_id, urgent=True):
        return []  # asked with the standard library only, as the prompt's fast path asks: the inbox is not loaded
    from gridgit.coordination import inbox

    found = inbox.fetch(layout, ident.agent_id, urgent=True, channel="after-edit", session=ident.session_id)
    lines = [f"- {item.summary}" for item in found]
    if not lines:
        return []
    return [clip(f"gridgit: new for {ident.agent_id} while you work:\n" + "\n".join(lines), PROMPT_CHARS)]


def wake(layout: Layout, ident: Identity, cap: Capability, woken: bool) -> Reply:
    """Keep the agent going (CAP's decision for it) while messages to it wait unacknowledged, a few times at most.

    WOKEN: a stop hook kept the agent going already (the payload's CAP.woken field): it may stop.
    """
    from gridgit.coordination import wakeup

    why = "" if woken else wakeup.reason(layout, ident.agent_id, ident.session_id)
    return Reply(decision=cap.decisions[0], reason=why) if why else Reply()


def end(layout: Layout, ident: Identity, cap: Capability, woken: bool, transcript_path: Any = None) -> Reply:
    """A heartbeat and the transcript's new usage (gridgit.work.transcript); where CAP's stop
    event can keep the agent going, its unacknowledged messages do (`wake`)."""
    from gridgit.coordination import heartbeat
    from gridgit.store import clock
    from gridgit.work import transcript

    heartbeat.stamp(layout, ident.agent_id, clock.now_iso(), "heartbeat (agent turn ended)")
    counted = transcript.count(layout, ident.agent_id, transcript_path, ident.session_id)
    reply = wake(layout, ident, cap, woken) if cap.decisions else Reply()
    # While a wake-up is under way the session's next stop takes the full path: the fast path cannot count asks.
    identity.note_heartbeat(ident, waking=reply.decision is not None or woken, transcript_bytes=counted.offset)
    return reply
