"""Foresight: `conflicts predict` on a real project's history, `evidence check` on a long history, GitPython vs git.

`conflicts predict` runs on four agent branches of real commits: set GRIDGIT_BENCH_PROJECT to a
git repository (a clone of a public project, e.g. pallets/click); without it a synthetic
history stands in and the row says so. Each branch starts at the same base commit B and
replays every fourth of the mainline commits after B (the files each commit changed, as that
commit left them), so the branches touch the same files the way parallel agents do.

`evidence check` runs on histories written with `git fast-import` (200 files of 120 lines;
every commit rewrites one line of one file, every 500th renames a file) of 1,000 and 10,000
commits, with 50 files cited (3 lines each) 900 commits before HEAD (the same changes to judge
in both histories: only their length differs) and, separately, at commit 100 (old evidence).
"""

from __future__ import annotations

import os
import random
import subprocess
from pathlib import Path
from typing import Any

from benchmarks import api, fixtures
from benchmarks.harness import (
    GRIDGIT,
    PYTHON,
    Config,
    Row,
    Workspace,
    fmt,
    interleaved,
    measure,
    percentile,
    ratios,
    run,
    runner,
)
from benchmarks.suite import benchmark

PROJECT_ENV = "GRIDGIT_BENCH_PROJECT"
AGENTS = 4
FILES, LINES, RENAME_EVERY, CITED_AT, RECENT_DISTANCE = 200, 120, 500, 100, 900


def synthetic_history(path: Path, commits: int, env: dict[str, str], seed: int = 18) -> dict[int, str]:
    """A repository at PATH whose `main` has COMMITS commits (see the module's docstring); commit number -> sha."""
    rnd = random.Random(seed)
    files = {f"src/mod_{i:03}.py": [f"def f{i}_{n}(x):  # {i}.{n}" for n in range(LINES)] for i in range(FILES)}
    run(["git", "init", "-q", "-b", "main", str(path)], path.parent, env)
    marks = path / ".git" / "bench-marks"
    proc = subprocess.Popen(
        ["git", "fast-import", "--quiet", f"--export-marks={marks}"], cwd=path, env=env, stdin=subprocess.PIPE
    )
    assert proc.stdin is not None
    for number in range(1, commits + 1):
        ops: list[str] = []
        if number == 1:
            changed = list(files)
        elif number % RENAME_EVERY == 0:
            old = rnd.choice(sorted(files))
            new = old.replace(".py", f"_r{number}.py")
            files[new] = files.pop(old)
            ops.append(f"R {old} {new}\n")
            changed = []
        else:
            name = rnd.choice(sorted(files))
            files[name][rnd.randrange(LINES)] = f"    return {number}  # changed"
            changed = [name]
        for name in changed:
            data = ("\n".join(files[name]) + "\n").encode()
            ops.append(f"M 100644 inline {name}\ndata {len(data)}\n" + data.decode() + "\n")
        message = f"commit {number}"
        header = f"commit refs/heads/main\nmark :{number}\ncommitter Bench <bench@example.com> {1_700_000_000 + number} +0000\n"
        proc.stdin.write((header + f"data {len(message)}\n{message}\n" + "".join(ops) + "\n").encode())
    proc.stdin.close()
    if proc.wait() != 0:
        raise RuntimeError("git fast-import failed")
    run(["git", "reset", "-q", "--hard", "main"], path, env)
    return {int(m[1:]): sha for m, sha in (line.split() for line in marks.read_text().splitlines())}


RECENT, OLD = "01-recent", "02-old"  # two phases: evidence cited 900 commits back, and at commit 100


def _cited_repo(ws: Workspace, commits: int) -> tuple[Path, str, list[str]]:
    """A Blackboard on a COMMITS-long history; in each phase 50 entries citing 3 lines of a file each.

    Phase 01-recent cites the commit 900 commits before HEAD (the same distance in every
    history: what differs is only the history's length); phase 02-old cites commit 100.
    Returns the repository, the recent cited commit and its cited files.
    """
    path = ws.root / f"evidence-{commits}"
    path.mkdir()
    shas = synthetic_history(path, commits, ws.env)
    run([GRIDGIT, "init", "--mission", "Bench", "--no-hooks", "--phase", RECENT, "--phase", OLD], path, ws.env)
    fixtures.set_max_entries(path, 1000)
    board = api.board(path)
    cited: list[str] = []
    for phase, number in ((RECENT, max(1, commits - RECENT_DISTANCE)), (OLD, CITED_AT)):
        sha = shas[number]
        cited = run(["git", "ls-tree", "-r", "--name-only", sha], path, ws.env).split()[::4][:50]
        for n, name in enumerate(cited):
            content = f"Gotcha {n}.\n\nEvidence:\n- File: {name}\n- Line: {10 + n}-{12 + n}\n- Commit: {sha[:10]}"
            board.write("gotcha", f"topic-{n}", content, phase=phase, agent="executor-001")
        if phase == RECENT:
            recent = (sha, cited)
    return path, *recent


