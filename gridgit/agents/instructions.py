"""`gridgit setup TOOL --instructions`: the protocol's short instructions, in the file each agent tool reads.

A marked section (`<!-- BEGIN GRIDGIT INSTRUCTIONS -->` ... `<!-- END GRIDGIT INSTRUCTIONS -->`),
as beads' `bd onboard`/`bd setup` writes its own (cmd/bd/setup/agents.go): appended to the
file the tool reads at the start of every session, replaced in place when this gridgit words
it otherwise, left alone when current, and taken out by `setup TOOL --remove` byte for byte
(a file gridgit created is deleted). A symlink is never written through: the target may be
another tool's file, or tracked as a link.

The commands the section names are spelled from the CLI's own definition (gridgit.store.commandline),
so a renamed option cannot leave an instruction that fails.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gridgit.errors import BadInput
from gridgit.store import fileio
from gridgit.store.layout import Layout

BEGIN = "<!-- BEGIN GRIDGIT INSTRUCTIONS -->"
# The file did not end with a line break: one was added before the section, and goes with it.
BEGIN_AFTER_BREAK = "<!-- BEGIN GRIDGIT INSTRUCTIONS (a line break added before it) -->"
END = "<!-- END GRIDGIT INSTRUCTIONS -->"

# The file each tool reads into every session, relative to the repository root, as its docs say:
FILES = {
    # https://code.claude.com/docs/en/memory: ./CLAUDE.md, the project memory, read at the start of a session.
    "claude": "CLAUDE.md",
    # https://developers.openai.com/codex/guides/agents-md: AGENTS.md from the repository root down.
    "codex": "AGENTS.md",
    # https://github.com/google-gemini/gemini-cli/blob/main/docs/cli/gemini-md.md: GEMINI.md, the context file.
    "gemini": "GEMINI.md",
    # https://docs.cursor.com/context/rules: project rules, .cursor/rules/*.mdc; `alwaysApply: true` in every chat.
    "cursor": ".cursor/rules/gridgit.mdc",
    # https://docs.github.com/en/copilot/how-tos/copilot-cli/customize-copilot/add-custom-instructions:
    # repository-wide instructions, .github/copilot-instructions.md.
    "copilot": ".github/copilot-instructions.md",
    # https://opencode.ai/docs/rules: AGENTS.md at the project root.
    "opencode": "AGENTS.md",
}
# A file gridgit owns whole (Cursor's rule): its frontmatter makes the rule apply to every request.
_OWNED_HEAD = {
    "cursor": "---\ndescription: gridgit, the team's shared memory (how to use it)\nalwaysApply: true\n---\n\n"
}

# What the instructions ask an agent to run: label -> (command path, its arguments, its options), spelled by
# gridgit.store.commandline.said from the CLI's own definition; a value in capitals is a placeholder.
STEPS: dict[str, tuple[str, tuple[str, ...], dict[str, str]]] = {
    "register": ("agent register", (), {"task": "TASK"}),
    "context": ("context", (), {"query": "TASK"}),
    "take": ("take", (), {}),
    "touch": ("touch", ("PATH",), {}),
    "write": ("write", (), {"category": "CATEGORY", "topic": "TOPIC", "content": "TEXT"}),
    "heartbeat": ("heartbeat", (), {"progress": "PERCENT", "action": "WHAT"}),
    "inbox": ("inbox", (), {}),
    "complete": ("block complete", ("BLOCK",), {"summary": "WHAT WAS DONE"}),
}


def section() -> str:
    """The instructions between the markers, each command of STEPS spelled from the CLI's definition."""
    from gridgit.model.categories import WRITTEN
    from gridgit.store.commandline import said

    c = {label: f"`{said(path, *args, **options)}`" for label, (path, args, options) in STEPS.items()}
    lines = [
        BEGIN,
        "## gridgit: the team's shared memory",
        "",
        "Several agents work on this repository at once; `.grid/` holds what they know. Read and write it with",
        "`gridgit`, never by hand. Your id is `GRID_AGENT_ID` (e.g. `executor-001`).",
        "",
        f"- Start: {c['register']}, then {c['context']}.",
        f"- Before changing files: {c['take']} (your next block); after each edit: {c['touch']}.",
        f"- What others should know: {c['write']} (CATEGORY: {', '.join(WRITTEN)}).",
        f"- Every few minutes: {c['heartbeat']}; between steps: {c['inbox']}.",
        f"- Done: {c['complete']}.",
        "",
        "`gridgit --help` lists every command.",
        END,
    ]
    return "\n".join(lines) + "\n"


