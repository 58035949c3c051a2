"""All git access: `git` subprocesses.

Plain git, not GitPython: every GitPython operation gridgit needs (diff, blame, log) runs the
same git subprocess and then parses its output in Python, and importing GitPython costs tens
of milliseconds; measured in benchmarks/foresight.py.
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path

from gridgit.errors import BadInput, GridError
from gridgit.store.record import FrozenRecord

# Variables git exports to hooks; they point at the repository that runs the hook and
# would silently redirect a git command aimed at another repository.
_HOOK_VARS = ("GIT_DIR", "GIT_INDEX_FILE", "GIT_WORK_TREE", "GIT_PREFIX", "GIT_OBJECT_DIRECTORY")


# Set by the hook runner once it knows the hook belongs to the repository gridgit works on:
# then git must see the hook's GIT_INDEX_FILE (`git commit -a` / `--only` commit a temporary index).
_in_own_hook = False


def use_hook_env(enabled: bool = True) -> None:
    """Keep git's hook variables for every git command from now on (the hook runner's same-repo case)."""
    global _in_own_hook
    _in_own_hook = enabled


def clean_env() -> dict[str, str]:
    """The environment for a git subprocess; hook variables dropped unless use_hook_env() kept them."""
    env = dict(os.environ)
    if not _in_own_hook:
        for name in _HOOK_VARS:
            env.pop(name, None)
    return env


@contextlib.contextmanager
def uninterrupted() -> Iterator[None]:
    """Hold back a hook's time-budget alarm while git runs (or a step that must finish whole).

    Interrupting subprocess.run kills git with SIGKILL, which can leave index.lock behind and
    make the user's own `git commit` fail; the alarm fires as soon as git has finished instead.
    """
    if not (_in_own_hook and hasattr(signal, "pthread_sigmask")):
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def call(
    cwd: Path,
    *args: str,
    input_text: str | None = None,
    env: dict[str, str] | None = None,
    timeout: float | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run `git ARGS` in CWD and return the finished process, whatever its exit code.

    For commands whose exit code is an answer (`merge-tree`: 1 means conflicts). ENV, when
    given, is the whole environment (e.g. clean_env() plus GRIDGIT_SKIP=1). TIMEOUT (seconds)
    kills git and raises GridError: only for read-only commands, since a killed writer can
    leave index.lock behind.
    """
    try:
        with uninterrupted():
            return subprocess.run(
                ["git", *args],
                cwd=cwd,
                input=input_text,
                capture_output=True,
                # git prints paths as the bytes they are: surrogateescape keeps a name that is
                # not UTF-8 intact (as os.fsdecode does) instead of raising in the middle of a hook.
                encoding="utf-8",
                errors="surrogateescape",
                env=env if env is not None else clean_env(),
                timeout=timeout,
            )
    except subprocess.TimeoutExpired as exc:
        raise GridError(f"git {args[0]} timed out after {exc.timeout:g}s") from exc


def run(
    cwd: Path,
    *args: str,
    input_text: str | None = None,
    check: bool = True,
    env: dict[str, str] | None = None,
    timeout: float | None = None,
) -> str:
    """Run `git ARGS` in CWD and return stdout; a failure becomes a one-line GridError (see call)."""
    proc = call(cwd, *args, input_text=input_text, env=env, timeout=timeout)
    if check and proc.returncode != 0:
        raise _failed(args, proc.returncode, proc.stderr)
    return proc.stdout


# Put before the names a user or a peer supplied (remotes, refs, revisions) in a git command:
# git then never reads one as an option (`--upload-pack=CMD` runs CMD). Paths go after `--`.
END_OF_OPTIONS = "--end-of-options"


def check_name(value: str, what: str) -> str:
    """VALUE, a remote, branch or revision a user or peer supplied, when git cannot mistake it for an option.

    `--end-of-options` is the guarantee (git 2.24, rev-parse 2.30; gridgit needs 2.31); this
    makes the refusal a clear one-line error instead of git's puzzled one.
    """
    if not value.strip():
        raise BadInput(f"{what}: empty")
    if value.startswith("-"):
        raise BadInput(f"{what} {value[:100]!r}: starts with '-', which git would read as an option")
    if any(ord(c) < 0x20 or ord(c) == 0x7F for c in value):
        raise BadInput(f"{what} {value[:100]!r}: holds a control character")
    return value


