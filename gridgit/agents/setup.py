"""`gridgit setup TOOL`: gridgit's hooks in an agent tool's project config, next to the user's own.

Each hook is one entry in the list of its event (`hooks.<Event>`), recognised as gridgit's by
its command (`gridgit agent-hook TOOL EVENT`, or an earlier version's); Claude Code also gets the status line
when it has none. The file itself is merged, restored and checked by gridgit.agents.jsonconfig;
a tool whose hooks are a plugin (OpenCode) gets a file of gridgit's own (gridgit.agents.pluginfile).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gridgit.agents import claude, jsonconfig, pluginfile
from gridgit.agents.jsonconfig import KeyValue, ListItem, Part, Report
from gridgit.agents.tool import BIN_VARIABLE, TOOLS, Skip, Tool, command, is_ours, load
from gridgit.errors import BadInput
from gridgit.store import fileio, gitcmd
from gridgit.store.layout import Layout

STATUSLINE = "statusline"  # `gridgit statusline`
# Tools that run another tool's project hooks too: Copilot CLI reads the repository's
# .claude/settings.json and .claude/settings.local.json ("Hooks locations" in
# https://docs.github.com/en/copilot/reference/hooks-reference).
ALSO_RUNS = {"copilot": "claude"}


def _ours(item: Any) -> bool:
    """A hook entry (a group of hooks or one hook) whose command (Copilot CLI: `bash`) is gridgit's."""
    if not isinstance(item, dict):
        return False
    if is_ours(item.get("command")) or is_ours(item.get("bash")):
        return True
    hooks = item.get("hooks")
    return isinstance(hooks, list) and any(isinstance(h, dict) and is_ours(h.get("command")) for h in hooks)


def parts(tool: Tool) -> list[Part]:
    """Everything gridgit puts in TOOL's config."""
    found: list[Part] = [
        ListItem(("hooks", hook.native), tool.entry(hook, tool.command(hook.event)), _ours) for hook in tool.hooks
    ]
    if tool.config_version is not None:
        found.insert(0, KeyValue(("version",), tool.config_version, lambda value: False))
    if tool.name == "claude":
        found.append(KeyValue(("statusLine",), {"type": "command", "command": command(STATUSLINE)}, _ours))
    return found


@dataclass
class Integration:
    """One tool's config file and gridgit's parts in it."""

    tool: Tool
    path: Path
    parts: list[Part]
    backup: Path


def integration(layout: Layout, name: str, local: bool = False, extra: list[Part] | None = None) -> Integration:
    """TOOL's hooks config; EXTRA are more of gridgit's parts in that file (Gemini CLI's MCP server)."""
    tool = load_or_bad_input(name)
    if local and tool.name != "claude":
        raise BadInput("--local is for Claude Code only (.claude/settings.local.json)")
    rel = claude.LOCAL_CONFIG if local else tool.config
    path = layout.root / rel
    backup = jsonconfig.backup_path(gitcmd.git_dir(layout.root), layout.root, path)
    return Integration(tool, path, [*parts(tool), *(extra or [])], backup)


def load_or_bad_input(name: str) -> Tool:
    try:
        return load(name)
    except Skip as exc:
        raise BadInput(str(exc)) from None


def _write(layout: Layout, name: str, local: bool, extra: list[Part] | None) -> Report:
    """gridgit's part of TOOL's config file in LAYOUT's work tree, merged in (or the plugin file written)."""
    found = integration(layout, name, local, extra)
    if found.tool.plugin is not None:
        return pluginfile.install(found.path, found.tool.plugin_text())
    return jsonconfig.install(found.path, found.parts, found.backup)


def install(layout: Layout, name: str, local: bool = False, extra: list[Part] | None = None) -> Report:
    report = _write(layout, name, local, extra)
    main = _main_of(layout, load(name))
    if main is not None:  # the file the tool reads from this worktree: the main worktree's
        shared = _write(main, name, local, extra)
        report.changed = report.changed or shared.changed
        report.notes.append(f"{load(name).title} reads the hooks of {shared.path} from this worktree: set up too")
    report.warnings = overlaps(layout, name)
    if name == "codex":
        trust_codex(layout, report)
    where = machine_bin()
    if name == "claude" and where is not None:
        # This machine's PATH does not find this gridgit: Claude Code's uncommitted settings say where it is.
        local_file = integration(layout, name, local=True)
        jsonconfig.install(local_file.path, [_bin_part(where)], local_file.backup)
        report.notes.append(f"this machine's gridgit ({where}) is not on PATH: {claude.LOCAL_CONFIG} names it "
                            f"(env.{BIN_VARIABLE}) for Claude Code's hooks{_keep_local(layout)}")  # fmt: skip
    return report


