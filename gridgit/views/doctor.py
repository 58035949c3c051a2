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
from gridgit.views.checks import (
    check_agents,
    check_daemon,
    check_files,
    check_git,
    check_gitignore,
    check_hooks,
    check_integrations,
    check_limits,
    check_locks,
)
from gridgit.views.findings import Finding, Report


def run(start: Path | str | None = None) -> Report:
    """Every check, in the order a user would fix them; never raises for what it checks."""
    git_finding = check_git()
    try:
        layout = Layout.find(start)
    except GridError as exc:
        report = Report(str(start or Path.cwd()), "")
        report.findings = [git_finding, Finding("repository", "fail", str(exc), "git init")]
        return report
    report = Report(str(layout.root), str(layout.grid), [git_finding])
    if not layout.state.exists():
        try:
            layout.require()
        except GridError as exc:  # say which: never initialised, or STATE.md deleted (repairable)
            fix = "gridgit doctor --repair" if "--repair" in str(exc) else "gridgit init"
            report.findings.append(Finding("grid", "fail", str(exc).split(": run")[0], fix))
        return report
    report.findings.append(Finding("grid", "ok", f"Blackboard at {layout.grid}"))
    checks: list[tuple[str, Callable[[Layout], Finding | list[Finding]]]] = [
        ("hooks", check_hooks),
        ("integrations", check_integrations),
        ("files", check_files),
        ("limits", check_limits),
        ("gitignore", check_gitignore),
        ("agents", check_agents),
        ("locks", check_locks),
        ("daemon", check_daemon),
    ]
    for name, check in checks:
        try:
            found = check(layout)
        except GridError as exc:
            # A check that cannot run (e.g. an unreadable STATE.md) is itself a finding.
            found = Finding(name, "fail", str(exc))
        except Exception as exc:  # a doctor that crashes on a sick repository helps nobody
            found = Finding(name, "fail", f"the check itself failed: {type(exc).__name__}: {exc}")
        report.findings.extend(found if isinstance(found, list) else [found])
    return report
