"""The checks of `gridgit doctor`: git, hooks, .grid/ files, .gitignore, agents, locks, daemon.

Each check returns one finding or several, and names the command that fixes a failure.

Lock files: gridgit's locks are `flock` locks on sidecar `*.lock` files (`store.locks`), which
stay on disk after release, so their existence is normal. The kernel drops an flock lock when its
owner exits, so a lock can never outlive its process: doctor reports a lock that is held
right now (and by which pid, from /proc/locks), never a merely existing file. What a crash
does leave behind are `*.tmp` files of an interrupted atomic write (harmless, safe to delete)
and git's own `index.lock`, which makes every later `git commit` in that worktree fail.
"""

from __future__ import annotations

import os
import re
import shlex
import time
from pathlib import Path, PurePosixPath

from gridgit.errors import GridError
from gridgit.store import gitcmd
from gridgit.store.layout import Layout
from gridgit.views.findings import Finding

TYPE_CHECKING = False
if TYPE_CHECKING:
    from gridgit.agents.jsonconfig import Report

MIN_GIT = (2, 31)  # `rev-parse --path-format=absolute`, which the grid ref's plumbing uses
GOOD_GIT = (2, 38)  # `merge-tree --write-tree`, which `conflicts predict` needs
LEFTOVER_SECONDS = 300  # a temp file or index.lock this old belongs to no running command


def check_environment(root: Path) -> Finding:
    """The environment variables gridgit reads (store.environment), from ROOT: each one gridgit would refuse."""
    from gridgit.store import environment

    found = environment.problems(root)
    if not found:
        return Finding("environment", "ok", "the GRID_* and GRIDGIT_* variables set are valid")
    names = [name for name, _ in found]
    fix = "; ".join(f"unset {name}, or set it to {environment.VARIABLES[name]}" for name in names)
    return Finding(
        "environment", "fail", f"{', '.join(names)} set to a value gridgit refuses", fix, [m for _, m in found]
    )


def check_identity(layout: Layout) -> Finding:
    """GRID_AGENT_ID, with this Blackboard's custom agent types known (config.json agents.custom_types)."""
    from gridgit.model import permissions
    from gridgit.store import environment

    agent = os.environ.get("GRID_AGENT_ID")
    if not agent:
        return Finding(
            "identity", "info", "GRID_AGENT_ID is not set: commands need --agent (or `git config grid.agent`)"
        )
    try:
        permissions.check_agent(layout, agent)
    except GridError as exc:
        return Finding(
            "identity",
            "fail",
            f"GRID_AGENT_ID: {exc}",
            f"unset GRID_AGENT_ID, or set it to {environment.VARIABLES['GRID_AGENT_ID']}",
        )
    return Finding("identity", "ok", f"GRID_AGENT_ID={agent}")


def check_git() -> Finding:
    try:
        out = gitcmd.run(Path.cwd(), "--version")
    except (GridError, OSError) as exc:
        return Finding("git", "fail", f"git does not run: {exc}", "install git (2.31 or newer)")
    match = re.search(r"(\d+)\.(\d+)(?:\.(\d+))?", out)
    if not match:
        return Finding("git", "warn", f"cannot read the git version from {out.strip()!r}")
    version = (int(match.group(1)), int(match.group(2)))
    text = out.strip()
    if version < MIN_GIT:
        return Finding("git", "fail", f"{text}: gridgit needs git {'.'.join(map(str, MIN_GIT))}+", "upgrade git")
    if version < GOOD_GIT:
        return Finding("git", "warn", f"{text}: `conflicts predict` needs git 2.38+ (merge-tree --write-tree)")
    return Finding("git", "ok", text)


def _runs_gridgit(interpreter: str, cache: dict[str, bool]) -> bool:
    import subprocess

    if interpreter not in cache:
        try:
            proc = subprocess.run([interpreter, "-c", "import gridgit.git.hookrun"], capture_output=True, timeout=30)
            cache[interpreter] = proc.returncode == 0
        except (OSError, subprocess.TimeoutExpired):
            cache[interpreter] = False
    return cache[interpreter]


