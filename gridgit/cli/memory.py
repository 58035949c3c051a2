"""`gridgit memory rebuild|show|compress|write`: the memory agent's workspace, `.grid/memory/`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from gridgit.cli.common import agent_option, count, json_option, output, read_content, with_part
from gridgit.memory.workspace import MIN_BUDGET

if TYPE_CHECKING:
    from gridgit.api.memory import MemoryAPI

with_memory = with_part("gridgit.api.memory", "MemoryAPI")


def _written(result: Any) -> str:
    lines = [f"wrote {path}" for path in result.written]
    lines += [f"kept {path} (a memory agent's version of the same entries)" for path in result.kept]
    return "\n".join(lines) or "memory/ is up to date: nothing changed"


@click.group("memory")
def memory() -> None:
    """The memory agent's workspace .grid/memory/: INDEX.md, patterns.md, gotchas.md, decisions.md,
    tech-context.md and compressed/phase-NN.md, rebuilt from the scratchpads, archives, LEARNINGS.md and STATE."""


@memory.command("rebuild")
@agent_option
@json_option
@with_memory
def rebuild(board: MemoryAPI, agent: str | None, as_json: bool) -> None:
    """Write every memory file again from the truth (memory agents and Master Control).

    A compressed phase a memory agent wrote is kept while it is valid and its phase holds
    the same entries.
    """
    output(board.memory_rebuild(agent), as_json, _written)


@memory.command("show")
@click.argument("name", required=False)
@json_option
@with_memory
def show(board: MemoryAPI, name: str | None, as_json: bool) -> None:
    """Print memory file NAME: INDEX (the default), patterns, gotchas, decisions, tech-context,
    or a compressed phase (`phase-01`, `01-foundation`, `compressed/phase-01.md`)."""
    path, text = board.memory_show(name)
    output({"path": f".grid/{path}", "text": text}, as_json, text.rstrip("\n"))


@memory.command("compress")
@click.argument("phase_id")
@click.option("--budget", type=count(MIN_BUDGET), default=None, metavar="TOKENS",
              help="Token budget (default: config.json memory.compressed_tokens, 500).")  # fmt: skip
@agent_option
@json_option
@with_memory
def compress(board: MemoryAPI, phase_id: str, budget: int | None, agent: str | None, as_json: bool) -> None:
    """Compress PHASE_ID's entries into memory/compressed/phase-NN.md (replacing a memory agent's version)."""
    output(board.memory_compress(phase_id, budget, agent), as_json, _written)


@memory.command("write")
@click.argument("name")
@click.argument("content")
@agent_option
@json_option
@with_memory
def write(board: MemoryAPI, name: str, content: str, agent: str | None, as_json: bool) -> None:
    """Write a memory agent's own compressed phase NAME (`compressed/phase-01.md` or the phase id) from
    CONTENT (`-`: standard input). Every list item must link to an entry of the phase by its id in
    brackets, [01KF...], and the file must fit memory.compressed_tokens."""
    text = read_content(content) or ""
    output(board.memory_write(name, text, agent), as_json, _written)
