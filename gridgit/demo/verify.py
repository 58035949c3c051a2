"""The demo's summary, read back from the repository it produced, and the checks behind it.

Nothing here trusts what the demo meant to do: entries are counted from the scratchpad and
archive files, commits from `git log`, conflicts from the event log, learnings from
LEARNINGS.md. A result that is missing raises StepFailed naming it.
"""

from __future__ import annotations

import json
import re
import shlex
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from gridgit.demo.actor import StepFailed, git, run
from gridgit.events import scan
from gridgit.model import learnings, state
from gridgit.scratchpad import archive, store
from gridgit.scratchpad.entry import Entry
from gridgit.store.layout import Layout

_COMMIT_RE = re.compile(r"^\s*- Commit: ([0-9a-f]{7,40})\b", re.MULTILINE)
SYSTEM = "system"


def all_entries(layout: Layout) -> dict[str, list[Entry]]:
    """Phase id -> every entry of the phase, archived first, from the files themselves."""
    found: dict[str, list[Entry]] = {}
    for phase_id in layout.phase_ids():
        active = store.load(layout, phase_id).entries if layout.scratchpad(phase_id).exists() else []
        found[phase_id] = [*archive.read(layout, phase_id), *active]
    return found


def _entries(layout: Layout, writes: int, log: list[dict[str, Any]]) -> tuple[dict[str, Any], list[Entry]]:
    by_phase = all_entries(layout)
    every = [e for entries in by_phase.values() for e in entries]
    merged = sum(1 for e in log if e["type"] == "entry_merged" and e.get("payload", {}).get("merged_from") != SYSTEM)
    by_agents = [e for e in every if e.agent_id != SYSTEM]
    if len(by_agents) + merged != writes:
        raise StepFailed(
            f"the agents made {writes} successful writes, but the files hold {len(by_agents)} of their entries "
            f"(+{merged} merged into others)"
        )
    summary = {
        "total": len(every),
        "by_category": dict(Counter(e.category for e in every)),
        "by_phase": {p: len(v) for p, v in by_phase.items()},
        "by_gridgit": len(every) - len(by_agents),
        "merged": merged,
        "agent_writes": writes,
    }
    return summary, every


def _conflicts(log: list[dict[str, Any]], shared: str) -> list[dict[str, Any]]:
    found = []
    for event in log:
        if event["type"] != "write_conflict":
            continue
        payload = event.get("payload", {})
        agents = sorted({str(a) for a in [payload.get("agent"), *payload.get("conflicting_agents", [])] if a})
        found.append({"path": payload.get("path"), "agents": agents, "timestamp": event.get("timestamp")})
    if not any(c["path"] == shared for c in found):
        raise StepFailed(f"no write_conflict event for {shared} in the event log")
    return found


def _commits(repo: Path, agent_commits: dict[str, list[str]], every: list[Entry]) -> dict[str, Any]:
    total = int(git(repo, "rev-list", "--count", "main").strip())
    for agent_id, shas in agent_commits.items():
        for sha in shas:
            if run(["git", "merge-base", "--is-ancestor", sha, "main"], repo, ok=(0, 1)).returncode:
                raise StepFailed(f"{agent_id}'s commit {sha} is not on main")
    evidence = {sha for e in every for sha in _COMMIT_RE.findall(e.content)}
    if not evidence:
        raise StepFailed("no entry's evidence has a `- Commit:` line: the post-commit hook recorded nothing")
    for sha in evidence:
        git(repo, "cat-file", "-e", f"{sha}^{{commit}}")
    return {
        "total": total,
        "by_agents": sum(len(s) for s in agent_commits.values()),
        "in_evidence": len(evidence),
        "evidence": sorted(evidence),
    }


def _history(repo: Path) -> dict[str, Any]:
    """The Blackboard's own history: snapshots on refs/heads/grid, and no .grid/ file in main."""
    if git(repo, "ls-files", "--", ".grid").strip():
        raise StepFailed("main tracks .grid/: the Blackboard must stay out of the code branch")
    snapshots = int(git(repo, "rev-list", "--count", "grid").strip())
    if snapshots < 2:
        raise StepFailed(f"refs/heads/grid has {snapshots} snapshot(s): post-commit did not snapshot the Blackboard")
    learnings = git(repo, "show", "grid:LEARNINGS.md")
    return {"ref": "refs/heads/grid", "snapshots": snapshots, "learnings_snapshotted": "### " in learnings}


