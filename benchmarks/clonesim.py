"""Many clones of one bare origin, each with an agent syncing on auto-sync's timer (issue 35, item 5).

One driver for `python -m benchmarks --only many_clones` (10, 20, 50 clones, an hour of simulated
work) and tests/history/test_many_clones.py (a few clones, a few simulated minutes): it imports
gridgit and the harness's `percentile`, never the benchmark registry, so a test can import it.

Each clone has one agent in a process of its own (`python -m benchmarks.clonesim agent ...`)
calling gridgit's library, with real git and a real bare origin on this machine. The agent
writes entries, claims a file of a shared pool exclusively and releases it, takes blocks and
completes them, and syncs as the watcher daemon's auto-sync would (gridgit.history.autosync):
every `sync.auto_seconds` with its back-off (`next_wait`), a second after a write
(`PUSH_DELAY`), at once after a claim (push_soon), each run being `autosync.run_once`. A take
publishes itself (a compare-and-swap on the origin, gridgit.history.publish).

**Simulated time.** Every agent reads one clock: simulated seconds = SPEED x real seconds since
the common start, handed to gridgit as GRIDGIT_NOW (entry times, claim TTLs, staleness). The
timers and the agents' pace run on it, so an hour of work at SPEED 10 takes six real minutes;
git, the merges and the pushes run at the machine's real speed. So SPEED times more syncs meet
at the origin in a real second than on the team's machines (contention is overstated, never
understated), and a run's real duration counts SPEED times in simulated figures (visibility
is an upper bound). An action runs late when the machine cannot keep up: the lag is reported.
"""

from __future__ import annotations

import heapq
import json
import os
import random
import re
import statistics
import subprocess
import sys
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from benchmarks.harness import percentile

ROOT = Path(__file__).resolve().parents[1]
PHASE = "01-foundation"
MARKER = re.compile(r"simw-\d{3}-\d{5}")


@dataclass
class Plan:
    """What to simulate. Rates are per agent, in simulated seconds."""

    clones: int
    minutes: float  # simulated
    speed: float = 10.0  # simulated seconds per real second
    auto_seconds: float = 10.0  # sync.auto_seconds (the default)
    write_every: float = 120.0  # mean time between two entries of one agent
    claim_every: float = 300.0  # mean time between two exclusive claims of one agent
    hold: tuple[float, float] = (60.0, 600.0)  # how long a claim is held before its release
    block_seconds: float = 900.0  # mean time an agent works a block before completing it
    files: int = 0  # the pool of files claimed (0: as many as clones: collisions happen)
    blocks: int = 0  # blocks planned (0: three per clone, 99 at most: a phase's block ids are 01-01 to 01-99)
    seed: int = 35

    def pool(self) -> int:
        return self.files or self.clones

    def planned(self) -> int:
        return self.blocks or min(99, 3 * self.clones)


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


# ---- setting up: a bare origin and its clones -----------------------------------------------------


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GRID_", "GRIDGIT_", "GIT_"))}
    env.update(HOME=str(home), GIT_CONFIG_NOSYSTEM="1",
               PYTHONPATH=os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]).rstrip(os.pathsep))  # fmt: skip
    return env


def _run(args: list[str], cwd: Path, env: dict[str, str]) -> str:
    proc = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(args[:4])} in {cwd.name}: {proc.stderr.strip()[-400:]}")
    return proc.stdout


def _gridgit(args: list[str], cwd: Path, env: dict[str, str]) -> str:
    return _run([sys.executable, "-m", "gridgit", *args], cwd, env)


def setup(plan: Plan, root: Path) -> tuple[list[Path], dict[str, str]]:
    """A bare origin under ROOT and PLAN.clones clones of it sharing one Blackboard with `sync.auto` on
    and PLAN.planned() blocks (each with a file of its own) ready to take."""
    home = root / "home"
    home.mkdir(parents=True, exist_ok=True)
    env = _env(home)
    _run(["git", "config", "--global", "user.name", "sim"], root, env)
    _run(["git", "config", "--global", "user.email", "sim@example.com"], root, env)
    bare = root / "origin.git"
    _run(["git", "init", "-q", "--bare", "-b", "main", str(bare)], root, env)
    paths = [root / f"clone-{i:03d}" for i in range(plan.clones)]
    first = paths[0]
    _run(["git", "clone", "-q", str(bare), str(first)], root, env)
    (first / "README.md").write_text("# many clones\n", encoding="utf-8")
    _gridgit(["init", "--mission", "Many clones", "--phase", f"{PHASE}:Foundation"], first, env)
    config = first / ".grid" / "config.json"
    data = json.loads(config.read_text(encoding="utf-8"))
    data["sync"].update(auto=True, auto_seconds=plan.auto_seconds)
    # Staleness is judged against how long syncs and takes take, which run at real speed: a quiet
    # of 10 minutes is 10 x SPEED simulated ones, or compressed time alone makes a working agent stale.
    data["heartbeat"].update({k: v * plan.speed for k, v in data["heartbeat"].items() if k.endswith("_minutes")})
    config.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    from gridgit.blackboard import Blackboard

    board = Blackboard(first, agent="mc")
    for n in range(1, plan.planned() + 1):
        board.plan_block(f"01-{n:02d}", name=f"part {n}", files=[f"src/part{n}.py"])
    _run(["git", "add", "-A"], first, env)
    _run(["git", "commit", "-q", "-m", "start"], first, {**env, "GRIDGIT_HOOK_SYNC": "1"})
    _run(["git", "push", "-q", "origin", "main"], first, env)
    for path in paths[1:]:
        _run(["git", "clone", "-q", str(bare), str(path)], root, env)
        _gridgit(["init"], path, env)
    return paths, env


