"""What a many-clones run measured (benchmarks/clonesim.py): from the agents' logs and what each clone's
history holds after the final sync. Imported by the benchmark and by tests/history/test_many_clones.py."""

from __future__ import annotations

import json
import re
import statistics
import subprocess
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchmarks.harness import percentile, run

if TYPE_CHECKING:
    from benchmarks.clonesim import Plan

MARKER_RE = r"simw-\d{3}-\d{5}"


@dataclass
class Report:
    """What a run measured (simulated seconds unless named otherwise)."""

    plan: Plan
    real_seconds: float = 0.0
    load: tuple[float, float] = (0.0, 0.0)  # 1-minute load average at the start and at the end
    writes: int = 0  # acknowledged entries
    lost: int = 0  # acknowledged entries missing from some clone after the final sync
    doubled: int = 0  # entries held twice by some clone
    syncs: int = 0  # auto-sync runs
    failed_syncs: int = 0  # runs that did not push (their writes went with a later run)
    refused: int = 0  # pushes refused as non-fast-forward (each one retried), syncs and takes
    pushes: int = 0  # pushes accepted, syncs and takes
    origin_commits: int = 0  # grid commits the origin holds at the end: the history an hour leaves
    takes: int = 0  # takes confirmed on the origin
    provisional: int = 0  # takes the origin did not confirm (settled at a later sync)
    taken_twice: int = 0  # blocks confirmed to two agents, or held at the end by another than its taker
    reoffered: int = 0  # takes from a holder judged quiet (every simulated agent is at work: duplicate work)
    claims: int = 0  # exclusive claims granted with no conflict (held, as far as their agent knows)
    held_twice: int | None = None  # one file held exclusively by two agents at once; None: claims do not travel
    claims_crossing: int = 0  # such overlaps across clones, whether or not claims travel
    visible: list[float] = field(default_factory=list)  # per write: until it is in every other clone
    unseen: int = 0  # writes some clone saw only at the final sync
    lag_p90: float = 0.0  # real seconds an agent's action started after its simulated time
    run_p50: float = 0.0  # real seconds an auto-sync run took: about the window in which another push refuses it
    objects: list[dict[str, int]] = field(default_factory=list)  # git count-objects -v, per clone
    converged: bool = False

    def refused_per_minute(self) -> float:
        return self.refused / self.plan.minutes

    def percentile(self, q: float) -> float:
        return percentile(self.visible, q) if self.visible else 0.0

    def objects_summary(self) -> dict[str, float]:
        """Median over clones of the object count (loose and packed) and of their size (KiB)."""
        counts = [o.get("count", 0) + o.get("in-pack", 0) for o in self.objects]
        sizes = [o.get("size", 0) + o.get("size-pack", 0) for o in self.objects]
        return {"count": statistics.median(counts) if counts else 0, "kib": statistics.median(sizes) if sizes else 0,
                "loose": statistics.median([o.get("count", 0) for o in self.objects]) if self.objects else 0}  # fmt: skip

    def lines(self) -> list[str]:
        """The report in words, one figure a line."""
        p = self.plan
        objects = self.objects_summary()
        claims = "n/a until claims travel" if self.held_twice is None else str(self.held_twice)
        return [
            f"{p.clones} clones, {p.minutes:g} simulated minutes at x{p.speed:g} ({self.real_seconds:.0f} s real), "
            f"load {self.load[0]:.1f} -> {self.load[1]:.1f}, action lag p90 {self.lag_p90:.1f} s real, "
            f"an auto-sync run p50 {self.run_p50:.2f} s real",
            f"writes acknowledged {self.writes}: lost {self.lost}, doubled {self.doubled}",
            f"auto-sync runs {self.syncs} ({self.failed_syncs} unpushed); pushes refused and retried "
            f"{self.refused} ({self.refused_per_minute():.1f} a simulated minute, "
            f"{self.refused / max(1, self.syncs + self.takes):.2f} a run; {self.pushes} pushes accepted)",
            f"takes confirmed {self.takes}, provisional {self.provisional}; blocks taken twice {self.taken_twice}, "
            f"re-offered from an agent at work {self.reoffered}",
            f"exclusive claims held {self.claims}; held twice {claims} "
            f"(two clones' agents holding one file at once: {self.claims_crossing})",
            f"write -> visible in every other clone: p50 {self.percentile(50):.1f} s, p90 {self.percentile(90):.1f} s "
            f"simulated ({self.unseen} seen only at the final sync)",
            f"git objects per clone (median): {objects['count']:.0f} ({objects['loose']:.0f} loose), "
            f"{objects['kib'] / 1024:.1f} MiB; {self.origin_commits} grid commits; converged {self.converged}",
        ]