def _memory(repo: Path, layout: Layout, completed: list[str]) -> dict[str, Any]:
    """Each completed phase compressed (valid, every line an entry of its archive) and indexed; `gridgit
    search` finds a compressed entry by a word of its own."""
    from gridgit.memory import compress, files, index, rules
    from gridgit.store import frontmatter

    phases = []
    blocks = index.parse(_read(layout, files.INDEX), "memory/INDEX.md")
    for phase_id in completed:
        rel = files.compressed_name(phase_id, layout.phase_ids())
        text = _read(layout, rel)
        problems = rules.problems(rel, text, f"memory/{rel}")
        meta, body = frontmatter.parse(text, rel)
        held = {e.uid: e for e in archive.read(layout, phase_id)}
        linked = [uid for _, _, _, uids in compress.items(body) for uid in uids]
        if problems or not linked or not set(linked) <= set(held):
            raise StepFailed(
                f"memory/{rel} is not {phase_id} compressed: {problems or 'its lines link no entry of it'}"
            )
        if not any(row.where == f"memory/{rel}" for row in blocks.get(f"{index.PHASE_BLOCK}{phase_id}", [])):
            raise StepFailed(f"memory/INDEX.md has no line for {phase_id}'s compressed file")
        found = held[linked[0]]
        word = max(re.findall(r"[A-Za-z]{4,}", found.content) or [found.topic], key=len)
        search = ["search", word, "--phase", phase_id, "--kind", "archived", "--limit", "1000", "--json"]
        hits = run([sys.executable, "-m", "gridgit", *search], repo, "mc").stdout
        if found.uid not in {hit["id"] for hit in json.loads(hits)["data"]["hits"]}:
            raise StepFailed(f"`gridgit search {word} --phase {phase_id}` does not find {found.uid}")
        phases.append(
            {"phase_id": phase_id, "path": f".grid/memory/{rel}", "kept": meta["kept"], "entries": meta["entries"]}
        )
    return {"compressed": phases, "index_lines": sum(len(rows) for rows in blocks.values())}


def _read(layout: Layout, rel: str) -> str:
    path = layout.memory_dir / rel
    if not path.is_file():
        raise StepFailed(f".grid/memory/{rel} was not written when the phase completed")
    return path.read_text(encoding="utf-8")


def _work(repo: Path, layout: Layout, ids: list[str], completed: list[str], current: str) -> dict[str, Any]:
    """Every agent that works took its block from the queue and completed it; `status` shows the blocks and the cost."""
    from gridgit.work import blocks, budget
    from gridgit.work.blockfile import summary_path

    workers = [i for i in ids if not i.startswith("scout-")]
    for phase_id in completed:
        rows = blocks.load_phase(layout, phase_id)
        if sorted(str(b.owner) for b in rows) != sorted(workers) or not all(b.complete for b in rows):
            shown = ", ".join(f"{b.block_id} {b.status} {b.owner}" for b in rows)
            raise StepFailed(f"{phase_id}'s blocks are not each taken and completed by an agent: {shown or 'none'}")
        missing = [b.block_id for b in rows if not summary_path(layout, phase_id, b.block_id).exists()]
        if missing:
            raise StepFailed(f"blocks {', '.join(missing)} of {phase_id} have no SUMMARY file")
    report = budget.report(layout)
    if sorted(report["by_agent"]) != sorted(workers) or not report["total"]["cost_usd"] > 0:
        raise StepFailed(f"budget.json does not hold every working agent's usage: {sorted(report['by_agent'])}")
    shown = run([sys.executable, "-m", "gridgit", "status"], repo).stdout
    if f"Blocks of {current}" not in shown or f"Cost: ${report['total']['cost_usd']:,.4f}" not in shown:
        raise StepFailed(f"`gridgit status` shows no blocks of {current} or not the cost: {shown[:300]!r}")
    return {
        "completed": sum(len(blocks.load_phase(layout, p)) for p in completed),
        "planned": len(blocks.load_phase(layout, current)),
        "cost_usd": report["total"]["cost_usd"],
        "tokens": report["total"]["tokens_in"] + report["total"]["tokens_out"],
        "by_agent": {agent: row["cost_usd"] for agent, row in report["by_agent"].items()},
    }