# ---- one agent, in a process of its own ----------------------------------------------------------


class _Clock:
    """Simulated time: SPEED x the real seconds since REAL0, from SIM0 (epoch seconds both)."""

    def __init__(self, real0: float, sim0: float, speed: float) -> None:
        self.real0, self.sim0, self.speed = real0, sim0, speed

    def now(self) -> float:
        return self.sim0 + (time.time() - self.real0) * self.speed

    def real(self, sim: float) -> float:
        return self.real0 + (sim - self.sim0) / self.speed


def agent(index: int, plan: Plan, real0: float, sim0: float, log_path: Path) -> None:
    """The agent of clone INDEX: its work and auto-sync's runs in simulated time, each one logged as a JSON line."""
    from gridgit.blackboard import Blackboard
    from gridgit.coordination import claims
    from gridgit.errors import GridError
    from gridgit.history import autosync
    from gridgit.store import clock as gclock
    from gridgit.store import config
    from gridgit.store.layout import Layout

    rng = random.Random(plan.seed * 1000 + index)
    clock = _Clock(real0, sim0, plan.speed)
    end = sim0 + plan.minutes * 60
    me = f"executor-{index + 1:03d}"
    layout = Layout.find(Path.cwd())
    board = Blackboard(layout.root, agent=me)
    _, interval, ceiling = autosync.settings(config.current(layout))
    log = log_path.open("a", encoding="utf-8")
    seen: set[str] = set()
    queue: list[tuple[float, int, str, float]] = []  # (simulated time, order, kind, real time asked)
    order = iter(range(10**9))
    state: dict[str, Any] = {"writes": 0, "idle": 0, "timer": 0.0, "held": None, "block": None}

    def at(sim: float, kind: str) -> None:
        heapq.heappush(queue, (sim, next(order), kind, time.time()))

    def record(kind: str, **fields: Any) -> None:
        log.write(json.dumps({"k": kind, **fields}) + "\n")
        log.flush()

    def sync(asked: float) -> None:
        """One auto-sync run for what was written before ASKED (real time), then the timer as the daemon sets it."""
        t0, before = clock.now(), time.time()
        status = autosync.run_once(layout, asked)
        if float(status.get("started_at") or 0) < before:
            return  # a run that started after the write was asked for covered it (run_once's own rule)
        t1 = clock.now()
        record("s", t0=t0, t1=t1, ok=bool(status.get("ok")), attempts=int(status.get("attempts") or 1),
               pushed=bool(status.get("pushed")), error=str(status.get("error") or ""))  # fmt: skip
        found = markers(layout.root)
        if found.keys() - seen:
            record("v", t=t1, m=sorted(found.keys() - seen))
            seen.update(found)
        state["idle"] = 0 if status.get("changed") or not status.get("ok") else state["idle"] + 1
        state["timer"] = t1 + autosync.next_wait(int(status.get("failures") or 0), state["idle"], interval, ceiling)
        at(state["timer"], "timer")

    def write() -> None:
        n = state["writes"] = state["writes"] + 1
        marker = f"simw-{index:03d}-{n:05d}"
        content = f"Finding: {marker} holds\nImpact: low\n\nEvidence:\n- File: src/part{n % 7}.py"
        entry = board.write("discovery", f"sim-{index}-{n}", content, agent=me)
        record("w", t=clock.now(), m=marker, id=str(getattr(entry, "id", "")))
        state["idle"] = 0  # the daemon sees the file change (Timer.request): a run a second later
        at(clock.now() + autosync.PUSH_DELAY, "soon")
        at(clock.now() + rng.expovariate(1 / plan.write_every), "write")

    def claim() -> None:
        if state["held"] is None:
            held = state["held"] = f"src/shared{rng.randrange(plan.pool())}.py"
            result = claims.claim(layout, [held], me, 60, True, "simulated")
            record("c", t=clock.now(), p=held, held=not result.conflicts)
            at(clock.now() + rng.uniform(*plan.hold), "release")
            state["idle"] = 0
            at(clock.now(), "soon")  # push_soon: the daemon is woken at once
        at(clock.now() + rng.expovariate(1 / plan.claim_every), "claim")

    def release() -> None:
        if state["held"] is not None:
            claims.release(layout, me, [state["held"]])
            record("r", t=clock.now(), p=state["held"])
            state["held"] = None

    def take() -> None:
        try:
            if state["block"] is not None:
                board.complete_block(state["block"], f"part done by {me}", agent=me)
                state["block"] = None
            taken = board.take(agent=me)
            state["block"] = taken.block.block_id
            record("t", t=clock.now(), b=taken.block.block_id, pushed=taken.pushed, provisional=taken.provisional,
                   attempts=taken.attempts, reoffered=taken.reoffered_from)  # fmt: skip
        except GridError as exc:  # nothing ready (every block taken or done): try again later
            record("t", t=clock.now(), b=None, error=str(exc).splitlines()[0][:200])
        at(clock.now() + rng.uniform(0.5, 1.5) * plan.block_seconds, "take")

    actions = {"write": write, "claim": claim, "release": release, "take": take}
    state["timer"] = sim0 + rng.uniform(0, interval)  # the daemons' timers start out of step
    at(state["timer"], "timer")
    at(sim0 + rng.uniform(0, 60), "take")
    at(sim0 + rng.expovariate(1 / plan.write_every), "write")
    at(sim0 + rng.expovariate(1 / plan.claim_every), "claim")
    while queue:
        due, _, kind, asked = heapq.heappop(queue)
        if due >= end:
            break
        if kind == "timer" and due != state["timer"]:
            continue  # a run since has set the timer again
        wait = clock.real(due) - time.time()
        if wait > 0:
            time.sleep(wait)
        record("lag", s=max(0.0, -wait))
        os.environ["GRIDGIT_NOW"] = gclock.iso(clock.now())
        if kind in ("timer", "soon"):
            sync(asked if kind == "soon" else time.time())
        else:
            actions[kind]()
    release()
    log.close()