EXCLUDE_MARK = "# gridgit setup claude: Claude Code's machine-local settings"


def _keep_local(layout: Layout) -> str:
    """Make git ignore Claude Code's local settings (this machine's path is in them): what was done, said."""
    rel = claude.LOCAL_CONFIG
    if gitcmd.call(layout.root, "check-ignore", "-q", "--", rel).returncode == 0:
        return "; git ignores that file"
    exclude = gitcmd.git_path(layout.root, "info/exclude")
    exclude.parent.mkdir(parents=True, exist_ok=True)
    before = exclude.read_text(encoding="utf-8") if exclude.exists() else ""
    lead = "" if not before or before.endswith("\n") else "\n"
    fileio.atomic_write(exclude, f"{before}{lead}{EXCLUDE_MARK}\n/{rel}\n")
    return f", which git did not ignore: now {exclude} (machine-local, never committed) does"


def _unkeep_local(layout: Layout) -> None:
    """Take out the lines `_keep_local` added to info/exclude, if they are there."""
    exclude = gitcmd.git_path(layout.root, "info/exclude")
    text = exclude.read_text(encoding="utf-8") if exclude.exists() else ""
    added = f"{EXCLUDE_MARK}\n/{claude.LOCAL_CONFIG}\n"
    if added in text:
        fileio.atomic_write(exclude, text.replace(added, ""))


def trust_codex(layout: Layout, report: Report, grant: bool = True) -> None:
    """Codex's trust in gridgit's hooks (gridgit.agents.codextrust), GRANT-ed as `/hooks` does: into REPORT's
    notes (what was trusted) and steps (what the person must still do before Codex runs them)."""
    from gridgit.agents import codextrust

    root = layout.root  # Codex lists what it loads there (a linked worktree's: the main worktree's file)
    by_hand = codextrust.TRUST_STEP.format(root=root)
    if codextrust.binary() is None:
        if not grant:
            return  # nothing to check on this machine: `--check` is about what it can see
        report.steps.append(
            f"Codex is not on this machine's PATH, so gridgit could not trust its hooks: once it is, run "
            f"`gridgit setup codex` again, or {by_hand}"
        )
        return
    try:
        trust = codextrust.trust(root) if grant else codextrust.survey(root)
    except codextrust.CodexUnavailable as exc:
        report.steps.append(f"gridgit could not ask Codex about its hooks ({exc}): {by_hand}")
        return
    if trust.trusted:
        config = os.path.join(codextrust.home(), "config.toml")
        report.notes.append(f"trusted gridgit's {len(trust.trusted)} hook(s) in Codex ({config}), as its /hooks does")
    if trust.step():
        report.steps.append(trust.step())


def remove(layout: Layout, name: str, local: bool = False, extra: list[Part] | None = None) -> Report:
    found = integration(layout, name, local, extra=extra)
    if found.tool.plugin is not None:
        return pluginfile.remove(found.path)
    report = jsonconfig.remove(found.path, found.parts, found.backup)
    if name == "claude" and not local:
        local_file = integration(layout, name, local=True)
        jsonconfig.remove(local_file.path, [_bin_part("")], local_file.backup)
        if not local_file.path.exists():
            _unkeep_local(layout)
    return report


def overlaps(layout: Layout, name: str) -> list[str]:
    """Warnings for tool NAME set up where another tool runs its hooks, or where it runs another's (ALSO_RUNS)."""
    said: list[str] = []
    for runner, runs in ALSO_RUNS.items():
        other = runs if name == runner else runner if name == runs else None
        if other is not None and any(label.split(" ")[0] == other for label in wired(layout)):
            said.append(
                f"{load(runner).title} also runs the hooks {load(runs).title} has in .claude/, gridgit's among them: "
                "in its sessions each edit is reported twice, as two agents (docs/agent-tools.md#github-copilot-cli)"
            )
    return said


