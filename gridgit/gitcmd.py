"""All git access: `git` subprocesses (and GitPython, imported lazily where it earns its cost)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from gridgit.errors import GridError

# Variables git exports to hooks; they point at the repository that runs the hook and
# would silently redirect a git command aimed at another repository.
_HOOK_VARS = ("GIT_DIR", "GIT_INDEX_FILE", "GIT_WORK_TREE", "GIT_PREFIX", "GIT_OBJECT_DIRECTORY")


def clean_env(keep_hook_vars: bool = False) -> dict[str, str]:
    """The environment for a git subprocess; hook variables dropped unless asked to keep them."""
    env = dict(os.environ)
    if not keep_hook_vars:
        for name in _HOOK_VARS:
            env.pop(name, None)
    return env


def run(
    cwd: Path,
    *args: str,
    input_text: str | None = None,
    check: bool = True,
    keep_hook_vars: bool = False,
) -> str:
    """Run `git ARGS` in CWD and return stdout; a failure becomes a one-line GridError."""
    proc = subprocess.run(
        ["git", *args],
        cwd=cwd,
        input=input_text,
        capture_output=True,
        text=True,
        env=clean_env(keep_hook_vars),
    )
    if check and proc.returncode != 0:
        detail = (proc.stderr.strip().splitlines() or [f"exit code {proc.returncode}"])[-1]
        raise GridError(f"git {args[0]} failed: {detail}")
    return proc.stdout


def run_z(cwd: Path, *args: str, keep_hook_vars: bool = False) -> list[str]:
    """Run a path-listing git command with -z and split its NUL-separated output."""
    out = run(cwd, *args, "-z", keep_hook_vars=keep_hook_vars)
    return [p for p in out.split("\0") if p]


def config_get(cwd: Path, key: str) -> str | None:
    """`git config --get KEY`, or None when unset."""
    out = run(cwd, "config", "--get", key, check=False)
    return out.strip() or None