def said(stderr: str, returncode: int) -> str:
    """git's reason for failing, on one line: its first paragraph (the advice after a blank line, often
    its last line, says less: "remove the file manually to continue" names no file), or the lock file
    that stands in the way with what to do about it."""
    from gridgit.store import leftovers

    lock = leftovers.lock_named(stderr)
    if lock is not None:
        return leftovers.git_lock_message(lock)
    reason = stderr.strip().split("\n\n", 1)[0].splitlines()
    lines = [line.strip().removeprefix("fatal: ").removeprefix("error: ") for line in reason]
    return "; ".join(line for line in lines if line and not line.startswith("hint:")) or f"exit code {returncode}"


def _failed(args: tuple[str, ...], returncode: int, stderr: str) -> GridError:
    """git's failure as a one-line error (see said), naming the git command past its `-c name=value` options."""
    at = 0
    while at < len(args) - 1 and args[at].startswith("-"):
        at += 2 if args[at] == "-c" else 1
    return GridError(f"git {args[at] if args else ''} failed: {said(stderr, returncode)}")


def run_z(cwd: Path, *args: str) -> list[str]:
    """Run a path-listing git command with -z and split its NUL-separated output.

    Read as bytes and decoded with os.fsdecode: a path that is not UTF-8 comes back as the
    str Python itself would give it (usable with open() and as a git argument), never an error.
    """
    # -z goes before `--end-of-options` or `--`, after which git reads it as a revision or a path.
    at = next((i for i, arg in enumerate(args) if arg in (END_OF_OPTIONS, "--")), len(args))
    out = run_bytes(cwd, *args[:at], "-z", *args[at:])
    return [os.fsdecode(p) for p in out.split(b"\0") if p]


def config_get(cwd: Path, key: str) -> str | None:
    """`git config --get KEY`, or None when unset."""
    out = run(cwd, "config", "--get", key, check=False)
    return out.strip() or None


def run_bytes(cwd: Path, *args: str, input_bytes: bytes | None = None, check: bool = True) -> bytes:
    """Run `git ARGS` in CWD with binary stdin/stdout (blobs are not always text)."""
    with uninterrupted():
        proc = subprocess.run(["git", *args], cwd=cwd, input=input_bytes, capture_output=True, env=clean_env())
    if check and proc.returncode != 0:
        raise _failed(args, proc.returncode, proc.stderr.decode("utf-8", "replace"))
    return proc.stdout


def git_dir(cwd: Path) -> Path:
    """This work tree's own git directory (`.git`, or `.git/worktrees/NAME` in a linked one)."""
    return Path(run(cwd, "rev-parse", "--absolute-git-dir").strip())


def git_path(cwd: Path, name: str) -> Path:
    """`git rev-parse --git-path NAME` as an absolute path (honours core.hooksPath and linked worktrees)."""
    path = Path(run(cwd, "rev-parse", "--git-path", name).strip())
    return path if path.is_absolute() else cwd / path


def resolves(cwd: Path, rev: str) -> bool:
    """True when REV names a commit (e.g. ORIG_HEAD, which only some git commands leave)."""
    return bool(run(cwd, "rev-parse", "-q", "--verify", f"{rev}^{{commit}}", check=False).strip())


class StagedFile(FrozenRecord):
    """One path of `git diff --cached`: STATUS is A, M, T or D; SHA and MODE are the index side."""

    FIELDS = ("path", "mode", "sha", "status")
    __slots__ = FIELDS

    def __init__(self, path: str, mode: str, sha: str, status: str = "M") -> None:
        self.path = path
        self.mode = mode
        self.sha = sha
        self.status = status


def changed_files(cwd: Path, *pathspec: str) -> list[StagedFile]:
    """Every path whose index version differs from HEAD (under PATHSPEC), in one git call.

    On an unborn branch git compares with the empty tree: every file of the index is added.
    """
    out = run_bytes(cwd, "diff", "--cached", "--raw", "-z", "--no-abbrev", "--no-renames", "--", *pathspec)
    fields = out.split(b"\0")
    files = []
    for i in range(0, len(fields) - 1, 2):
        info, path = fields[i].decode("ascii", "replace"), os.fsdecode(fields[i + 1])
        if not info.startswith(":"):
            break
        _old_mode, new_mode, _old_sha, new_sha, status = info[1:].split()
        files.append(StagedFile(path, new_mode, new_sha, status[:1]))
    return files


