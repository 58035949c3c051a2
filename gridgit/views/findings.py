"""What `gridgit doctor` reports: findings (ok, info, warn, fail, each with its fix) in one report."""

from __future__ import annotations

from gridgit.store.record import Record

TYPE_CHECKING = False  # typing costs a hook's start ~2.5 ms (see gridgit.store.record)
if TYPE_CHECKING:
    from typing import Any

LEVELS = ("ok", "info", "warn", "fail")


class Finding(Record):
    FIELDS = ("check", "level", "message", "fix", "details")
    __slots__ = FIELDS

    def __init__(self, check: str, level: str, message: str, fix: str = "", details: list[str] | None = None) -> None:
        self.check = check
        self.level = level
        self.message = message
        self.fix = fix
        self.details = details if details is not None else []

    def to_dict(self) -> dict[str, Any]:
        """Its fields, DETAILS copied (as dataclasses.asdict did)."""
        return {**self.fields(), "details": list(self.details)}


class Report(Record):
    FIELDS = ("root", "grid", "findings")
    __slots__ = FIELDS

    def __init__(self, root: str, grid: str, findings: list[Finding] | None = None) -> None:
        self.root = root
        self.grid = grid
        self.findings = findings if findings is not None else []

    @property
    def failures(self) -> int:
        return sum(f.level == "fail" for f in self.findings)

    @property
    def healthy(self) -> bool:
        return not self.failures

    def to_dict(self) -> dict[str, Any]:
        return {
            "root": self.root,
            "grid": self.grid,
            "healthy": self.healthy,
            "failures": self.failures,
            "findings": [f.to_dict() for f in self.findings],
        }

    def render(self) -> str:
        lines = [f"gridgit doctor: {self.root}"]
        for f in self.findings:
            lines.append(f"  {f.level.upper() if f.level == 'fail' else f.level:<5} {f.check:<13} {f.message}")
            lines += [f"{'':20}{d}" for d in f.details[:10]]
            if len(f.details) > 10:
                lines.append(f"{'':20}... and {len(f.details) - 10} more")
            if f.fix:
                lines.append(f"{'':20}fix: {f.fix}")
        failures = self.failures
        fixed = all(f.fix for f in self.findings if f.level == "fail")
        lines.append(
            "all good"
            if not failures
            else f"{failures} problem(s) need fixing" + (" (see `fix:` above)" if fixed else "")
        )
        return "\n".join(lines)