def read_logs(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def markers(path: Path) -> Counter[str]:
    """How many times each write's marker is in the clone's scratchpads and archives."""
    found: Counter[str] = Counter()
    for file in (path / ".grid" / "phases").glob("*/*.md"):
        found.update(re.findall(MARKER_RE, file.read_text(encoding="utf-8", errors="replace")))
    return found


def claims_travel(path: Path, env: dict[str, str]) -> bool:
    """Whether the Blackboard's history holds the claims (so one clone's claim is seen by the others)."""
    proc = subprocess.run(["git", "cat-file", "-e", "refs/heads/grid:claims.json"], cwd=path, env=env,
                          capture_output=True)  # fmt: skip
    return proc.returncode == 0


def claims_held_twice(logs: dict[int, list[dict[str, Any]]]) -> int:
    """Times two agents of two clones held one file exclusively at once (each told it held it, no conflict)."""
    spans: list[tuple[str, float, float, int]] = []
    for clone, lines in logs.items():
        start: dict[str, float] = {}
        for line in lines:
            if line["k"] == "c" and line["held"]:
                start[line["p"]] = line["t"]
            elif line["k"] == "r" and line["p"] in start:
                spans.append((line["p"], start.pop(line["p"]), line["t"], clone))
    twice = 0
    for i, (path, t0, t1, clone) in enumerate(spans):
        twice += sum(1 for p, u0, u1, c in spans[i + 1 :] if p == path and c != clone and u0 < t1 and t0 < u1)
    return twice


def blocks_taken_twice(paths: list[Path], logs: dict[int, list[dict[str, Any]]]) -> tuple[int, int]:
    """(blocks confirmed to a second agent that was not told it took it from a quiet holder, or held in the end
    by another agent than the ones confirmed; takes from a holder judged quiet). Every simulated agent works
    without pause, so a take from a quiet holder is duplicate work too."""
    from gridgit.blackboard import Blackboard

    confirmed: dict[str, set[str]] = {}
    twice = reoffered = 0
    takes = [(line["t"], clone, line) for clone, lines in logs.items() for line in lines if line["k"] == "t"]
    for _, clone, line in sorted(takes, key=lambda take: take[:2]):  # in the order they were confirmed
        if line.get("b") and line.get("pushed"):
            if line.get("reoffered"):
                reoffered += 1
            elif line["b"] in confirmed:
                twice += 1
            confirmed.setdefault(line["b"], set()).add(f"executor-{clone + 1:03d}")
    for block in Blackboard(paths[0]).blocks():
        if block.block_id in confirmed and block.owner and block.owner not in confirmed[block.block_id]:
            twice += 1
    return twice, reoffered


def objects(path: Path, env: dict[str, str]) -> dict[str, int]:
    """`git count-objects -v` of PATH: count and size (KiB) loose, in-pack and size-pack."""
    out = run(["git", "count-objects", "-v"], path, env)
    return {k: int(v) for k, v in (line.split(": ") for line in out.splitlines()) if v.strip().isdigit()}


def measure(report: Report, paths: list[Path], logs: dict[int, list[dict[str, Any]]], env: dict[str, str]) -> None:
    """Fill REPORT from the agents' LOGS and what each clone holds after the final sync."""
    writes = {line["m"]: (clone, line["t"]) for clone, lines in logs.items() for line in lines if line["k"] == "w"}
    report.writes = len(writes)
    held = [markers(path) for path in paths]
    report.lost = sum(1 for m in writes if any(h[m] == 0 for h in held))
    report.doubled = sum(1 for m in writes if any(h[m] > 1 for h in held))
    seen: dict[tuple[int, str], float] = {}
    lags: list[float] = []
    runs: list[float] = []
    for clone, lines in logs.items():
        for line in lines:
            if line["k"] == "v":
                for m in line["m"]:
                    seen.setdefault((clone, m), line["t"])
            elif line["k"] == "s":
                report.syncs += 1
                runs.append((line["t1"] - line["t0"]) / report.plan.speed)
                report.pushes += 1 if line.get("pushed") else 0
                report.failed_syncs += 0 if line["ok"] else 1
                report.refused += line["attempts"] - 1 if line["ok"] else _refused_in(line["error"])
            elif line["k"] == "t" and line.get("b"):
                report.takes += 1 if line["pushed"] else 0
                report.pushes += 1 if line["pushed"] else 0
                report.provisional += 1 if line["provisional"] else 0
                report.refused += max(0, int(line.get("attempts") or 1) - 1)
            elif line["k"] == "c" and line["held"]:
                report.claims += 1
            elif line["k"] == "lag":
                lags.append(line["s"])
    for marker, (writer, t) in writes.items():
        times = [seen.get((clone, marker)) for clone in logs if clone != writer]
        if any(s is None for s in times):
            report.unseen += 1
        elif times:
            report.visible.append(max(s for s in times if s is not None) - t)
    report.lag_p90 = percentile(lags, 90) if lags else 0.0
    report.run_p50 = percentile(runs, 50) if runs else 0.0
    report.taken_twice, report.reoffered = blocks_taken_twice(paths, logs)
    report.claims_crossing = claims_held_twice(logs)
    report.held_twice = report.claims_crossing if claims_travel(paths[0], env) else None
    report.objects = [objects(path, env) for path in paths]
    origin = paths[0].parent / "origin.git"
    report.origin_commits = int(run(["git", "rev-list", "--count", "refs/heads/grid"], origin, env).strip())


def _refused_in(error: str) -> int:
    """Refused pushes a failed run went through: all its rounds when it lost every race, else none."""
    from gridgit.history import sync

    return sync.ATTEMPTS if "lost the race" in error else 0