@benchmark("evidence_check", "foresight", "evidence check: 50 cited files, histories of 1,000 / 10,000 commits")
def evidence_check(cfg: Config, ws: Workspace) -> list[Row]:
    rows: list[Row] = []
    sizes = [1_000, 10_000] if not cfg.quick else [200, 600]
    repos = [(commits, *_cited_repo(ws, commits)) for commits in sizes]
    boards = [api.board(path) for _, path, _, _ in repos]
    for phase, what in ((RECENT, f"cited {RECENT_DISTANCE} commits back"), (OLD, f"cited at commit {CITED_AT}")):
        for attribute in (True, False):
            label = "evidence check" if attribute else "evidence staleness only (status, context)"
            # Both histories round after round, so the growth is a ratio of samples taken side by side.
            samples = interleaved(
                [lambda b=b, p=phase, a=attribute: b.check_evidence(p, attribute=a) for b in boards],
                cfg.repeats(10, 2),
                cfg.warmup(1, 1),
            )
            for (commits, *_), board, found in zip(repos, boards, samples, strict=True):
                report = board.check_evidence(phase)
                note = f"{len(report.findings)} citations, {len(report.stale)} stale"
                rows.append(Row("evidence_check", f"{label}, {what} @ {commits:,} commits", "ms", found, note=note))
            growth = f"{label}, {what}: growth {sizes[0]:,} -> {sizes[1]:,} commits"
            rows.append(Row("evidence_check", growth, "x", ratios(samples[1], samples[0])))
    for commits, path, _, _ in repos:
        command = [GRIDGIT, "evidence", "check", "--phase", OLD, "--json"]
        cli = measure(runner(command, path, ws.env), cfg.repeats(5, 1), 1)
        label = f"gridgit evidence check (process), cited at commit {CITED_AT} @ {commits:,} commits"
        rows.append(Row("evidence_check", label, "ms", cli))
    _, path, old, cited = repos[-1]
    rows += _gitpython_rows(cfg, ws, path, old, cited)
    return rows


def _gitpython_rows(cfg: Config, ws: Workspace, path: Path, old: str, cited: list[str]) -> list[Row]:
    """The one diff evidence check needs, by plain git (gridgit) and by GitPython, side by side."""
    try:
        import git  # GitPython, a dev extra: only for this comparison
    except ImportError:
        return []
    from gridgit.git import diffs, treediff
    from gridgit.store import gitcmd

    repo = git.Repo(path)

    def plain() -> Any:
        return diffs.parse(
            gitcmd.run(path, "diff-tree", "-r", "-M", "-p", "-U0", *treediff.DIFF_OPTIONS, old, "HEAD", "--", *cited)
        )

    def gitpython() -> Any:
        return repo.commit(old).diff("HEAD", paths=cited, create_patch=True, unified=0, M=True)

    plain_ms, gitpython_ms = interleaved([plain, gitpython], cfg.repeats(20, 2), cfg.warmup(2, 1))
    note = f"abs p50 {fmt(percentile(gitpython_ms, 50), 'ms')} vs {fmt(percentile(plain_ms, 50), 'ms')}"
    import_ms, floor_ms = interleaved(
        [runner([PYTHON, "-c", "import git"], path, ws.env), runner([PYTHON, "-c", "pass"], path, ws.env)],
        cfg.repeats(10, 2),
        cfg.warmup(1, 1),
    )
    return [
        Row(
            "evidence_check",
            "GitPython / git: diff of the 50 cited files",
            "x",
            ratios(gitpython_ms, plain_ms),
            note=note,
        ),
        Row(
            "evidence_check",
            "GitPython import (added to a process)",
            "ms",
            [a - b for a, b in zip(import_ms, floor_ms, strict=True)],
        ),
    ]


