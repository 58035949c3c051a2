"""Dynamic shell completion (click's `shell_complete`) of the names a command takes: phases, agents, blocks, entries
and messages, read from the Blackboard of the current directory.

`eval "$(_GRIDGIT_COMPLETE=bash_source gridgit)"` (zsh_source, fish_source) turns it on; see docs/cli.md. A name
that cannot be read (no Blackboard, a broken file) completes to nothing: completion never prints an error.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import click
from click.shell_completion import CompletionItem

Complete = Callable[[click.Context, click.Parameter, str], list[CompletionItem]]


def _items(found: Callable[[Any], Iterable[tuple[str, str]]]) -> Complete:
    """A shell_complete function offering FOUND(layout)'s (name, help) pairs that start with what was typed."""

    def complete(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[CompletionItem]:
        from gridgit.store.layout import Layout

        try:
            layout = Layout.find().require()
            pairs = list(found(layout))
        except Exception:  # completion runs at every Tab: never a traceback, never an error line
            return []
        return [CompletionItem(name, help=text or None) for name, text in pairs if name.startswith(incomplete)]

    return complete


def _phases(layout: Any) -> Iterable[tuple[str, str]]:
    from gridgit.model import state

    definitions = state.read(layout).get("phases", {}).get("definitions") or []
    named = {str(d.get("id")): f"{d.get('name')} ({d.get('status')})" for d in definitions if isinstance(d, dict)}
    return [(p, named.get(p, "")) for p in dict.fromkeys([*named, *layout.phase_ids()])]


def _agents(layout: Any) -> Iterable[tuple[str, str]]:
    from gridgit.model import state

    agents = state.read(layout).get("agents") or {}
    return [(str(a.get("id")), str(a.get("task") or "")) for a in agents.get("active") or [] if isinstance(a, dict)]


def _blocks(layout: Any) -> Iterable[tuple[str, str]]:
    from gridgit.work import blocks

    return [(b.block_id, f"{b.status}: {b.name or '-'}") for b in blocks.listing(layout)]


def _entries(layout: Any) -> Iterable[tuple[str, str]]:
    from gridgit.model import state
    from gridgit.scratchpad import store

    pad = store.load_if_any(layout, state.resolve_phase(layout, None))
    entries = pad.entries if pad is not None else []
    return [(str(e.id), f"{e.category} | {e.topic}") for e in reversed(entries) if e.category != "heartbeat"]


def _messages(layout: Any) -> Iterable[tuple[str, str]]:
    from gridgit.coordination import mailbox

    folder = mailbox.folder(layout)
    boxes = [p.name for p in folder.iterdir() if p.is_dir()] if folder.is_dir() else []
    return [(m, f"in {box}") for box in boxes for m in mailbox.box_ids(layout, box)]


phases, agents, blocks, entries, messages = map(_items, (_phases, _agents, _blocks, _entries, _messages))
