"""The agents of `gridgit demo`: each runs as its own process, in its own linked worktree.

An agent does what a coding agent following the README's instructions does, through the
real CLI (`python -m gridgit ...` with GRID_AGENT_ID set) and real git: read its context
pack, send heartbeats, write discoveries, decisions, gotchas and handoffs, edit files,
report the edits (`gridgit touch`), check for write conflicts and commit. It reports each
step to the demo as one JSON line on stdout; the first failure ends it with a `failed` line
naming the step.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from gridgit.errors import GridError

WAIT_SECONDS = 90  # an agent waiting for another one gives up (loudly) after this


class StepFailed(GridError):
    """A demo step did not give the result it must give."""


def agent_env(agent: str | None) -> dict[str, str]:
    """The environment of an agent's commands: its id, and nothing that would redirect or skip gridgit."""
    from gridgit.store import gitcmd

    env = gitcmd.clean_env()
    for name in ("GRID_AGENT_ID", "GRID_DIR", "GRIDGIT_SKIP", "GRIDGIT_NOW"):
        env.pop(name, None)
    if agent:
        env["GRID_AGENT_ID"] = agent
    return env


def run(
    cmd: list[str], cwd: Path, agent: str | None = None, ok: tuple[int, ...] = (0,), input_text: str | None = None
) -> subprocess.CompletedProcess[str]:
    """Run CMD as the agent (GRID_AGENT_ID) would; an exit code outside OK is a StepFailed."""
    env = agent_env(agent)
    proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, input=input_text)
    if proc.returncode not in ok:
        detail = (proc.stderr.strip() or proc.stdout.strip() or "no output").splitlines()[-1]
        shown = " ".join(cmd[2:] if cmd[:2] == [sys.executable, "-m"] else cmd)
        raise StepFailed(f"`{shown}` exited {proc.returncode}: {detail}")
    return proc


def gridgit(cwd: Path, *args: str, agent: str | None = None, ok: tuple[int, ...] = (0,)) -> Any:
    """Run `gridgit ARGS --json` and return its data (None for an exit code other than 0)."""
    proc = run([sys.executable, "-m", "gridgit", *args, "--json"], cwd, agent, ok)
    if proc.returncode != 0:
        return None
    try:
        envelope = json.loads(proc.stdout)
    except json.JSONDecodeError:
        raise StepFailed(f"`gridgit {' '.join(args)}` printed no JSON: {proc.stdout[:200]!r}") from None
    return envelope.get("data")


def git(cwd: Path, *args: str, agent: str | None = None) -> str:
    return run(["git", *args], cwd, agent).stdout


