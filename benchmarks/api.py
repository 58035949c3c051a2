"""The operations the benchmarks time, each mapped onto gridgit's public Python API.

Only calls: no product logic lives here. Where a feature has not landed, the lookup
raises Unavailable and the table shows `n/a` for its rows instead of failing the run.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks.harness import Unavailable


def board(path: Path, agent: str | None = None) -> Any:
    from gridgit import Blackboard

    return Blackboard(path, agent=agent)


def _method(obj: Any, *names: str) -> Callable[..., Any]:
    for name in names:
        found = getattr(obj, name, None)
        if callable(found):
            return found  # type: ignore[no-any-return]
    raise Unavailable(f"unavailable: {type(obj).__name__} has none of {', '.join(names)}")


def _function(module: str, *names: str) -> Callable[..., Any]:
    try:
        mod = importlib.import_module(module)
    except ImportError:
        raise Unavailable(f"unavailable: no module {module}") from None
    return _method(mod, *names)


# ---- L3 -----------------------------------------------------------------------------------


def state_read(b: Any) -> Callable[[], Any]:
    return b.state  # type: ignore[no-any-return]


def state_update(b: Any, agent: str) -> Callable[[dict[str, Any]], Any]:
    return lambda updates: b.update_state(updates, agent=agent)


# ---- L2 -----------------------------------------------------------------------------------


def writer(b: Any) -> Callable[..., Any]:
    """write(phase, agent, category, topic, content): one scratchpad entry, as an agent writes it."""
    method = getattr(b, "write", None)
    if callable(method):
        return lambda phase, agent, category, topic, content: method(
            category, topic, content, relevance="MEDIUM", phase=phase, agent=agent
        )
    write_entry = _function("gridgit.scratchpad.store", "write_entry")
    return lambda phase, agent, category, topic, content: write_entry(
        b.layout, phase, agent, category, topic, content, [], "MEDIUM", ""
    )


def topic_lookup(b: Any) -> Callable[[str, str], Any]:
    """lookup(phase, topic): the entries of one topic (spec 5.3 lookup_by_topic)."""
    method = getattr(b, "lookup_by_topic", None)
    if callable(method):
        return lambda phase, topic: method(topic, phase=phase)
    fn = _function("gridgit.scratchpad.reads", "lookup_by_topic")
    return lambda phase, topic: fn(b.layout, phase, topic)


def full_read(b: Any) -> Callable[[str], Any]:
    """read(phase): every entry of a phase, newest first."""
    method = getattr(b, "read", None)
    if callable(method):
        return lambda phase: method(phase)
    fn = _function("gridgit.scratchpad.reads", "read_entries")
    return lambda phase: fn(b.layout, phase)


def complete_phase(b: Any) -> Callable[[str, str | None], Any]:
    method = getattr(b, "complete_phase", None)
    if callable(method):
        return lambda phase, next_phase: method(phase, next_phase, agent="mc")
    fn = _function("gridgit.phases.lifecycle", "complete_phase")
    return lambda phase, next_phase: fn(b.layout, phase, next_phase, agent_id="mc")


# ---- events -------------------------------------------------------------------------------


def emitter(b: Any) -> Callable[[str, dict[str, Any]], Any]:
    method = getattr(b, "emit", None)
    if callable(method):
        return method  # type: ignore[no-any-return]
    emit = _function("gridgit.events.bus", "emit")
    return lambda event_type, payload: emit(b.layout, event_type, payload)


def toucher(b: Any) -> Callable[[str, str], Any]:
    """touch(path, agent): a file_modified event through the API (REPO-relative PATH), no check."""
    method = _method(b, "touch")
    return lambda path, agent: method(b.layout.root / path, agent=agent, check=False)


def conflict_check(b: Any) -> Callable[[str, str], Any]:
    """check(path, agent): the write-conflict check for the repo-relative PATH as AGENT."""
    method = _method(b, "check_conflict")
    return lambda path, agent: method(b.layout.root / path, agent=agent)


def poller(b: Any) -> Callable[[str], Any]:
    """poll(agent): the events AGENT has not seen yet, advancing its cursor."""
    method = getattr(b, "poll", None)
    if callable(method):
        return lambda agent: method(agent=agent)
    fn = _function("gridgit.events.cursors", "poll")
    return lambda agent: fn(b.layout, agent)


def inboxer(b: Any) -> Callable[[str], Any]:
    """inbox(agent): what is new for AGENT, advancing its inbox cursor (the first call opens it at the end)."""
    method = _method(b, "inbox")
    return lambda agent: method(agent=agent)


def cursor_to_end(b: Any, agent: str) -> None:
    """Move AGENT's cursor to the end of the log (as if it had read everything)."""
    method = getattr(b, "reset_cursor", None)
    if callable(method):
        method(agent=agent, to_end=True)
        return
    _function("gridgit.events.cursors", "reset")(b.layout, agent, to_end=True)
