"""What a killed process leaves behind, and how gridgit keeps it from wedging anything.

- **Files that carry their owner.** A temporary index or folder gridgit makes for git is named
  `PREFIX.<pid>.<n>` (`owned_name`): two processes never share one, and what a dead process left
  (its index, the `.lock` git made beside it) is removed by the next run (`clear_dead`). A fixed
  name shared by every run is what let one SIGKILL stop every later snapshot (issue 39).
- **git's own lock files** (`refs/heads/grid.lock`, `packed-refs.lock`) hold no owner: git makes
  them with O_EXCL and holds them for milliseconds. One of gridgit's own refs whose lock is older
  than STALE_GIT_LOCK_SECONDS, found while gridgit holds the locks that serialize every gridgit
  writer of that ref, was left by a killed git: `stale_git_lock` says so and the caller removes it.
  Every other message about a lock names its file (`lock_named`).
"""

from __future__ import annotations

import contextlib
import itertools
import os
import re
import time
from pathlib import Path

STALE_GIT_LOCK_SECONDS = 2.0  # git holds a ref's lock for milliseconds; this is long past any live holder
_SEQ = itertools.count()
_GIT_LOCK = r"""Unable to create '([^']+\.lock)'"""


def running(pid: int) -> bool:
    """Whether process PID exists (as any user)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # EPERM: it runs, as another user
        return True
    return True


def owned_name(prefix: str) -> str:
    """A name no other process or call uses: PREFIX.<pid>.<n>, which clear_dead removes once the pid is gone."""
    return f"{prefix}.{os.getpid()}.{next(_SEQ)}"


def owner(name: str, prefix: str) -> int | None:
    """The pid in NAME (`PREFIX.<pid>.<n>`, with any suffix such as `.lock`), None when NAME is not such a name."""
    if not name.startswith(prefix + "."):
        return None
    pid = name[len(prefix) + 1 :].split(".", 1)[0]
    return int(pid) if pid.isdigit() else None


def dead(folder: Path, prefixes: tuple[str, ...]) -> list[Path]:
    """The files and folders in FOLDER named after one of PREFIXES by a process that is gone."""
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    found = []
    for name in names:
        for prefix in prefixes:
            pid = owner(name, prefix)
            if pid is not None and pid != os.getpid() and not running(pid):
                found.append(folder / name)
                break
    return found


def remove(path: Path) -> None:
    """Delete PATH, a file or a folder, if it is still there."""
    if path.is_dir() and not path.is_symlink():
        import shutil  # here: fileio imports this module on every command's path

        shutil.rmtree(path, ignore_errors=True)
    else:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()


def clear_dead(folder: Path, prefixes: tuple[str, ...]) -> list[Path]:
    """Remove what dead processes left in FOLDER under PREFIXES; the paths removed."""
    found = dead(folder, prefixes)
    for path in found:
        remove(path)
    return found


def lock_named(stderr: str) -> Path | None:
    """The lock file a git error names (`Unable to create '/x/refs/heads/grid.lock': File exists`)."""
    match = re.search(_GIT_LOCK, stderr)
    return Path(match.group(1)) if match else None


def stale_git_lock(path: Path, seconds: float = STALE_GIT_LOCK_SECONDS) -> bool:
    """Whether git's lock file PATH is older than SECONDS (no live git holds a ref's lock that long)."""
    try:
        return time.time() - path.stat().st_mtime > seconds
    except OSError:
        return False


def git_lock_message(path: Path) -> str:
    """What to say about git's lock file PATH that stands in the way."""
    return (
        f"{path} exists: another git command is using it, or one was killed; "
        f"once no git command runs in this repository, remove it (`rm {path}`)"
    )