def _project(ws: Workspace, need: int) -> tuple[Path, str]:
    """A clone of $GRIDGIT_BENCH_PROJECT (else a synthetic history) and what it is."""
    source = os.environ.get(PROJECT_ENV)
    path = ws.root / "project"
    if source:
        run(["git", "clone", "-q", "--no-checkout", source, str(path)], ws.root, ws.env)
        return path, Path(source).resolve().as_posix().split("/.mirror/")[-1]
    path.mkdir()
    synthetic_history(path, need + 20, ws.env)
    return path, "synthetic history"


@benchmark("conflicts_predict", "foresight", "conflicts predict: 4 agent branches of 20 real commits")
def conflicts_predict(cfg: Config, ws: Workspace) -> list[Row]:
    per_branch = cfg.size(20, 5)
    path, what = _project(ws, AGENTS * per_branch)
    mainline = run(["git", "rev-list", "--first-parent", "HEAD"], path, ws.env).split()
    base = mainline[AGENTS * per_branch + 10]
    replayed = list(reversed(mainline[: AGENTS * per_branch + 10]))[: AGENTS * per_branch]
    run(["git", "checkout", "-q", "-B", "main", base], path, ws.env)
    run([GRIDGIT, "init", "--mission", "Bench", "--no-hooks"], path, ws.env)
    active = []
    for k in range(AGENTS):
        tree = ws.root / f"agent-{k}"
        run(["git", "worktree", "add", "-q", "-b", f"agent/{k}", str(tree), base], path, ws.env)
        for commit in replayed[k::AGENTS]:
            _replay(tree, commit, ws.env)
        active.append({"id": f"executor-{k + 1:03}", "worktree": str(tree)})
    board = api.board(path)
    board.update_state({"agents": {"active": active}}, agent="mc")
    prediction = board.predict_conflicts(announce=False)
    note = (
        f"{what}: {len(prediction.pairs)} merges, {len(prediction.conflicts)} conflict, "
        f"{len(prediction.overlaps)} overlap; base {base[:10]}"
    )
    merges = [runner(["git", "merge-tree", "--write-tree", p.left.commit, p.right.commit], path, ws.env, ok=(0, 1))
              for p in prediction.pairs]  # fmt: skip

    def floor() -> None:  # git's own work: the merges alone, one process each
        for merge in merges:
            merge()

    api_ms, floor_ms = interleaved(
        [lambda: board.predict_conflicts(announce=False), floor], cfg.repeats(10, 2), cfg.warmup(1, 1)
    )
    cli = measure(runner([GRIDGIT, "conflicts", "predict", "--json"], path, ws.env, ok=(0, 6)), cfg.repeats(5, 1), 1)
    label = f"{AGENTS} branches x {per_branch} commits"
    floor_note = f"abs p50 {fmt(percentile(api_ms, 50), 'ms')} vs {fmt(percentile(floor_ms, 50), 'ms')}"
    return [
        Row("conflicts_predict", f"conflicts predict, {label} (API)", "ms", api_ms, note=note),
        Row(
            "conflicts_predict",
            f"conflicts predict / its {len(merges)} `git merge-tree` runs",
            "x",
            ratios(api_ms, floor_ms),
            note=floor_note,
        ),
        Row("conflicts_predict", f"gridgit conflicts predict, {label} (process)", "ms", cli),
    ]


def _replay(tree: Path, commit: str, env: dict[str, str]) -> None:
    """Commit in work tree TREE the files COMMIT changed, as COMMIT left them."""
    out = run(["git", "diff-tree", "-r", "-z", "--no-renames", "--name-status", f"{commit}^", commit], tree, env)
    fields = out.split("\0")
    kept = [p for s, p in zip(fields[::2], fields[1::2], strict=False) if s and s[0] != "D"]
    gone = [p for s, p in zip(fields[::2], fields[1::2], strict=False) if s and s[0] == "D"]
    if kept:
        run(["git", "checkout", commit, "--", *kept], tree, env)
    if gone:
        run(["git", "rm", "-q", "--ignore-unmatch", "--", *gone], tree, env)
    message = run(["git", "log", "-1", "--format=%s", commit], tree, env).strip() or "replayed"
    run(["git", "commit", "-q", "--allow-empty", "-m", message], tree, env)