# ---- running it and measuring what the history holds ----------------------------------------------


def _logs(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def converge(paths: list[Path], env: dict[str, str], rounds: int = 4) -> bool:
    """Sync every clone in turn until all hold the origin's grid commit; whether they do."""
    for _ in range(rounds):
        for path in paths:
            _gridgit(["sync"], path, env)
        tips = {_run(["git", "rev-parse", "refs/heads/grid"], path, env).strip() for path in paths}
        if len(tips) == 1:
            return True
    return False


def markers(path: Path) -> Counter[str]:
    """How many times each write's marker is in the clone's scratchpads and archives."""
    found: Counter[str] = Counter()
    for file in (path / ".grid" / "phases").glob("*/*.md"):
        found.update(MARKER.findall(file.read_text(encoding="utf-8", errors="replace")))
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
    for clone, lines in logs.items():
        for line in lines:
            if line["k"] == "t" and line.get("b") and line.get("pushed"):
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
    out = _run(["git", "count-objects", "-v"], path, env)
    return {k: int(v) for k, v in (line.split(": ") for line in out.splitlines()) if v.strip().isdigit()}


def simulate(plan: Plan, root: Path, timeout: float | None = None) -> Report:
    """Set up PLAN's clones under ROOT, run one agent in each, sync them all, and measure."""
    paths, env = setup(plan, root)
    report = Report(plan, load=(os.getloadavg()[0], 0.0))
    sim0 = time.time()
    real0 = time.time() + 1.0 + 0.1 * plan.clones  # every agent started and imported by then
    logs = [root / f"agent-{i:03d}.jsonl" for i in range(plan.clones)]
    spec = json.dumps({"plan": asdict(plan), "real0": real0, "sim0": sim0})
    procs = [
        subprocess.Popen([sys.executable, "-m", "benchmarks.clonesim", "agent", str(i), spec, str(logs[i])],
                         cwd=path, env=env, stdout=subprocess.DEVNULL, stderr=(root / f"agent-{i:03d}.err").open("w"))
        for i, path in enumerate(paths)
    ]  # fmt: skip
    limit = timeout or plan.minutes * 60 / plan.speed * 4 + 300
    started = time.time()
    for i, proc in enumerate(procs):
        proc.wait(max(1.0, limit - (time.time() - started)))
        if proc.returncode != 0:
            raise RuntimeError(
                f"agent {i} exited {proc.returncode}: {(root / f'agent-{i:03d}.err').read_text()[-800:]}"
            )
    report.real_seconds = time.time() - real0
    env = {**env, "GRIDGIT_NOW": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(sim0 + plan.minutes * 60))}
    report.converged = converge(paths, env)
    measure(report, paths, {i: _logs(p) for i, p in enumerate(logs)}, env)
    report.load = (report.load[0], os.getloadavg()[0])
    return report


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
    report.origin_commits = int(_run(["git", "rev-list", "--count", "refs/heads/grid"], origin, env).strip())


def _refused_in(error: str) -> int:
    """Refused pushes a failed run went through: all its rounds when it lost every race, else none."""
    from gridgit.history import sync

    return sync.ATTEMPTS if "lost the race" in error else 0


def main(argv: list[str]) -> int:
    """`python -m benchmarks.clonesim agent INDEX SPEC LOG`: one clone's agent (the working directory's)."""
    if len(argv) != 4 or argv[0] != "agent":
        print(main.__doc__, file=sys.stderr)
        return 2
    spec = json.loads(argv[2])
    plan = Plan(**{**spec["plan"], "hold": tuple(spec["plan"]["hold"])})
    agent(int(argv[1]), plan, spec["real0"], spec["sim0"], Path(argv[3]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
