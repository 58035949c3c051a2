"""`gridgit doctor`: check a repository's gridgit set-up and say how to fix what is wrong.

Each check yields one finding: `ok`, `info` (worth knowing, nothing to do), `warn` (look at
it) or `fail` (needs fixing; the report names the command that fixes it). Only `fail`
findings make the report unhealthy (and `gridgit doctor` exit 1).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from gridgit.errors import GridError
from gridgit.store import config
from gridgit.store.layout import Layout
from gridgit.views import history
from gridgit.views.checks import (
    check_agents,
    check_daemon,
    check_environment,
    check_files,
    check_git,
    check_gitignore,
    check_hooks,
    check_identity,
    check_integrations,
    check_limits,
    check_locks,
    check_mcp_servers,
)
from gridgit.views.findings import Finding, Report

# Each check with the fix of its failing to run at all (a GridError names what stopped it).
CHECKS: list[tuple[str, Callable[[Layout], Finding | list[Finding]], str]] = [
    ("identity", check_identity, "unset GRID_AGENT_ID"),
    ("hooks", check_hooks, "gridgit hooks install"),
    ("integrations", check_integrations, "gridgit setup TOOL --check (names the file to fix)"),
    ("mcp", check_mcp_servers, "gridgit setup TOOL --mcp --check (names the file to fix)"),
    ("files", check_files, "gridgit validate (names each file and line to fix)"),
    ("history", history.findings, "gridgit doctor --repair"),
    ("limits", check_limits, "gridgit reindex"),
    ("gitignore", check_gitignore, "gridgit init --force"),
    ("agents", check_agents, "gridgit validate (STATE.md must parse for the agents to be read)"),
    ("locks", check_locks, "gridgit doctor again once the commands holding locks are done"),
    ("daemon", check_daemon, "gridgit daemon stop && gridgit daemon start"),
]


def run(start: Path | str | None = None) -> Report:
    """Every check, in the order a user would fix them; never raises for what it checks.

    Every failure names its fix; what every later check depends on (the environment, the
    repository, .grid/) stops the report when it fails, so no finding is the echo of another.
    A config.json that does not load is a finding, and the other checks run on the defaults.
    """
    with config.recovering():
        return _run(start)


def _run(start: Path | str | None) -> Report:
    git_finding = check_git()
    here = Path(start or Path.cwd())
    environment = check_environment(here.resolve())
    if environment.level == "fail":
        return Report(str(here), "", [git_finding, environment])
    try:
        layout = Layout.find(start)
    except GridError as exc:
        report = Report(str(here), "")
        report.findings = [git_finding, environment, Finding("repository", "fail", str(exc), "git init")]
        return report
    report = Report(str(layout.root), str(layout.grid), [git_finding, environment])
    if not layout.grid.is_dir():
        report.findings.append(Finding("grid", "fail", f"no Blackboard at {layout.grid}", "gridgit init"))
        return report
    report.findings.append(Finding("grid", "ok", f"Blackboard at {layout.grid}"))
    report.findings += [check_config(layout), check_writable(layout)]
    for name, check, fix in CHECKS:
        if name == "agents" and not layout.state.is_file():
            continue  # the files check names it; the agents are in it
        try:
            found = check(layout)
        except GridError as exc:
            # A check that cannot run (e.g. an unreadable STATE.md) is itself a finding.
            found = Finding(name, "fail", str(exc), fix)
        except Exception as exc:  # a doctor that crashes on a sick repository helps nobody
            message = f"the check itself failed: {type(exc).__name__}: {exc}"
            found = Finding(name, "fail", message, f"{fix}; if it still fails, report this message")
        report.findings.extend(found if isinstance(found, list) else [found])
    return report


def check_config(layout: Layout) -> Finding:
    """config.json loads (every command but doctor, restore and repair refuses to run without it)."""
    problem = config.problem(layout)
    if problem is None:
        return Finding("config", "ok", "config.json loads")
    return Finding("config", "fail", f"{problem} (the other checks used the defaults)", "gridgit doctor --repair")


def check_writable(layout: Layout) -> Finding:
    """Whether this user may write .grid/: on a read-only checkout the commands that only read still work."""
    import os

    if os.access(layout.grid, os.W_OK) and os.access(layout.grid / "events", os.W_OK | os.F_OK):
        return Finding("writable", "ok", ".grid/ is writable")
    return Finding(
        "writable",
        "warn",
        f"{layout.grid} is read-only for this user: the commands that only read work, every write is refused",
        f"chmod -R u+w {layout.grid} (or run as its owner) to write",
    )