class Agent:
    """One demo agent; SPEC says who it is, where it works and what the phase's files are."""

    def __init__(self, spec: dict[str, Any]) -> None:
        self.spec = spec
        self.id: str = spec["id"]
        self.kind: str = spec["type"]
        self.cwd = Path(spec["worktree"])
        self.phase: str = spec["phase_id"]
        self.shared: str = spec["shared_file"]
        self.writes = 0
        self.commits: list[str] = []

    def say(self, event: str, **data: Any) -> None:
        print(json.dumps({"agent": self.id, "event": event, **data}), flush=True)

    def cli(self, *args: str, ok: tuple[int, ...] = (0,)) -> Any:
        return gridgit(self.cwd, *args, agent=self.id, ok=ok)

    def heartbeat(self, progress: int, action: str, files: list[str] | None = None) -> None:
        args = ["heartbeat", "--progress", str(progress), "--action", action, "--thread", self.spec["task"]]
        self.cli(*args, *(["--files", ",".join(files)] if files else []))
        self.writes += 1
        self.say("progress", msg=f"heartbeat {progress}%: {action}")

    def write(self, category: str, topic: str, content: str, tags: list[str], relevance: str) -> None:
        data = self.cli(
            "write", "-c", category, "-t", topic, "--tags", ",".join(tags), "-r", relevance, "--content", content
        )
        self.writes += 1
        entry_id = data.get("id") if isinstance(data, dict) else None
        self.say("progress", msg=f"wrote {category} [{entry_id}] {topic} ({relevance})")

    def context(self, query: str) -> None:
        pack = self.cli("context", "--query", query)
        if not isinstance(pack, dict) or pack.get("tokens", 0) > pack.get("budget", 0):
            raise StepFailed(f"context pack over budget or missing: {pack!r:.200}")
        self.say("progress", msg=f"read its context pack: {len(pack['items'])} items, ~{pack['tokens']} tokens")

    def edit(self, rel: str, change: str, at_top: bool = False) -> None:
        """Change REL in the worktree and report it, as the README asks agents to."""
        path = self.cwd / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        created = not path.exists()
        text = path.read_text(encoding="utf-8") if path.exists() else ""
        if at_top and "# recognizer: checks go below this line\n" in text:
            marker = "# recognizer: checks go below this line\n"
            text = text.replace(marker, marker + change, 1)
        else:
            text += change
        path.write_text(text, encoding="utf-8")
        self.cli("touch", rel, "--operation", "created" if created else "modified")
        self.say("progress", msg=f"edited {rel}")

    def commit(self, message: str, paths: list[str]) -> str:
        git(self.cwd, "add", "--", *paths, agent=self.id)
        git(self.cwd, "commit", "-q", "-m", message, agent=self.id)
        sha = git(self.cwd, "rev-parse", "--short", "HEAD").strip()
        self.commits.append(sha)
        self.say("progress", msg=f"committed {sha} {message}")
        return sha

    def take_block(self) -> None:
        """Take the block Master Control planned for this agent from the queue."""
        block = self.spec["block"]
        taken = self.cli("take", block)
        if not isinstance(taken, dict) or taken["block"]["owner"] != self.id:
            raise StepFailed(f"`gridgit take {block}` did not give {self.id} the block: {taken!r:.200}")
        claimed = ", ".join(taken["claimed"]) or "no files"
        self.say("progress", msg=f"took block {block} from the queue ({claimed} claimed)")

    def finish_block(self) -> None:
        """Complete the block with a summary, and report the tokens it took (as an agent without a transcript does)."""
        from gridgit.demo.project import MODEL, USAGE

        block = self.spec["block"]
        summary = f"{self.spec['task'].capitalize()}: done in {len(self.commits)} commit(s), {self.writes} entries."
        self.cli("block", "complete", block, "--summary", summary)
        tokens_in, tokens_out = USAGE[self.kind]
        self.cli("budget", "add", "--tokens-in", str(tokens_in), "--tokens-out", str(tokens_out), "--model", MODEL)
        self.say("progress", msg=f"completed block {block}; reported {tokens_in + tokens_out:,} tokens")

    def wait_for(self, what: str, found: Any) -> Any:
        """Poll FOUND() until it returns something; agents wait on events, never on sleeps alone."""
        deadline = time.monotonic() + WAIT_SECONDS
        while time.monotonic() < deadline:
            result = found()
            if result:
                return result
            time.sleep(0.1)
        raise StepFailed(f"waited {WAIT_SECONDS}s for {what}")

    def partner_touched_shared(self) -> bool:
        events = self.cli("events", "poll", "--agent", self.id, "--type", "file_modified") or []
        partner = self.spec.get("partner")
        return any(
            e.get("payload", {}).get("path") == self.shared and e.get("payload", {}).get("agent") == partner
            for e in events
        )


# ---- what each type does ------------------------------------------------------------------


def executor(a: Agent) -> None:
    s = a.spec
    a.heartbeat(5, "reading the context pack")
    a.context(s["query"])
    a.write(
        "decision",
        f"{s['topic']}-design{s['suffix']}",
        f"Decision: {s['decision']}\nRationale: one place to read settings, testable without a process env.\n"
        f"Affects: {a.shared}",
        [s["topic"], "architectural"],
        "HIGH",
    )
    if s.get("partner"):  # the first executor shares a file with the recognizer: the conflict
        a.edit(a.shared, s["executor_change"])
        files = [a.shared]
    else:
        own = s["own_file"]
        a.edit(own, s["own_change"])
        files = [own]
    a.heartbeat(40, f"editing {files[0]}", files)
    a.write(
        "discovery",
        f"{s['topic']}-{a.id}",
        f"Found: {s['finding']}\nImpact: every module that reads settings.\nAction: documented in the code.\n\n"
        f"Evidence:\n- File: {files[0]}",
        [s["topic"], "settings"],
        "HIGH" if s.get("partner") else "MEDIUM",
    )
    a.commit(f"{s['title']}: {s['task']} ({a.id})", files)
    a.heartbeat(80, "writing the handoff", files)
    a.write(
        "handoff",
        f"{s['topic']}-handoff-{a.id}",
        f"Handoff: {s['task']} is done.\n\n**Completed:**\n- {s['task']}\n\n**For Next Agent:**\n"
        f"- {s['next_step']}\n\n**Files to Review:**\n- {files[0]}",
        [s["topic"], "handoff"],
        "MEDIUM",
    )
    a.heartbeat(100, "done")