def machine_bin() -> str | None:
    """This gridgit's console script when this machine's PATH finds another one or none; None when PATH finds it."""
    import shutil
    import sys

    ours = Path(sys.executable).with_name("gridgit")
    on_path = shutil.which("gridgit")
    if not ours.exists() or (on_path is not None and Path(on_path).resolve() == ours.resolve()):
        return None
    return str(ours)


def _bin_part(where: str) -> KeyValue:
    """`env.GRIDGIT_BIN` in Claude Code's local settings: the one machine-specific part (the hooks' commands read it)."""
    return KeyValue(("env", BIN_VARIABLE), where, lambda value: isinstance(value, str) and value.endswith("gridgit"))


def _main_of(layout: Layout, tool: Tool) -> Layout | None:
    """The main worktree's Layout where TOOL reads its hooks there from LAYOUT, a linked worktree (Codex); else None.

    Codex 0.171.0, seen through `hooks/list`: in a linked worktree it loads the project's hooks only
    when the worktree has a `.codex/` folder of its own, and then reads them from the main
    worktree's `.codex/hooks.json` (the worktree's own copy is not read). So both are written.
    """
    if not tool.main_worktree or layout.root == layout.main_root:
        return None
    return Layout.find(layout.main_root)


def check(layout: Layout, name: str, local: bool = False, extra: list[Part] | None = None) -> Report:
    """Whether gridgit's part of TOOL's config file is there and current (the file alone: see `runs`); for a tool
    that reads the main worktree's file (Codex), that one too."""
    found = integration(layout, name, local, extra=extra)
    if found.tool.plugin is not None:
        return pluginfile.status(found.path, found.tool.plugin_text())
    report = jsonconfig.status(found.path, found.parts)
    main = _main_of(layout, found.tool)
    if main is not None and report.installed:
        shared = check(main, name, local, extra)
        report.installed = shared.installed
        report.missing += [f"{shared.path}: {m}" for m in shared.missing]
        report.outdated += [f"{shared.path}: {o}" for o in shared.outdated]
    return report


def runs(layout: Layout, name: str, local: bool = False) -> Report:
    """check, and whether the tool will run the hooks: Codex's trust in them, in the report's steps."""
    report = check(layout, name, local)
    if name == "codex" and report.installed:
        trust_codex(layout, report, grant=False)
    return report


def survey(layout: Layout) -> dict[str, Report]:
    """Every tool's config that holds any of gridgit's hooks, with whether they are current."""
    found: dict[str, Report] = {}
    for name in TOOLS:
        for local in (False, True) if name == "claude" else (False,):
            report = check(layout, name, local)
            if report.installed or report.outdated or _has_any(report, name):
                found[f"{name}{' (local)' if local else ''}"] = report
    return found


def _has_any(report: Report, name: str) -> bool:
    """Some of gridgit's hooks are there (the rest missing): an install cut short, or edited by hand."""
    tool = load(name)
    if tool.plugin is not None:
        return False  # one file: there (current or not) or missing, nothing between
    return len([m for m in report.missing if m.startswith("hooks.")]) < len(tool.hooks)


# ---- every worktree of the repository ---------------------------------------------------------


def worktrees(layout: Layout) -> list[Layout]:
    """The Layout of every work tree of LAYOUT's repository (that still exists), the main one first."""
    found = [Layout.find(w.path) for w in gitcmd.worktrees(layout.root) if not w.bare and w.path.is_dir()]
    return found or [layout]


def wired(layout: Layout) -> list[str]:
    """The tools whose config in LAYOUT's work tree holds gridgit's hooks (`claude (local)` for the local file)."""
    return list(survey(layout))


def _by_name(label: str) -> tuple[str, bool]:
    name, _, local = label.partition(" ")
    return name, bool(local)


def unwired(layout: Layout) -> dict[Path, list[str]]:
    """Work trees of the repository that lack a tool another work tree has gridgit's hooks in: path -> tools."""
    trees = {tree.root: wired(tree) for tree in worktrees(layout)}
    everywhere = list(dict.fromkeys(label for labels in trees.values() for label in labels))
    return {root: missing for root, labels in trees.items() if (missing := [t for t in everywhere if t not in labels])}


def follow(layout: Layout) -> list[Report]:
    """Set up in LAYOUT's work tree (a new worktree) every tool another work tree of the repository has."""
    missing = unwired(layout).get(layout.root, [])
    return [install(layout, *_by_name(label)) for label in missing]
