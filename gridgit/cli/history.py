"""`gridgit sync`, `gridgit migrate`, `gridgit log` and `gridgit diff`: the Blackboard's own history."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from gridgit.cli.common import agent_option, json_option, output, with_board

if TYPE_CHECKING:
    from gridgit.blackboard import Blackboard


def _sync_line(result: Any) -> str:
    lines = list(result.invalid) + list(result.rejected)
    lines += [f"{path}: both sides changed it; merged by a choice" for path in result.conflicts]
    lines += [f"phase {p}: entries written after its completion were archived and carried on" for p in result.settled]
    merged = f", merged {len(result.merged)} commit(s), {len(result.written)} file(s) written" if result.merged else ""
    pushed = "pushed" if result.pushed else "not pushed"
    head = (result.commit or "none")[:10]
    lines.append(f"{result.ref} at {head} ({pushed} to {result.remote}{merged})")
    return "\n".join(lines)


@click.command("sync")
@click.argument("remote", required=False)
@click.option("--no-push", "no_push", is_flag=True, help="Fetch and merge only.")
@agent_option
@json_option
@with_board
def sync(board: Blackboard, remote: str | None, no_push: bool, agent: str | None, as_json: bool) -> None:
    """Merge REMOTE's Blackboard (its grid ref) into .grid/ and push the result (default: the branch's remote)."""
    result = board.sync(remote, agent, push=not no_push)
    output(result, as_json, _sync_line)


@click.command("snapshot")
@click.option("-m", "--message", default="snapshot", show_default=True, help="What the snapshot is of.")
@agent_option
@json_option
@with_board
def snapshot(board: Blackboard, message: str, agent: str | None, as_json: bool) -> None:
    """Commit .grid/ onto the grid ref now (hooks do it after each commit; no network)."""
    result = board.snapshot(message, agent)
    lines = list(result.invalid) + [
        f".grid/{path}: a secret typed by hand, redacted in the snapshot" for path in result.redacted
    ]
    lines.append(f"{'new snapshot' if result.created else 'no change since the last snapshot'}: {result.commit[:10]}")
    output(result, as_json, "\n".join(lines))


@click.command("restore")
@click.argument("paths", nargs=-1)
@click.option("--all", "everything", is_flag=True, help="Every .grid/ file that is missing or damaged.")
@click.option("--from", "rev", default=None, help="Search the grid history from this commit (default: the grid ref).")
@agent_option
@json_option
@with_board
def restore(board: Blackboard, paths: tuple[str, ...], everything: bool, rev: str | None, agent: str | None,
            as_json: bool) -> None:  # fmt: skip
    """Bring back .grid/ files from the Blackboard's history (PATH: a file or a folder of .grid/).

    Each from the newest grid commit holding a valid version; entries or learnings lost by
    hand are merged back into a file that is otherwise valid, so nothing written since is lost.
    """
    if paths and everything:
        raise click.UsageError("name files or use --all, not both")
    done = board.restore(list(paths), everything, rev, agent)
    output(done, as_json, lambda found: "\n".join(str(r) for r in found) or "nothing to restore")


@click.command("migrate")
@agent_option
@json_option
@with_board
def migrate(board: Blackboard, agent: str | None, as_json: bool) -> None:
    """Move a .grid/ the code branches track onto the grid ref, untracked in one commit (idempotent)."""
    result = board.migrate(agent)
    output(result, as_json, lambda r: "\n".join(r.changed) or "already migrated: nothing to do")


def _log_lines(items: list[Any]) -> str:
    out = []
    for item in items:
        who = f" by {item.agent}" if item.agent else ""
        out.append(f"{item.commit}  {item.date}  {item.subject}{who}  [{item.clone}]")
        out += [
            f"    {c.kind:<8} {c.agent or '-':<16} {c.phase + ' ' if c.phase else ''}{c.what}" for c in item.changes
        ]
    return "\n".join(out) or "nothing in the Blackboard's history matches"


@click.command("log")
@click.option("--phase", default=None, help="Only what happened in this phase.")
@click.option("--agent", "agent", default=None, help="Only what this agent did.")
@click.option("-n", "--max-count", "limit", type=click.IntRange(1), default=20, show_default=True)
@json_option
@with_board
def log(board: Blackboard, phase: str | None, agent: str | None, limit: int, as_json: bool) -> None:
    """Who wrote, archived, resolved and promoted what, when, from which clone (the grid ref's history)."""
    output(board.log(limit, phase, agent), as_json, _log_lines)


@click.command("diff")
@click.argument("rev", required=False)
@click.option("--stat", is_flag=True, help="Files and counts only.")
@json_option
@with_board
def diff(board: Blackboard, rev: str | None, stat: bool, as_json: bool) -> None:
    """How .grid/ differs now from REV (default: the last snapshot on the grid ref)."""
    text = board.diff(rev, stat)
    output({"rev": rev, "diff": text}, as_json, text.rstrip("\n") or "no change since the snapshot")
