"""`gridgit doctor`: check a repository's gridgit set-up and say how to fix what is wrong.

Each check yields one finding: `ok`, `info` (worth knowing, nothing to do), `warn` (look at
it) or `fail` (needs fixing; the report names the command that fixes it). Only `fail`
findings make the report unhealthy (and `gridgit doctor` exit 1).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from gridgit.errors import GridError
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

# The fix of a check that could not run at all (a GridError names what stopped it).
_FIXES = {
    "hooks": "gridgit hooks install",
    "integrations": "gridgit setup TOOL --check (names the file to fix)",
    "mcp": "gridgit setup TOOL --mcp --check (names the file to fix)",
    "files": "gridgit validate (names each file and line to fix)",
    "gitignore": "gridgit init --force",
    "agents": "gridgit validate (STATE.md must parse for the agents to be read)",
    "locks": "gridgit doctor again once the commands holding locks are done",
    "daemon": "gridgit daemon stop && gridgit daemon start",
    "identity": "unset GRID_AGENT_ID",
}


def run(start: Path | str | None = None) -> Report:
    """Every check, in the order a user would fix them; never raises for what it checks.

    Every failure names its fix; what every later check depends on (the environment, the
    repository, .grid/) stops the report when it fails, so no finding is the echo of another.
    """
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
    checks: list[tuple[str, Callable[[Layout], Finding | list[Finding]]]] = [
        ("identity", check_identity),
        ("hooks", check_hooks),
        ("integrations", check_integrations),
        ("mcp", check_mcp_servers),
        ("files", check_files),
        ("history", history.findings),
        ("limits", check_limits),
        ("gitignore", check_gitignore),
        ("agents", check_agents),
        ("locks", check_locks),
        ("daemon", check_daemon),
    ]
    if not layout.state.is_file():  # the files check names it; the agents are in it
        checks.remove(("agents", check_agents))
    for name, check in checks:
        try:
            found = check(layout)
        except GridError as exc:
            # A check that cannot run (e.g. an unreadable STATE.md) is itself a finding.
            found = Finding(name, "fail", str(exc), _FIXES[name])
        except Exception as exc:  # a doctor that crashes on a sick repository helps nobody
            message = f"the check itself failed: {type(exc).__name__}: {exc}"
            found = Finding(name, "fail", message, f"{_FIXES[name]}; if it still fails, report this message")
        report.findings.extend(found if isinstance(found, list) else [found])
    return report