def check_hooks(layout: Layout) -> list[Finding]:
    """Hooks installed and executable, their baked interpreter runs gridgit; .grid/ out of the code branches."""

    from gridgit.git import hooks

    report = hooks.status(layout)
    folder = Path(report.hooks_dir)
    missing = [name for name, info in report.hooks.items() if not info.installed]
    findings = []
    cache: dict[str, bool] = {}
    if missing:
        findings.append(
            Finding("hooks", "fail", f"not installed in {folder}: {', '.join(missing)}", "gridgit hooks install")
        )
    else:
        broken = []
        for name in report.hooks:
            path = folder / name
            if not path.is_file() or not os.access(path, os.X_OK):
                broken.append(f"{name}: not executable (git skips it)")
                continue
            interpreter = hooks.baked_python(path)
            if interpreter and not _runs_gridgit(interpreter, cache):
                broken.append(f"{name}: {interpreter} cannot import gridgit (the hook only warns and skips)")
        outdated = [name for name, info in report.hooks.items() if not info.current]
        if broken:
            findings.append(
                Finding("hooks", "fail", "hooks installed but not working", "gridgit hooks install", broken)
            )
        elif outdated:
            findings.append(
                Finding(
                    "hooks",
                    "warn",
                    f"written by another gridgit version: {', '.join(outdated)}",
                    "gridgit hooks install",
                )
            )
        else:
            interpreters = ", ".join(cache) or "?"
            findings.append(Finding("hooks", "ok", f"{len(report.hooks)} hooks in {folder} run {interpreters}"))
    findings.append(check_history(layout))
    return findings


def check_history(layout: Layout) -> Finding:
    """The code branches leave .grid/ alone (`/.grid/` ignored, nothing tracked); its history is on the grid ref."""
    from gridgit.history import migrate
    from gridgit.store import gitignore

    if migrate.tracked(layout):
        return Finding(
            "grid-ref",
            "fail",
            "the code branch tracks .grid/ (an earlier gridgit): git's pulls, stashes and switches rewrite it",
            "gridgit migrate",
        )
    pattern = gitignore.board_pattern(layout)
    ignored = pattern is None or gitcmd.call(layout.main_root, "check-ignore", "-q", pattern.strip("/")).returncode == 0
    if not ignored:
        return Finding("grid-ref", "warn", f"{pattern} is not in .gitignore: `git add -A` would add it", "gridgit init")
    ref = gitcmd.run(layout.root, "for-each-ref", "--count=1", "--format=%(refname)", "refs/heads/grid", check=False)
    where = ref.strip() or "refs/heads/grid (no snapshot yet: a commit or `gridgit sync` makes one)"
    return Finding("grid-ref", "ok", f"the code branches ignore .grid/; its history is on {where}")


def check_daemon(layout: Layout) -> Finding:
    """Reported, never required: nothing needs the daemon."""
    from gridgit.watch import daemon

    info = daemon.status(layout)
    if info.state in ("running", "starting"):
        return Finding("daemon", "ok", f"{info.state} (pid {info.pid}, since {info.since})")
    if info.state == "stale-pid":
        return Finding(
            "daemon",
            "warn",
            f"a dead daemon left its pid file (pid {info.pid}); starting one cleans it up",
            "gridgit daemon start",
        )
    return Finding("daemon", "info", "not running (optional: `gridgit daemon start` adds live validation)")


def check_files(layout: Layout) -> list[Finding]:
    """Every .grid/ file against the validator the hooks use; a required file missing or of the wrong
    kind (validation.required) is a finding of its own, and so is index drift."""
    from gridgit.validation import required, rules, sources

    problems = sources.validate_worktree(layout)
    missing = [p for p in problems if p.kind == required.KIND]
    drift = [p for p in problems if p.kind == rules.INDEX_DRIFT]
    broken = [p for p in problems if p not in drift and p not in missing]
    findings = [Finding("layout", "fail", f"{p.path}: {p.message}", p.fix) for p in missing]
    if not missing:
        findings.append(Finding("layout", "ok", "every required file and folder is in place"))
    if broken:
        fixes = list(dict.fromkeys(p.fix for p in broken if p.fix))
        findings.append(
            Finding(
                "files",
                "fail",
                f"{len(broken)} problem(s) in .grid/ files",
                "; ".join(fixes[:2]) or "edit the named lines, then `gridgit validate`",
                [str(p) for p in broken],
            )
        )
    else:
        findings.append(Finding("files", "ok", "every .grid/ file is valid"))
    if drift:
        phases = sorted({PurePosixPath(p.path).parent.name for p in drift})
        findings.append(
            Finding(
                "index",
                "fail",
                "scratchpad index differs from its entries (hand edit?): " + ", ".join(phases),
                " && ".join(f"gridgit reindex --phase {p}" for p in phases),
                [str(p) for p in drift],
            )
        )
    else:
        findings.append(Finding("index", "ok", "every scratchpad index matches its entries"))
    return findings