@dataclass
class Report:
    """What a set-up, removal or check of the instructions found (the shape of the hooks' reports)."""

    path: str
    installed: bool = False
    outdated: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    changed: bool = False
    warnings: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "installed": self.installed, "outdated": self.outdated, "kept": self.kept,
                "changed": self.changed, "warnings": self.warnings, "instructions": True}  # fmt: skip


def path_of(layout: Layout, tool: str) -> Path:
    return layout.root / FILES[tool]


def install(layout: Layout, tool: str, text: str) -> Report:
    """TEXT (a section()) into TOOL's file: appended, replaced in place when it differs, left when current."""
    path = path_of(layout, tool)
    report = Report(str(path), installed=True)
    if path.is_symlink():
        report.installed = False
        report.warnings.append(f"{FILES[tool]} is a symlink: not written through; edit its target, or make it a file")
        return report
    old = _read(path)
    if old is None:
        new = _OWNED_HEAD.get(tool, "") + text
    elif (span := _span(old)) is not None:
        start, end = span
        marker = old[start : old.index("\n", start)]
        new = old[:start] + (text.replace(BEGIN, marker, 1) if marker == BEGIN_AFTER_BREAK else text) + old[end:]
    elif old.endswith("\n") or not old:
        new = old + ("\n" if old else "") + text
    else:
        new = old + "\n\n" + text.replace(BEGIN, BEGIN_AFTER_BREAK, 1)
    if new != old:
        path.parent.mkdir(parents=True, exist_ok=True)
        fileio.atomic_write(path, new)
        report.changed = True
    return report


def check(layout: Layout, tool: str, text: str) -> Report:
    """Whether TOOL's file holds TEXT's section as this gridgit words it."""
    path = path_of(layout, tool)
    old = _read(path) if not path.is_symlink() else None
    span = _span(old) if old is not None else None
    report = Report(str(path))
    if span is not None:
        found = old[span[0] : span[1]] if old is not None else ""
        report.installed = found.replace(BEGIN_AFTER_BREAK, BEGIN, 1) == text
        report.outdated = [] if report.installed else ["instructions"]
    return report


def remove(layout: Layout, tool: str) -> Report | None:
    """TOOL's file as it was before `install` (deleted when gridgit made it); None when it holds no section."""
    path = path_of(layout, tool)
    old = _read(path) if not path.is_symlink() else None
    span = _span(old) if old is not None else None
    if old is None or span is None:
        return None
    start, end = span
    before = old[:start]
    if before in ("", _OWNED_HEAD.get(tool)) and not old[end:].strip():
        path.unlink()  # gridgit made it
        return Report(str(path), changed=True)
    if old.startswith(BEGIN_AFTER_BREAK, start):
        before = before.removesuffix("\n\n")
    elif before:
        before = before.removesuffix("\n")  # the blank line install put before the section
    fileio.atomic_write(path, before + old[end:])
    return Report(str(path), changed=True)


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except UnicodeDecodeError:
        raise BadInput(f"{path}: not UTF-8 text; nothing written") from None


def _span(text: str) -> tuple[int, int] | None:
    """(start, end) of the section in TEXT, its final line break included; None when there is none."""
    start = text.find("<!-- BEGIN GRIDGIT INSTRUCTIONS")
    if start < 0:
        return None
    end = text.find(END, start)
    if end < 0:
        raise BadInput(f"gridgit's instructions begin but never end ({END} is missing): fix the file by hand")
    end += len(END)
    return start, end + 1 if text.startswith("\n", end) else end