def recognizer(a: Agent) -> None:
    s = a.spec
    a.heartbeat(5, "reviewing the phase")
    a.context(s["query"])
    if s.get("partner"):
        a.wait_for(f"{s['partner']} to touch {a.shared}", a.partner_touched_shared)
        a.say("progress", msg=f"saw {s['partner']}'s file_modified on {a.shared}")
    a.edit(a.shared, s["recognizer_change"], at_top=True)
    result = a.cli("conflicts", "check", a.shared, ok=(0, 6))
    if s.get("partner"):
        if result is not None:
            raise StepFailed(f"`gridgit conflicts check {a.shared}` found no conflict with {s['partner']}")
        a.say("progress", msg=f"conflict detected on {a.shared} (exit 6): coordinating through the scratchpad")
    a.heartbeat(50, f"editing {a.shared}", [a.shared])
    a.write(
        "warning",
        f"{s['topic']}-overlap",
        f"Warning: {s.get('partner') or 'another agent'} and {a.id} both edited {a.shared}.\n"
        "Risk Level: medium\nMitigation: separate regions of the file; the merge is checked by MC.",
        [s["topic"], "conflict"],
        "HIGH",
    )
    a.write(
        "gotcha",
        f"{s['topic']}-empty-values",
        f"Gotcha: {s['gotcha']}\nFirst Hit: review of {a.shared}.\nFix: validate required keys at start-up.\n\n"
        f"Evidence:\n- File: {a.shared}",
        [s["topic"], "validation"],
        "HIGH",
    )
    a.write(
        "question",
        f"{s['topic']}-fallback",
        f"Question: {s['question']}\nContext: found while reviewing {a.shared}.\nUrgency: low",
        [s["topic"]],
        "MEDIUM",
    )
    a.commit(f"{s['title']}: validate required settings ({a.id})", [a.shared])
    a.heartbeat(100, "review done")


def memory(a: Agent) -> None:
    s = a.spec
    a.heartbeat(5, "collecting the phase's patterns")
    a.context(s["query"])
    a.write(
        "pattern",
        f"{s['topic']}-pattern",
        f"Pattern: {s['pattern']}\nWhere Found: {a.shared}\nUsage: add new settings to DEFAULTS first.\n\n"
        "Evidence:\n- File: docs/ARCHITECTURE.md",
        [s["topic"], "promote"],
        "HIGH",
    )
    a.edit("docs/ARCHITECTURE.md", f"\n## {s['title']}\n\n{s['pattern']}\n")
    a.commit(f"docs: {s['title']} pattern ({a.id})", ["docs/ARCHITECTURE.md"])
    preview = a.cli("promote", "--phase", a.phase, "--dry-run")
    count = len((preview or {}).get("promoted") or [])
    a.say("progress", msg=f"promotion preview: {count} entries would go to LEARNINGS.md")
    a.heartbeat(100, "patterns recorded")


def scout(a: Agent) -> None:
    """Scouts may not write scratchpads (permissions): they read and report through events."""
    s = a.spec
    a.context(s["query"])

    def decisions() -> Any:
        return a.cli("read", "--category", "decision")

    found = a.wait_for("a decision in the scratchpad", decisions)
    a.say("progress", msg=f"read {len(found)} decision(s) by {', '.join(sorted({e['agent_id'] for e in found}))}")
    seen = a.cli("events", "poll", "--agent", a.id) or []
    a.say("progress", msg=f"polled the event bus: {len(seen)} new events")
    refused = run([sys.executable, "-m", "gridgit", "write", "-c", "discovery", "-t", "x", "--content", "x"],
                  a.cwd, a.id, ok=(4,))  # fmt: skip
    a.say(
        "progress", msg="a scout write is refused (exit 4): " + refused.stderr.strip().removeprefix("gridgit: error: ")
    )


ROLES = {"executor": executor, "recognizer": recognizer, "memory": memory, "scout": scout}


def main() -> None:
    """Entry point of one agent process: its spec is the JSON on stdin."""
    spec = json.loads(sys.stdin.read())
    agent = Agent(spec)
    try:
        if spec.get("block"):
            agent.take_block()
        ROLES[agent.kind](agent)
        if spec.get("block"):
            agent.finish_block()
    except Exception as exc:  # the demo reports every failure with the agent and its cause
        agent.say("failed", error=f"{type(exc).__name__}: {exc}" if not isinstance(exc, GridError) else str(exc))
        sys.exit(1)
    agent.say("done", writes=agent.writes, commits=agent.commits, pid=os.getpid())


if __name__ == "__main__":
    main()
