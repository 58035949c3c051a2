"""What a person does from the web view: each action one call of the Python API, the one the CLI makes.

An action is `POST /api/act/<name>` with a JSON object of its fields (checked here for their
type, nothing else: the library validates every value exactly as for the CLI, with the same
one-line errors). It runs on a Blackboard whose agent is the server's Master Control (`serve
--as`), so each change is that person's, an event and a line of the Blackboard's history like
any agent's. The answer is the `--json` envelope with `{"action", "message", "result"}`:
MESSAGE is one line for the page, RESULT what `--json` of the same command prints.

| action | fields | the CLI's |
|---|---|---|
| `answer` | `entry`, `answer`, `phase` | `resolve ENTRY --answer` |
| `resolve` | `entry`, `note`, `phase` | `resolve ENTRY --note` |
| `resolve_conflicts` | `paths`, `note` | `conflicts resolve PATHS --note` |
| `send` | `to`, `content`, `thread` | `send --to --content --thread` |
| `ack` | `message` | `ack MESSAGE` |
| `plan_block` | `block`, `name`, `content`, `depends_on`, `wave`, `files`, `priority`, `phase` | `block plan` (new, edit, reorder) |
| `approve_block` | `block`, `phase` | `approve block` |
| `release_block` | `block`, `phase` | `block release` |
| `assign_block` | `block`, `to`, `from`, `phase` | `block assign BLOCK AGENT --from` |
| `release_claims` | `holder`, `patterns` | `release PATTERNS --holder` |
| `finish_agent` | `agent`, `summary`, `result` | `agent done AGENT` |
| `complete_phase` | `phase`, `next`, `force` | `approve phase` (in `autopilot`: `phase complete`) |
| `promote` | `entry`, `phase` | `promote --entry` |
| `set_mode` | `mode` | `state update --set mode=MODE` |
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from gridgit.errors import BadInput, NotFound

if TYPE_CHECKING:
    from gridgit.blackboard import Blackboard

# A field's kind: the JSON value it takes.
_KINDS: dict[str, tuple[Callable[[Any], bool], str]] = {
    "text": (lambda v: isinstance(v, str), "a string"),
    "number": (lambda v: isinstance(v, int) and not isinstance(v, bool), "a whole number"),
    "flag": (lambda v: isinstance(v, bool), "true or false"),
    "texts": (lambda v: isinstance(v, list) and all(isinstance(x, str) for x in v), "a list of strings"),
}


class Action:
    """One action: its fields ({name: kind}), the ones it needs, and the call (board, fields) -> (result, message)."""

    def __init__(
        self,
        run: Callable[[Blackboard, dict[str, Any]], tuple[Any, str]],
        fields: dict[str, str],
        required: tuple[str, ...] = (),
    ) -> None:
        self.run, self.fields, self.required = run, fields, required

    def __call__(self, board: Blackboard, body: dict[str, Any]) -> tuple[Any, str]:
        unknown = sorted(set(body) - set(self.fields))
        if unknown:
            raise BadInput(f"unknown field {unknown[0]!r} (this action takes: {', '.join(self.fields)})")
        for name in self.required:
            if body.get(name) in (None, ""):
                raise BadInput(f"missing field {name!r}")
        for name, value in body.items():
            check, what = _KINDS[self.fields[name]]
            if value is not None and not check(value):
                raise BadInput(f"field {name!r} must be {what}, got {type(value).__name__}")
        return self.run(board, {name: body.get(name) for name in self.fields})


def _resolved(result: Any, verb: str) -> str:
    where = result.entry_ref or result.id
    if result.already:
        return f"{where} was {verb} already (by {result.resolution.get('by', 'someone')}): nothing changed"
    return f"{where} {verb}; {result.author or 'its author'} is told"


def _answer(board: Blackboard, f: dict[str, Any]) -> tuple[Any, str]:
    if not (f["answer"] or "").strip():
        raise BadInput("the answer is empty")
    result = board.resolve(f["entry"], f["phase"], answer=f["answer"])
    return result, _resolved(result, "answered")


def _resolve(board: Blackboard, f: dict[str, Any]) -> tuple[Any, str]:
    result = board.resolve(f["entry"], f["phase"], note=f["note"] or "")
    return result, _resolved(result, "resolved")


def _resolve_conflicts(board: Blackboard, f: dict[str, Any]) -> tuple[Any, str]:
    closed = board.resolve_conflicts(f["paths"] or None, note=f["note"] or "")
    if not closed:
        where = ", ".join(f["paths"] or []) or "any file"
        raise NotFound(f"no open write conflict on {where} (resolved meanwhile?): nothing changed")
    return closed, f"{len(closed)} write conflict(s) closed: {', '.join(str(c.get('path')) for c in closed)}"


def _send(board: Blackboard, f: dict[str, Any]) -> tuple[Any, str]:
    sent = board.send(f["to"], f["content"], f["thread"])
    held = " (nobody registered for it yet: it waits in its box)" if sent.held else ""
    return sent, f"message {sent.message.id} sent to {sent.message.to}{held}"


def _ack(board: Blackboard, f: dict[str, Any]) -> tuple[Any, str]:
    acked = board.ack(f["message"])
    return acked, f"message {acked.message.id} acknowledged" + (" already" if acked.already else "")


def _plan_block(board: Blackboard, f: dict[str, Any]) -> tuple[Any, str]:
    block = board.plan_block(
        f["block"], f["content"] or "", f["name"], f["depends_on"], f["wave"], f["files"], f["phase"],
        priority=f["priority"],
    )  # fmt: skip
    return block, f"block {block.block_id} {block.status} (wave {block.wave}, priority {block.priority})"


def _approve_block(board: Blackboard, f: dict[str, Any]) -> tuple[Any, str]:
    block = board.approve_block(f["block"], f["phase"])
    return block, f"block {block.block_id} approved: in the queue; {block.planned_by or 'its planner'} is told"


def _release_block(board: Blackboard, f: dict[str, Any]) -> tuple[Any, str]:
    block = board.release_block(f["block"], f["phase"])
    return block, f"block {block.block_id} is back in the queue; its holder is told"


def _assign_block(board: Blackboard, f: dict[str, Any]) -> tuple[Any, str]:
    result = board.assign_block(f["block"], f["to"], f["from"], f["phase"])
    if result.already:
        return result, f"{result.block.owner} holds block {result.block.block_id} already"
    was = f" from {result.reoffered_from}" if result.reoffered_from else ""
    return result, f"block {result.block.block_id} assigned to {result.block.owner}{was}; both are told"


def _release_claims(board: Blackboard, f: dict[str, Any]) -> tuple[Any, str]:
    released = board.release(f["patterns"] or None, holder=f["holder"])
    if not released:
        raise NotFound(f"{f['holder']} holds no live claim on {', '.join(f['patterns'] or ['anything'])} "
                       "(released or expired meanwhile): nothing changed")  # fmt: skip
    return released, f"{len(released)} claim(s) of {f['holder']} released; {f['holder']} is told"


def _finish_agent(board: Blackboard, f: dict[str, Any]) -> tuple[Any, str]:
    done = board.finish_agent(f["agent"], f["summary"], f["result"] or "success")
    return done, f"{f['agent']}: {done.action}"


def _complete_phase(board: Blackboard, f: dict[str, Any]) -> tuple[Any, str]:
    from gridgit.cli.phase import completion_text

    result = board.approve_phase(f["phase"], f["next"], force=bool(f["force"]))
    return result, completion_text(result)


def _promote(board: Blackboard, f: dict[str, Any]) -> tuple[Any, str]:
    result = board.promote_entry(f["entry"], f["phase"])
    if not result.promoted:
        return result, f"entry {f['entry']} is in LEARNINGS.md already: nothing changed"
    return result, f"promoted to LEARNINGS.md ({result.promoted[0].category}): {result.promoted[0].title}"


def _set_mode(board: Blackboard, f: dict[str, Any]) -> tuple[Any, str]:
    board.update_state({"mode": f["mode"]})
    return {"mode": f["mode"]}, f"mode set to {f['mode']}"


_PLAN_FIELDS = {"block": "text", "name": "text", "content": "text", "depends_on": "texts", "wave": "number",
                "files": "texts", "priority": "number", "phase": "text"}  # fmt: skip
ACTIONS: dict[str, Action] = {
    "answer": Action(_answer, {"entry": "text", "answer": "text", "phase": "text"}, ("entry", "answer")),
    "resolve": Action(_resolve, {"entry": "text", "note": "text", "phase": "text"}, ("entry",)),
    "resolve_conflicts": Action(_resolve_conflicts, {"paths": "texts", "note": "text"}),
    "send": Action(_send, {"to": "text", "content": "text", "thread": "text"}, ("to", "content")),
    "ack": Action(_ack, {"message": "text"}, ("message",)),
    "plan_block": Action(_plan_block, _PLAN_FIELDS, ("block",)),
    "approve_block": Action(_approve_block, {"block": "text", "phase": "text"}, ("block",)),
    "release_block": Action(_release_block, {"block": "text", "phase": "text"}, ("block",)),
    "assign_block": Action(
        _assign_block, {"block": "text", "to": "text", "from": "text", "phase": "text"}, ("block", "to")
    ),
    "release_claims": Action(_release_claims, {"holder": "text", "patterns": "texts"}, ("holder",)),
    "finish_agent": Action(_finish_agent, {"agent": "text", "summary": "text", "result": "text"}, ("agent",)),
    "complete_phase": Action(_complete_phase, {"phase": "text", "next": "text", "force": "flag"}, ("phase",)),
    "promote": Action(_promote, {"entry": "text", "phase": "text"}, ("entry",)),
    "set_mode": Action(_set_mode, {"mode": "text"}, ("mode",)),
}
