"""Many clones of one bare origin, each with an agent syncing on auto-sync's timer (issue 35, item 5).

One driver for `python -m benchmarks --only many_clones` (10, 20, 50 clones, an hour of simulated
work) and tests/history/test_many_clones.py (a few clones, a few simulated minutes): it imports
gridgit and the harness's helpers, never the benchmark registry, so a test can import it. What a
run measured is benchmarks/clonereport.py's.

Each clone has one agent in a process of its own (`python -m benchmarks.clonesim agent ...`)
calling gridgit's library, with real git and a real bare origin on this machine. The agent
writes entries, claims a file of a shared pool exclusively and releases it, takes blocks and
completes them, and syncs as the watcher daemon's auto-sync would (gridgit.history.autosync):
every `sync.auto_seconds` with its back-off (`next_wait`), a second after a write
(`PUSH_DELAY`), at once after a claim (push_soon), each run being `autosync.run_once`. A take
publishes itself, as an exclusive claim does (a compare-and-swap on the origin, gridgit.history.publish).

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
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from benchmarks.clonereport import Report, markers, measure, read_logs
from benchmarks.harness import bench_env, run

ROOT = Path(__file__).resolve().parents[1]
PHASE = "01-foundation"


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


# ---- setting up: a bare origin and its clones -----------------------------------------------------


def _gridgit(args: list[str], cwd: Path, env: dict[str, str]) -> str:
    return run([sys.executable, "-m", "gridgit", *args], cwd, env)


def setup(plan: Plan, root: Path) -> tuple[list[Path], dict[str, str]]:
    """A bare origin under ROOT and PLAN.clones clones of it sharing one Blackboard with `sync.auto` on
    and PLAN.planned() blocks (each with a file of its own) ready to take."""
    home = root / "home"
    home.mkdir(parents=True, exist_ok=True)
    env = bench_env(home, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    bare = root / "origin.git"
    run(["git", "init", "-q", "--bare", "-b", "main", str(bare)], root, env)
    paths = [root / f"clone-{i:03d}" for i in range(plan.clones)]
    first = paths[0]
    run(["git", "clone", "-q", str(bare), str(first)], root, env)
    (first / "README.md").write_text("# many clones\n", encoding="utf-8")
    _gridgit(["init", "--mission", "Many clones", "--phase", f"{PHASE}:Foundation"], first, env)
    config = first / ".grid" / "config.json"
    data = json.loads(config.read_text(encoding="utf-8"))
    data["sync"].update(auto=True, auto_seconds=plan.auto_seconds)
    # Staleness is judged against how long syncs and takes take, which run at real speed: compressed
    # (SPEED > 1), a quiet of 10 minutes is 10 x SPEED simulated ones, or compressed time alone would make
    # working agents stale. Slowed down, the agents' own pace (their signs of work) decides: the defaults.
    scale = max(1.0, plan.speed)
    data["heartbeat"].update({k: v * scale for k, v in data["heartbeat"].items() if k.endswith("_minutes")})
    config.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    from gridgit.blackboard import Blackboard

    board = Blackboard(first, agent="mc")
    for n in range(1, plan.planned() + 1):
        board.plan_block(f"01-{n:02d}", name=f"part {n}", files=[f"src/part{n}.py"])
    run(["git", "add", "-A"], first, env)
    run(["git", "commit", "-q", "-m", "start"], first, {**env, "GRIDGIT_HOOK_SYNC": "1"})
    run(["git", "push", "-q", "origin", "main"], first, env)
    for path in paths[1:]:
        run(["git", "clone", "-q", str(bare), str(path)], root, env)
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
    state: dict[str, Any] = {"writes": 0, "idle": 0, "timer": 0.0, "held": None, "block": None, "due": sim0}

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
        at(state["due"] + rng.expovariate(1 / plan.write_every), "write")

    def claim() -> None:
        if state["held"] is None:
            held = state["held"] = f"src/shared{rng.randrange(plan.pool())}.py"
            # As `gridgit claim --exclusive` makes it: confirmed on the origin first (gridgit.history.publish).
            result = board.claim([held], me, 60, True, "simulated")
            # Held: confirmed, with no other agent's claim in the way (a claim waiting behind another says
            # `held` False on itself); a provisional one was told it is not confirmed (exit 9).
            mine = bool(result.pushed) and not result.conflicts and all(c.held for c in result.granted)
            record("c", t=clock.now(), p=held, held=mine, provisional=bool(result.provisional))
            at(state["due"] + rng.uniform(*plan.hold), "release")
            state["idle"] = 0
            at(clock.now(), "soon")  # push_soon: the daemon is woken at once
        at(state["due"] + rng.expovariate(1 / plan.claim_every), "claim")

    def release() -> None:
        if state["held"] is not None:
            board.release([state["held"]], agent=me)
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
        at(state["due"] + rng.uniform(0.5, 1.5) * plan.block_seconds, "take")

    actions = {"write": write, "claim": claim, "release": release, "take": take}
    state["timer"] = sim0 + rng.uniform(0, interval)  # the daemons' timers start out of step
    at(state["timer"], "timer")
    at(sim0 + rng.uniform(0, 60), "take")
    at(sim0 + rng.expovariate(1 / plan.write_every), "write")
    at(sim0 + rng.expovariate(1 / plan.claim_every), "claim")
    while queue:
        due, _, kind, asked = heapq.heappop(queue)
        state["due"] = due  # the next action of a kind follows the schedule, not a late run: lag costs no work
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


def converge(paths: list[Path], env: dict[str, str], rounds: int = 4) -> bool:
    """Sync every clone in turn until all hold the origin's grid commit; whether they do."""
    for _ in range(rounds):
        for path in paths:
            _gridgit(["sync"], path, env)
        tips = {run(["git", "rev-parse", "refs/heads/grid"], path, env).strip() for path in paths}
        if len(tips) == 1:
            return True
    return False


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
    measure(report, paths, {i: read_logs(p) for i, p in enumerate(logs)}, env)
    report.load = (report.load[0], os.getloadavg()[0])
    return report


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
