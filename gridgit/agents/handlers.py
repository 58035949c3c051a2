"""What each of gridgit's agent events does, whatever the tool: the answer is a Reply.

- after-edit: one `file_modified` per file (repository-relative, attributed, with the tool and
  session), the write-conflict check, and on a new conflict a message for the model;
- before-edit: another agent's live claim on a file asks or denies (`claims.on_edit`);
- session-start: register the agent, then what is new for it and its context pack;
- prompt: its inbox (each event once, through its durable cursor) and messages kept for it;
- end: a heartbeat (STATE's `last_heartbeat`), and the usage new in the session's transcript.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, NamedTuple

from gridgit.agents import identity
from gridgit.agents.identity import Identity
from gridgit.agents.tool import Edit, Reply, Skip
from gridgit.errors import GridError
from gridgit.store.layout import Layout

INBOX_LIMIT = 10  # items a prompt event shows; the rest wait for the next one
PROMPT_CHARS = 2_000  # "short additional context"
ON_EDIT = ("ask", "deny", "allow")


class Change(NamedTuple):
    """An Edit as the repository knows it: repo-relative paths."""

    path: str
    operation: str
    old_path: str | None


def _relative(layout: Layout, cwd: Path, name: str) -> str | None:
    """NAME (absolute, or relative to CWD) as a repo-relative path; None outside the work tree, in .git or .grid."""
    if any(c in name for c in "\0\n\r"):  # a line break would end a line of CHECKPOINT.md or a warning
        raise Skip(f"a file path with a NUL byte or a line break: {name!r}")
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        raise Skip(f"a file path that is not UTF-8: {name!r}") from None
    path = Path(name)
    path = path if path.is_absolute() else cwd / path
    try:
        rel = layout.relative(path)
        absolute = (layout.root / rel).resolve()
    except (GridError, OSError, ValueError):
        return None
    if rel == ".git" or rel.startswith(".git/") or absolute == layout.grid or layout.grid in absolute.parents:
        return None
    return rel


def changes(layout: Layout, cwd: Path, edits: list[Edit]) -> list[Change]:
    """The edits inside the repository, repo-relative (a linked worktree's path is its path in the repository)."""
    found: list[Change] = []
    for edit in edits:
        rel = _relative(layout, cwd, edit.path)
        if rel is None:
            continue
        old = _relative(layout, cwd, edit.old_path) if edit.old_path else None
        operation = edit.operation if edit.operation != "moved" or old else "created"
        found.append(Change(rel, operation, old))
    return list(dict.fromkeys(found))


def conflict_message(result: Any) -> str:
    """What the model is told: the other agents, the file, when, and what to do."""
    seen = "; ".join(
        f"{c['conflicting_agent']} {c['operation']} {c['path']} at {c['timestamp']}" for c in result.conflicts[-3:]
    )
    return (
        f"gridgit: write conflict on {result.path}: {seen} (window {result.window_minutes:g} min). "
        "Stop editing it and coordinate: read .grid/CHECKPOINT.md, agree with them in the phase scratchpad "
        f"(`gridgit write`), then run `gridgit conflicts resolve {result.path}`."
    )


def after_edit(layout: Layout, ident: Identity, tool: str, found: list[Change], tells: bool) -> Reply:
    from gridgit.coordination import conflicts

    extra = {"tool": tool, "session_id": ident.session_id, "source": "agent-hook"}
    if ident.subagent:
        extra["subagent"] = ident.subagent
    changes = [conflicts.Modification(c.path, c.operation, c.old_path) for c in found]
    told = [
        conflict_message(r.conflict)
        for r in conflicts.record_modifications(layout, changes, ident.agent_id, check=True, extra=extra)
        if r.conflict is not None and r.conflict.has_conflict and r.conflict.new
    ]
    if told and not tells:
        for message in told:
            identity.add_pending(ident, message)
        return Reply()
    return Reply(conflict="\n".join(told))


def before_edit(layout: Layout, ident: Identity, found: list[Change], config: dict[str, Any]) -> Reply:
    mode = (config.get("claims") or {}).get("on_edit", "ask")
    if mode not in ON_EDIT:
        raise Skip(f"config.json claims.on_edit must be one of {', '.join(ON_EDIT)}, not {mode!r}")
    if mode == "allow" or not found:
        return Reply()
    from gridgit.coordination import claims

    held = claims.claims_on(claims.live_claims(layout), {c.path for c in found}, exclude_agent=ident.agent_id)
    if not held:
        return Reply()
    said = "; ".join(
        f"{c.pattern} is claimed by {c.agent}{' exclusively' if c.exclusive else ''} until {c.expires_at}"
        + (f" ({c.reason})" if c.reason else "")
        for c in held
    )
    return Reply(decision=mode, reason=f"{said}. Coordinate with them before editing (`gridgit claims`).")


def _inbox_lines(layout: Layout, agent: str, limit: int) -> list[str]:
    from gridgit.coordination import inbox

    return [f"- {item.summary}" for item in inbox.fetch(layout, agent, limit=limit)]


def clip(text: str, limit: int) -> str:
    """TEXT cut to LIMIT characters, saying so."""
    if len(text) <= limit:
        return text
    note = "\n…(cut by gridgit to fit the tool's limit; `gridgit context` prints it all)"
    return text[: max(0, limit - len(note))].rstrip() + note


def register(layout: Layout, ident: Identity) -> str:
    """Register the agent (idempotent); a registration the agent id does not allow is a warning, not a stop."""
    from gridgit.coordination import agents

    try:
        agents.register(layout, ident.agent_id, ident.agent_id)
    except GridError as exc:
        return f"{ident.agent_id} not registered ({exc})"
    return ""


def session_start(layout: Layout, ident: Identity, limit: int) -> tuple[Reply, str]:
    """(the context for the model, a warning); the pack is cut to LIMIT characters."""
    from gridgit.views import context

    warning = register(layout, ident)
    parts = [
        f"gridgit: you are {ident.agent_id}; this repository's agents share a Blackboard in .grid/ "
        "(`gridgit status`, `gridgit inbox`, `gridgit write`). Your edits are recorded and checked for "
        "write conflicts with other agents."
    ]
    new = _inbox_lines(layout, ident.agent_id, 50)
    if new:
        parts.append("## New for you since your last session\n\n" + "\n".join(new))
    try:
        parts.append(context.gather(layout, ident.agent_id).render())
    except GridError as exc:
        parts.append(f"(no context pack: {exc})")
    return Reply(context=clip("\n\n".join(parts), limit)), warning


def prompt(layout: Layout, ident: Identity) -> Reply:
    lines = [f"- {m}" for m in identity.take_pending(ident)] + _inbox_lines(layout, ident.agent_id, INBOX_LIMIT)
    if not lines:
        return Reply()
    return Reply(context=clip(f"gridgit: new for {ident.agent_id}:\n" + "\n".join(lines), PROMPT_CHARS))


def end(layout: Layout, ident: Identity, transcript_path: Any = None) -> Reply:
    from gridgit.coordination import heartbeat
    from gridgit.store import clock
    from gridgit.work import transcript

    heartbeat.stamp(layout, ident.agent_id, clock.now_iso(), "heartbeat (agent turn ended)")
    transcript.count(layout, ident.agent_id, transcript_path, ident.session_id)
    return Reply()