def check_limits(layout: Layout) -> Finding:
    """Each scratchpad's archive threshold (its index's max_entries) against config.json's `scratchpad.max_entries`."""
    from gridgit.scratchpad import store
    from gridgit.store import config

    limit = config.value(layout, "scratchpad.max_entries")
    differ = []
    for phase_id in layout.phase_ids():
        try:
            pad = store.load_if_any(layout, phase_id)
        except GridError:
            continue  # a broken scratchpad is the files check's finding
        if pad is not None and pad.max_entries != limit:
            differ.append(f"{phase_id}: max_entries {pad.max_entries}")
    if not differ:
        return Finding("limits", "ok", f"every scratchpad archives past {limit} entries (scratchpad.max_entries)")
    return Finding(
        "limits",
        "warn",
        f"{len(differ)} scratchpad(s) keep another limit than config.json's scratchpad.max_entries ({limit})",
        "gridgit reindex (gives every scratchpad config.json's limit)",
        differ,
    )


def check_gitignore(layout: Layout) -> Finding:
    from gridgit.store import gitignore

    lines = gitignore.foreign(layout, gitignore.commits_events(layout))
    if lines:
        return Finding(
            "gitignore",
            "fail",
            f".grid/.gitignore holds {len(lines)} line(s) gridgit did not write: the file is gridgit's own (a peer's "
            "or a typed line must never take Blackboard files out of the shared history); a snapshot writes gridgit's "
            "text back and keeps your lines machine-local, in .git/gridgit/grid-exclude",
            "gridgit snapshot",
            lines,
        )
    if (layout.grid / ".gitignore").is_file():
        return Finding("gitignore", "ok", ".grid/.gitignore keeps locks, cursors and the daemon out of git")
    return Finding(
        "gitignore",
        "warn",
        ".grid/.gitignore is missing: lock and cursor files may get committed",
        "gridgit init --force",
    )


def check_agents(layout: Layout) -> Finding:
    """The registered agents (STATE agents.active) that went silent; an agent that merely wrote an entry is not one."""
    from gridgit.coordination import agents
    from gridgit.model import state
    from gridgit.store import config

    rows = agents.active_rows(layout, state.read(layout), config.load(layout))
    stale = [r for r in rows if r.get("stale")]
    if not stale:
        return Finding("agents", "ok", f"{len(rows)} registered agent(s), none stale")
    details = [f"{s['id']}: last heartbeat {s['last_heartbeat'] or 'never'}" for s in stale]
    return Finding(
        "agents",
        "warn",
        f"{len(stale)} of {len(rows)} registered agent(s) silent for over the stale threshold",
        "check on them; once finished: `gridgit agent done ID --agent mc`",
        details,
    )


def _flock_holders() -> dict[int, int]:
    """inode -> pid of every FLOCK lock on this machine (Linux /proc/locks; empty elsewhere)."""
    holders: dict[int, int] = {}
    try:
        text = Path("/proc/locks").read_text()
    except OSError:
        return holders
    for line in text.splitlines():
        parts = line.split()
        if len(parts) >= 6 and parts[1] == "FLOCK":
            try:
                holders[int(parts[5].split(":")[2])] = int(parts[4])
            except (ValueError, IndexError):
                continue
    return holders


def check_locks(layout: Layout) -> list[Finding]:
    from gridgit.watch.instance import flock_held

    findings = []
    held = []
    holders = _flock_holders()
    for path in sorted(layout.grid.rglob("*.lock")):
        if flock_held(path):
            pid = holders.get(path.stat().st_ino)
            held.append(f"{path.relative_to(layout.grid)}: held by pid {pid if pid else '?'}")
    if held:
        findings.append(
            Finding("locks", "info", f"{len(held)} lock(s) held right now by running gridgit commands", "", held)
        )
    else:
        findings.append(Finding("locks", "ok", "no lock is held (lock files on disk are normal)"))
    leftovers = [
        p for p in layout.grid.rglob("*.tmp") if p.is_file() and time.time() - p.stat().st_mtime > LEFTOVER_SECONDS
    ]
    if leftovers:
        shown = [str(p.relative_to(layout.root)) for p in sorted(leftovers)]
        findings.append(
            Finding(
                "temp-files",
                "warn",
                f"{len(leftovers)} temp file(s) left by interrupted writes (the data files are intact)",
                "rm " + " ".join(shlex.quote(s) for s in shown),
                shown,
            )
        )
    index_lock = gitcmd.git_path(layout.root, "index.lock")
    if index_lock.exists() and time.time() - index_lock.stat().st_mtime > LEFTOVER_SECONDS:
        findings.append(
            Finding(
                "git-lock",
                "fail",
                f"{index_lock} left by a crashed git command: every `git commit` here fails until it is removed "
                "(once no git command runs here)",
                f"rm {shlex.quote(str(index_lock))}",
            )
        )
    return findings


