"""What `gridgit status` and `gridgit doctor` say about the Blackboard's own history.

`summary` is the status dashboard's part and costs two small reads: the record the snapshot,
sync and post-commit keep of what is wrong (gridgit.history.health) and the post-commit
queue. `findings` is doctor's: the grid ref itself, `.grid/` judged now as a snapshot would
judge it (damage kept out of the history, secrets redacted in it), a peer's files refused,
and commits not recorded yet; each with the command that fixes it.
"""

from __future__ import annotations

from gridgit.errors import GridError
from gridgit.store.layout import Layout
from gridgit.views.findings import Finding

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def _queued(layout: Layout) -> list[str]:
    from gridgit.git import recording

    return recording.pending(layout)


def summary(layout: Layout) -> dict[str, Any]:
    """{damage, redacted, rejected, recording: finding lines; queued: commits not recorded yet}."""
    from gridgit.history import health

    record = health.read(layout)
    snap = record["snapshot"]
    return {
        "damage": [f".grid/{f['path']}: {f['message']}" for f in snap if f.get("kind") != "redacted"],
        "redacted": [f".grid/{f['path']}" for f in snap if f.get("kind") == "redacted"],
        "rejected": [f".grid/{f['path']} from clone {f.get('clone') or '?'}: {f['message']}" for f in record["peers"]],
        "recording": [str(f["message"]) for f in record["recording"]],
        "queued": len(_queued(layout)),
    }


def render(data: dict[str, Any]) -> list[str]:
    """The dashboard's lines for SUMMARY's data (none when all is well)."""
    lines = [f"  damaged: {line}" for line in data["damage"]]
    lines += [f"  secret redacted in the snapshot: {path}" for path in data["redacted"]]
    lines += [f"  left out of a sync: {line}" for line in data["rejected"][-5:]]
    lines += [f"  post-commit: {line}" for line in data["recording"]]
    if data["queued"]:
        lines.append(f"  post-commit: {data['queued']} commit(s) queued, not recorded yet")
    if not lines:
        return []
    fix = "  (`gridgit restore --all` brings damaged files back; `gridgit doctor` says more)"
    return ["", "Blackboard history:", *lines, *([fix] if data["damage"] else [])]


def findings(layout: Layout) -> list[Finding]:
    """Doctor's findings about the grid ref, the damage a snapshot would keep out, peers and post-commit."""
    from gridgit.history import health, staging
    from gridgit.history.boardgit import BOARD_REF, BoardGit
    from gridgit.store import config
    from gridgit.validation import required

    bg = BoardGit.open(layout, config.value(layout, "sync.ref"))
    found: list[Finding] = []
    stale = bg.stale_locks()
    if stale:
        import shlex

        found.append(Finding("stale-locks", "fail", f"{len(stale)} lock or temporary file(s) left by killed git or "
                             "gridgit runs: the snapshot and sync that need them stop there",
                             "rm -rf " + " ".join(shlex.quote(str(p)) for p in stale), [str(p) for p in stale]))  # fmt: skip
    for ref in (bg.ref, BOARD_REF):
        problem = bg.ref_problem(ref)
        if problem:
            found.append(Finding("grid-ref", "fail", f"{ref} {problem}; the files in .grid/ are intact",
                                 f"git update-ref -d {ref} && gridgit snapshot"))  # fmt: skip
    start = bg.resolve(BOARD_REF) or bg.resolve(bg.ref)
    if start is not None:
        staged = staging.stage(bg, bg.tree_of(start), write=False)
        # A required file that is missing or a folder is the layout check's finding (views.checks): said once.
        named = {m.path.relative_to(layout.grid).as_posix() for m in required.find(layout)}
        damage = [
            d for d in staged.damage
            if d.kind != staging.SECRET and not any(d.path == n or d.path.startswith(n + "/") for n in named)
        ]  # fmt: skip
        if damage:
            found.append(Finding("damage", "fail", f"{len(damage)} .grid/ file(s) missing or damaged; their last "
                                 "good versions are kept on the grid ref", "gridgit restore --all",
                                 [str(d) for d in damage]))  # fmt: skip
        secrets = [d for d in staged.damage if d.kind == staging.SECRET] + [
            staging.Damage(p, "redacted", "a secret typed by hand; the snapshot has it redacted")
            for p in staged.redacted
        ]
        if secrets:
            found.append(Finding("secrets", "warn", f"{len(secrets)} .grid/ file(s) hold what looks like a secret",
                                 "remove the secret from the file by hand", [str(d) for d in secrets]))  # fmt: skip
        if not damage and not secrets and len(damage) == len(staged.damage):
            found.append(Finding("damage", "ok", "every .grid/ file is as whole as its history"))
    record = health.read(layout)
    if record["peers"]:
        lines = [f".grid/{f['path']} (clone {f.get('clone') or '?'}, commit {str(f.get('commit'))[:10]}): "
                 f"{f['message']}" for f in record["peers"]]  # fmt: skip
        found.append(Finding("peers", "warn", f"{len(lines)} file(s) of peers' grid commits were left out of a sync "
                             "(this clone kept its own version)", "ask that clone's user to fix them", lines))  # fmt: skip
    found.append(_recording(layout, record["recording"]))
    return found


def _recording(layout: Layout, failures: list[dict[str, Any]]) -> Finding:
    queued = _queued(layout)
    if not queued and not failures:
        return Finding("post-commit", "ok", "every commit is recorded")
    details = [str(f["message"]) for f in failures]
    try:
        log = (layout.git_common / "gridgit" / "post-commit.log").read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        log = ""
    details += [f"the last background run said: {line}" for line in log.splitlines()[-3:]]
    what = f"{len(queued)} commit(s) not recorded yet" if queued else "the last post-commit recording failed"
    return Finding("post-commit", "fail", what, "gridgit hook post-commit", details)


def safe_summary(layout: Layout) -> dict[str, Any]:
    """summary(), or an empty one when its record cannot be read (the dashboard shows the rest)."""
    try:
        return summary(layout)
    except (GridError, OSError):
        return {"damage": [], "redacted": [], "rejected": [], "recording": [], "queued": 0}
