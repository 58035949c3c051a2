"""Token usage from an agent tool's transcript, counted once: what the Stop / session-end hook calls.

Claude Code hands every hook `transcript_path`, "Path to conversation JSON"
(https://code.claude.com/docs/en/hooks, common input fields): a JSON-lines file to which
each assistant message is appended with the Messages API's message object under `message`
(`id`, `model`, `usage`: `input_tokens`, `output_tokens`, `cache_creation_input_tokens`,
`cache_read_input_tokens`; https://docs.claude.com/en/api/messages). One API response may be
written as several lines (one per content block) that share the message's `id` and its usage;
the Agent SDK's cost-tracking guide says to count each id once and, where the lines of one id
differ, to take the highest output (https://docs.claude.com/en/docs/agent-sdk/cost-tracking).

So the file is read from where the last count stopped (a byte offset, kept per agent session
in budget.json next to the usage it produced: one atomic write), up to its last whole line;
each message id counts once, and a later line of an id seen near the offset adds only what
grew. A line that is not JSON, or JSON of another shape, counts nothing; a file that is
missing counts nothing; a file shorter than the offset (replaced) counts nothing. At most
`MAX_READ` bytes are read per run, so an enormous transcript is caught up over several turns.
Transcripts of other shapes (Gemini CLI's is one JSON document) count nothing.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gridgit.model import state
from gridgit.store import clock
from gridgit.store.layout import Layout
from gridgit.work import budget

MAX_READ = 32 * 1024 * 1024  # bytes of transcript one run reads at most
_STEP = 1024 * 1024
TAIL = 64  # message ids remembered past the offset: the lines of one response are adjacent
_FIELDS = ("input_tokens", "output_tokens", "cache_read_input_tokens", "cache_creation_input_tokens")


@dataclass
class Counted:
    """What one run counted: MESSAGES new message ids, the usage by model, LINES read, BAD lines skipped."""

    transcript: str
    messages: int = 0
    lines: int = 0
    bad: int = 0
    usage: list[dict[str, Any]] = field(default_factory=list)
    cost_usd: float = 0.0
    note: str = ""  # why nothing was read (no transcript, missing, replaced)
    offset: int = 0  # the bytes of the transcript counted so far (the hooks' fast path compares its size)

    def to_dict(self) -> dict[str, Any]:
        return {"transcript": self.transcript, "messages": self.messages, "lines": self.lines, "bad": self.bad,
                "usage": self.usage, "cost_usd": self.cost_usd, "note": self.note}  # fmt: skip


def _whole_lines(path: Path, offset: int) -> tuple[list[bytes], int, str]:
    """The whole lines of PATH from OFFSET (at most MAX_READ bytes of them), the offset after them, a note."""
    try:
        handle = open(path, "rb")  # noqa: SIM115 - closed below, after the size check
    except FileNotFoundError:
        return [], offset, "no such file"
    except OSError as exc:
        return [], offset, exc.strerror or str(exc)
    with handle:
        size = os.fstat(handle.fileno()).st_size
        if size < offset:
            return [], offset, "shorter than what was counted (replaced?): nothing counted"
        handle.seek(offset)
        chunk = handle.read(MAX_READ)
        end = chunk.rfind(b"\n")
        if end >= 0:
            return chunk[:end].split(b"\n"), offset + end + 1, ""
        if len(chunk) < MAX_READ:
            return [], offset, ""  # the last line is still being written: counted next time
        # One line longer than a run reads: skipped whole, once its end is there.
        at = offset + len(chunk)
        while step := handle.read(_STEP):
            if (newline := step.find(b"\n")) >= 0:
                return [], at + newline + 1, "a line over the read limit was skipped"
            at += len(step)
        return [], offset, ""


def _message(line: bytes) -> tuple[str, str, list[int]] | None:
    """(message id, model, token counts) of an assistant line with usage; None for any other line."""
    if b'"usage"' not in line:
        return None
    try:
        record = json.loads(line)
    except (ValueError, RecursionError):
        raise ValueError from None
    message = record.get("message") if isinstance(record, dict) else None
    usage = message.get("usage") if isinstance(message, dict) else None
    if not isinstance(usage, dict) or not isinstance(message.get("id"), str):  # type: ignore[union-attr]
        return None
    assert isinstance(message, dict)
    model = message.get("model")
    if not isinstance(model, str) or model == "<synthetic>":  # an API error Claude Code wrote itself: no tokens
        return None
    counts = [usage.get(name, 0) for name in _FIELDS]
    if not all(isinstance(c, int) and not isinstance(c, bool) and 0 <= c <= budget.MAX_TOKENS for c in counts):
        raise ValueError
    return message["id"], model, counts


def count_lines(lines: list[bytes], tail: dict[str, list[int]], result: Counted) -> dict[str, list[int]]:
    """Model -> [in, out, cache read, cache write, messages] new in LINES; TAIL (id -> counted) is updated."""
    found: dict[str, list[int]] = {}
    for line in lines:
        if not line.strip():
            continue
        result.lines += 1
        try:
            seen = _message(line)
        except ValueError:
            result.bad += 1
            continue
        if seen is None:
            continue
        message_id, model, counts = seen
        before = tail.pop(message_id, None)
        now = counts if before is None else [max(a, b) for a, b in zip(before, counts, strict=True)]
        tail[message_id] = now
        grown = [a - b for a, b in zip(now, before or [0, 0, 0, 0], strict=True)]
        totals = found.setdefault(model, [0, 0, 0, 0, 0])
        for i, value in enumerate(grown):
            totals[i] += value
        totals[4] += before is None
        result.messages += before is None
    while len(tail) > TAIL:
        tail.pop(next(iter(tail)))
    return found


def transcript_key(path: str, session: str | None) -> str:
    """The key of a transcript's cursor: the tool's session id, else a hash of its path (no path is shared)."""
    if session:
        return session
    import hashlib

    return "path-" + hashlib.sha256(path.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def count(layout: Layout, agent: str, transcript_path: Any, session: str | None = None) -> Counted:
    """Add the usage that is new in TRANSCRIPT_PATH to budget.json, for AGENT in its SESSION and STATE's phase."""
    if not isinstance(transcript_path, str) or not transcript_path or "\0" in transcript_path:
        return Counted("", note="no transcript")
    result = Counted(transcript_path)
    if not os.path.isfile(transcript_path):
        result.note = "no such file"  # nothing to count: budget.json is not even read
        return result
    key = transcript_key(transcript_path, session)
    session_name = session if session and budget.SESSION_RE.match(session) else key[:128]
    st = state.read(layout)
    phase = state.current_phase(st) or budget.NONE

    def compute(data: dict[str, Any]) -> list[budget.Usage]:
        cursor = data["transcripts"].get(key) or {}
        offset = int(cursor.get("offset", 0))
        lines, after, result.note = _whole_lines(Path(transcript_path), offset)
        result.offset = after
        if after == offset:
            return []
        tail = {str(k): list(v) for k, v in (cursor.get("tail") or {}).items() if isinstance(v, list)}
        found = count_lines(lines, tail, result)
        data["transcripts"][key] = {"agent": agent, "offset": after, "tail": tail, "updated_at": clock.now_iso()}
        return [
            budget.Usage(agent, session_name, phase, model, tokens_in=t[0], tokens_out=t[1], cache_read=t[2],
                         cache_write=t[3], messages=t[4])
            for model, t in found.items() if any(t)
        ]  # fmt: skip

    recorded = budget.record(layout, compute, agent, st)
    result.usage = [u.to_dict() for u in recorded.usage]
    result.cost_usd = round(recorded.total_usd - recorded.before_usd, 6)
    return result