def summarise(
    repo: Path, ids: list[str], phase_ids: list[str], writes: int, agent_commits: dict[str, list[str]]
) -> dict[str, Any]:
    """The demo's summary; raises StepFailed for any result that is not in the repository."""
    from gridgit.demo import project

    layout = Layout.find(repo)
    log = list(scan.read_backwards(layout))[::-1]
    entries, every = _entries(layout, writes, log)
    conflicts = _conflicts(log, project.shared_file(phase_ids[0]))
    completed = phase_ids[:-1]
    promoted = [item for item in learnings.read(layout) if item.phase_id in completed]
    if not promoted:
        raise StepFailed("LEARNINGS.md has no learning promoted from the completed phases")
    st = state.read(layout)
    if list(st["phases"]["completed"]) != completed or st["position"]["phase_id"] != phase_ids[-1]:
        raise StepFailed(
            f"STATE says completed={st['phases']['completed']} current={st['position']['phase_id']}, "
            f"expected {completed} and {phase_ids[-1]}"
        )
    by_phase = all_entries(layout)
    carried = sum(1 for p in phase_ids[1:] for e in by_phase.get(p, []) if e.agent_id == SYSTEM)
    if not carried:
        raise StepFailed(f"nothing was carried forward into {phase_ids[1]}")
    for phase_id in completed:
        if not layout.scratchpad_archive(phase_id).exists():
            raise StepFailed(f"{phase_id} has no scratchpad_archived.md")
    return {
        "repo": str(repo),
        "agents": [
            {
                "id": i,
                "type": i.split("-")[0],
                "worktree": str(repo.parent / "worktrees" / i),
                "branch": f"agent/{i}",
                "commits": agent_commits.get(i, []),
            }
            for i in ids
        ],
        "entries": entries,
        "events": {
            "total": len(log),
            "by_type": dict(Counter(e["type"] for e in log)),
            "top": Counter(e["type"] for e in log).most_common(4),
        },
        "conflicts": conflicts,
        "learnings": {"promoted": len(promoted), "titles": [item.title for item in promoted]},
        "commits": _commits(repo, agent_commits, every),
        "history": _history(repo),
        "phases": {"completed": completed, "current": phase_ids[-1], "carried": carried},
        "memory": _memory(repo, layout, completed),
        "work": _work(repo, layout, ids, completed, phase_ids[-1]),
        "clean": not git(repo, "status", "--porcelain").strip(),
    }


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def render(summary: dict[str, Any]) -> str:
    """The closing summary, for people."""
    entries, events = summary["entries"], summary["events"]
    cats = ", ".join(f"{n} {c}" for c, n in sorted(entries["by_category"].items(), key=lambda x: -x[1]))
    first: dict[str, list[str]] = {}
    for conflict in summary["conflicts"]:  # the first conflict on each path, in the order they happened
        first.setdefault(str(conflict["path"]), conflict["agents"])
    shown = [f"{path} ({' vs '.join(agents)})" for path, agents in list(first.items())[:3]]
    more = f" and {len(first) - 3} more paths" if len(first) > 3 else ""
    conflicts = "; ".join(shown) + more or "none"
    where = summary["repo"] if summary["kept"] else f"{summary['repo']} (removed; pass --keep to look around)"
    lines = [
        f"gridgit demo: done in {summary['seconds']}s",
        f"  agents     {len(summary['agents'])}: {', '.join(a['id'] for a in summary['agents'])}, one worktree each",
        f"  entries    {entries['total']} ({cats}); {entries['by_gridgit']} written by gridgit itself",
        f"  events     {events['total']} ({', '.join(f'{n} {t}' for t, n in events['top'])}, ...)",
        f"  conflicts  {_count(len(summary['conflicts']), 'write_conflict event')} on "
        f"{_count(len(first), 'file')}: {conflicts}",
        f"  learnings  {summary['learnings']['promoted']} promoted to .grid/LEARNINGS.md",
        f"  commits    {summary['commits']['total']} on main ({summary['commits']['by_agents']} by agents, "
        f"{summary['commits']['in_evidence']} linked from entries' evidence)",
        f"  history    {summary['history']['snapshots']} snapshots of .grid/ on {summary['history']['ref']} "
        "(gridgit log; main tracks no .grid/ file)",
        f"  phases     completed {', '.join(summary['phases']['completed'])}; now in {summary['phases']['current']} "
        f"({summary['phases']['carried']} entries carried forward)",
        "  memory     "
        + ", ".join(f"{m['path']} ({m['kept']} of {m['entries']} entries)" for m in summary["memory"]["compressed"])
        + f"; INDEX.md {summary['memory']['index_lines']} lines",
        f"  blocks     {summary['work']['completed']} taken from the queue and completed (summaries in NN-SUMMARY.md); "
        f"{summary['work']['planned']} planned in {summary['phases']['current']}",
        f"  cost       ${summary['work']['cost_usd']:,.4f} for {summary['work']['tokens']:,} tokens "
        f"reported by {len(summary['work']['by_agent'])} agents (gridgit budget)",
        f"  repo       {where}",
    ]
    if summary["kept"]:
        repo = shlex.quote(summary["repo"])  # pasted into a shell as it is, a space and all
        lines.append(f"Look around: cd {repo} && gridgit status && gridgit learnings && gridgit log")
    return "\n".join(lines)