def check_mcp_servers(layout: Layout) -> Finding:
    """gridgit's MCP server in agent tools' configs (`gridgit setup TOOL --mcp`): can its interpreter start it?"""
    from gridgit.agents import mcpconfig

    servers = {tool: entry for tool in mcpconfig.FILES if (entry := mcpconfig.configured(layout, tool))}
    if not servers:
        return Finding("mcp", "info", "no agent tool runs gridgit's MCP server (`gridgit setup TOOL --mcp` adds it)")
    broken = {tool: problem for tool, e in servers.items() if (problem := mcpconfig.server_problem(str(e["command"])))}
    if not broken:
        return Finding("mcp", "ok", f"gridgit's MCP server can start for: {', '.join(servers)}")
    # Rewritten with this interpreter, which needs the extra itself first when it lacks it.
    install = "pip install 'gridgit[mcp]' && " if mcpconfig.cannot_start() else ""
    fixes = []
    for tool in broken:
        agent = (servers[tool].get("env") or {}).get("GRID_AGENT_ID")
        fixes.append(f"gridgit setup {tool} --mcp" + (f" --agent {shlex.quote(str(agent))}" if agent else ""))
    details = [f"{tool}: {problem}" for tool, problem in broken.items()]
    return Finding(
        "mcp",
        "fail",
        f"gridgit's MCP server cannot start for: {', '.join(broken)}",
        install + " && ".join(fixes),
        details,
    )


def _codex_untrusted(layout: Layout, report: Report | None) -> tuple[str, str] | None:
    """(what is wrong, the fix) when Codex would skip gridgit's hooks it has: untrusted, changed since
    trusted (stale), or in a project Codex does not trust (gridgit.agents.codextrust); None when it
    runs them or cannot say (no `codex` on this machine's PATH, or its app server did not answer)."""
    from gridgit.agents import codextrust

    if report is None or not report.installed or codextrust.binary() is None:
        return None
    try:
        trust = codextrust.survey(layout.root)
    except codextrust.CodexUnavailable:
        return None
    if not trust.project_trusted:
        return "Codex does not trust this project: it runs no hook of its .codex/", trust.step()
    if not trust.review:
        return None
    statuses = list(trust.hooks.values())
    said = [f"{statuses.count(s)} {what}" for s, what in (("untrusted", "never trusted"),
            ("modified", "changed since trusted (stale)")) if s in statuses]  # fmt: skip
    return (
        f"Codex skips {len(trust.review)} of gridgit's {len(statuses)} hooks: {', '.join(said)}",
        "gridgit setup codex (trusts them as Codex's /hooks does)",
    )


def check_integrations(layout: Layout) -> Finding:
    """Which agent tools have gridgit's hooks (`gridgit setup TOOL`), whether this gridgit wrote them, and
    whether every worktree of the repository has them (a worktree made for another agent)."""
    from gridgit.agents import setup

    found = setup.survey(layout)
    details = [
        f"{name}: {r.path} " + ("current" if r.installed else f"outdated ({', '.join(r.outdated + r.missing)})")
        for name, r in found.items()
    ]
    stale = [name.split(" ")[0] for name, r in found.items() if not r.installed]
    if stale:
        fix = " && ".join(f"gridgit setup {n}" for n in dict.fromkeys(stale))
        return Finding("integrations", "warn", f"outdated agent tool hooks: {', '.join(stale)}", fix, details)
    untrusted = _codex_untrusted(layout, found.get("codex"))
    if untrusted:  # a fail, as an MCP server that cannot start: Codex skips them without a word
        return Finding("integrations", "fail", untrusted[0], untrusted[1], details)
    unwired = setup.unwired(layout)
    if unwired:
        details += [f"{root}: not wired: {', '.join(tools)}" for root, tools in unwired.items()]
        tools = dict.fromkeys(t.split(" ")[0] for missing in unwired.values() for t in missing)
        fix = " && ".join(f"gridgit setup {t} --all-worktrees" for t in tools)
        where = ", ".join(str(root) for root in unwired)
        return Finding("integrations", "warn", f"agent tool hooks missing in worktree {where}", fix, details)
    if not found:
        return Finding(
            "integrations", "info", "no agent tool runs gridgit's hooks", "gridgit setup claude|codex|gemini|cursor"
        )
    return Finding("integrations", "ok", f"agent tool hooks current: {', '.join(found)}", details=details)
