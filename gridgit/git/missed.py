"""Commits made with git's hooks bypassed, found in the reflogs of HEAD and recorded once (DESIGN.md invariant 10).

git's post-commit hook is the fast path, not the only one: `git commit --no-verify` skips
pre-commit, a GUI may skip every hook, and Gemini CLI's `run_shell_command` empties
`core.hooksPath` (through `GIT_CONFIG_KEY_*`), so its commits run no hook at all. Every such
commit still appends a line to its work tree's HEAD reflog (`<git dir>/logs/HEAD`:
`OLD NEW IDENT TIME TZ<tab>commit: subject`), as every commit does.

So each gridgit entry point (a gridgit command, any agent tool's hook, the watcher) asks
`moved`: one stat per work tree's reflog against the sizes last looked at
(`<git common dir>/gridgit/reflogs.json`), no git. Only when one grew does `new_commits` read
the new lines: each commit (`commit`, `commit (amend)`, `commit (merge)`, `commit
(initial)`, `cherry-pick`, `revert`, the reflog actions of git's commands that run
post-commit) neither recorded nor queued yet is queued by the recording
(gridgit.git.recording.catch_up), as its shim would have, and recorded once whoever queued it.
Its agent is `unknown`: the environment that made it is gone (the recording names the agent
registered for the work tree, as for any commit nobody declared). A
checkout, reset, merge or rebase moves HEAD to commits made elsewhere: those are not
recorded here (post-merge and post-rewrite have their own work). The first look keeps the
sizes and records nothing before it; a reflog rewritten by `git reflog expire` (shorter than
last seen) is taken from its new end. A repository whose reflogs are off
(`core.logAllRefUpdates=false`) has no record of a commit that skipped its hooks.

The look is on every entry point's path: only `os` and `json` at import.
"""

from __future__ import annotations

import json
import os

STATE = "reflogs.json"  # in <git common dir>/gridgit/: the reflog sizes last looked at
COMMIT_ACTIONS = ("commit:", "commit (", "cherry-pick:", "revert:")
READ_LIMIT = 4 * 1024 * 1024  # of new reflog lines read in one look (a huge jump is read over several)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from gridgit.store.layout import Layout


def reflogs(common: str) -> list[str]:
    """The HEAD reflog of every work tree of the repository whose common git dir is COMMON."""
    found = [os.path.join(common, "logs", "HEAD")]
    try:
        names = sorted(os.listdir(os.path.join(common, "worktrees")))
    except OSError:
        names = []
    return found + [os.path.join(common, "worktrees", name, "logs", "HEAD") for name in names]


def _sizes(common: str) -> dict[str, int]:
    sizes = {}
    for path in reflogs(common):
        try:
            sizes[os.path.relpath(path, common)] = os.stat(path).st_size
        except OSError:
            continue  # a work tree with no reflog (yet), or one removed while listed
    return sizes


def _state_path(common: str) -> str:
    return os.path.join(common, "gridgit", STATE)


def _saved(common: str) -> dict[str, int] | None:
    """The sizes last looked at; None before the first look."""
    try:
        with open(_state_path(common), "rb") as handle:
            data = json.loads(handle.read())
    except (OSError, ValueError):
        return None
    sizes = data.get("sizes") if isinstance(data, dict) else None
    return {str(k): v for k, v in sizes.items() if isinstance(v, int)} if isinstance(sizes, dict) else None


def moved(common: str) -> bool:
    """Whether any HEAD reflog of the repository changed since the last look (or nobody looked yet)."""
    return _sizes(common) != _saved(common)


def _commits(path: str, start: int, end: int) -> tuple[list[str], int]:
    """The commits the reflog at PATH gained between START and END (its lines' new hashes), and where
    the whole lines read end (a line still being written waits for the next look)."""
    with open(path, "rb") as handle:
        handle.seek(start)
        data = handle.read(min(end - start, READ_LIMIT))
    whole = data.rfind(b"\n") + 1
    found = []
    for line in data[:whole].splitlines():
        head, _, action = line.decode("utf-8", "replace").partition("\t")
        fields = head.split()
        if len(fields) >= 2 and action.startswith(COMMIT_ACTIONS) and len(fields[1]) in (40, 64):
            found.append(fields[1])
    return found, start + whole


def new_commits(layout: Layout, known: set[str]) -> list[str]:
    """The commits the reflogs gained since the last look that KNOWN (recorded or queued) lacks, oldest first;
    the look is kept. The recording queues them (gridgit.git.recording.catch_up)."""
    from gridgit.store import fileio, locks

    common = str(layout.git_common)
    state = layout.git_common / "gridgit" / STATE
    state.parent.mkdir(parents=True, exist_ok=True)
    found: list[str] = []
    with locks.locked(state):
        saved = _saved(common)
        sizes = _sizes(common)
        if saved is not None and sizes != saved:
            for name, size in sizes.items():
                start = saved.get(name, 0)
                if size <= start:
                    continue  # unchanged, or rewritten shorter (`git reflog expire`): taken from its new end
                gained, sizes[name] = _commits(os.path.join(common, name), start, size)
                found += [sha for sha in gained if sha not in known and sha not in found]
        fileio.atomic_write(state, json.dumps({"sizes": sizes}) + "\n", durable=False)
    return found