def staged_files(cwd: Path, prefix: str) -> list[StagedFile]:
    """Files under PREFIX that are staged to be added or changed (not deleted)."""
    return [f for f in changed_files(cwd, prefix) if f.status != "D"]


def read_blobs(cwd: Path, shas: list[str]) -> list[bytes]:
    """The content of each blob SHA (or `REV:PATH`), with one `git cat-file --batch` for all of them."""
    if not shas:
        return []
    out = run_bytes(cwd, "cat-file", "--batch", input_bytes="".join(f"{s}\n" for s in shas).encode())
    blobs, pos = [], 0
    for _ in shas:
        end = out.index(b"\n", pos)
        header = out[pos:end].decode("utf-8", "replace").split()
        if len(header) < 3 or header[1] == "missing":
            blobs.append(b"")
            pos = end + 1
            continue
        size = int(header[2])
        blobs.append(out[end + 1 : end + 1 + size])
        pos = end + 1 + size + 1
    return blobs


@functools.cache
def version() -> tuple[int, int, int]:
    """The version of the `git` on PATH: `git version 2.39.5`, `2.39.5.windows.1`, `2.37.1 (Apple Git-137.1)`."""
    out = run(Path.cwd(), "version")
    match = re.search(r"(\d+)\.(\d+)(?:\.(\d+))?", out)
    if not match:
        raise GridError(f"cannot read the git version from {out.strip()!r}")
    return int(match[1]), int(match[2]), int(match[3] or 0)


def require_version(minimum: tuple[int, int], feature: str) -> None:
    """GridError (exit 1) naming FEATURE when the git on PATH is older than MINIMUM."""
    found = version()
    if found[:2] < minimum:
        have = ".".join(map(str, found))
        need = ".".join(map(str, minimum))
        raise GridError(f"{feature} needs git {need} or later; the git on PATH is {have}")


class WorktreeInfo(FrozenRecord):
    """One work tree of `git worktree list`: its PATH, HEAD commit and BRANCH (None when detached)."""

    FIELDS = ("path", "head", "branch", "bare")
    __slots__ = FIELDS

    def __init__(self, path: Path, head: str | None, branch: str | None, bare: bool = False) -> None:
        self.path = path
        self.head = head
        self.branch = branch
        self.bare = bare


def worktrees(cwd: Path) -> list[WorktreeInfo]:
    """Every work tree of the repository around CWD, the main one first (`git worktree list --porcelain -z`)."""
    out = run(cwd, "worktree", "list", "--porcelain", "-z")
    found = []
    for record in out.split("\0\0"):
        fields = [f for f in record.split("\0") if f]
        if not fields or not fields[0].startswith("worktree "):
            continue
        values = dict(f.partition(" ")[::2] for f in fields)
        branch = values.get("branch")
        found.append(
            WorktreeInfo(
                Path(values["worktree"]),
                values.get("HEAD"),
                branch.removeprefix("refs/heads/") if branch else None,
                "bare" in values,
            )
        )
    return found


def resolve(cwd: Path, names: list[str]) -> list[str | None]:
    """The object id of each of NAMES (`main^{commit}`, `abc123^{tree}`), None where it is missing or ambiguous.

    One `git cat-file --batch-check` for all of them: a name that does not resolve fails alone.
    """
    if not names:
        return []
    if any("\n" in name for name in names):
        raise GridError("a revision name cannot contain a newline")
    out = run(cwd, "cat-file", "--batch-check=%(objectname)", input_text="".join(f"{n}\n" for n in names))
    answers = out.split("\n")[: len(names)]
    return [a if a and " " not in a else None for a in answers]


@contextlib.contextmanager
def stream(cwd: Path, *args: str) -> Iterator[Iterator[str]]:
    """The lines of `git ARGS` as git writes them; leaving the block stops git (for read-only commands).

    For walks that end at the first answer (`git log` back from HEAD): reading stops there and
    git is killed, so the cost follows how far back the answer is, not the length of the history.
    """
    proc = subprocess.Popen(
        ["git", *args],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        encoding="utf-8",
        errors="surrogateescape",
        env=clean_env(),
    )
    assert proc.stdout is not None
    try:
        yield iter(proc.stdout)
    finally:
        proc.kill()
        proc.stdout.close()
        proc.wait()
