"""issue 38.3: progress on stderr for work that can take over a second (a cold search index over 10^5 entries took
~20 s in silence): on a terminal only (tested through a pty), never under --json, in a pipe or in a hook."""

from __future__ import annotations

import os
import pty
import subprocess
import sys

from tests.conftest import Repo


def _run(repo: Repo, *args: str, tty: bool) -> tuple[int, str]:
    """Run gridgit ARGS with stderr on a pseudo-terminal (TTY) or a pipe: (exit code, what reached stderr)."""
    env = {**os.environ, "GRIDGIT_PROGRESS_AFTER": "0"}  # shown at once: no test waits for a second to pass
    if not tty:
        done = subprocess.run([sys.executable, "-m", "gridgit", *args], cwd=repo.path, env=env, capture_output=True,
                              text=True)  # fmt: skip
        return done.returncode, done.stderr
    main, secondary = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "gridgit", *args], cwd=repo.path, env=env,
                            stdout=subprocess.DEVNULL, stderr=secondary)  # fmt: skip
    os.close(secondary)
    chunks = []
    while True:
        try:
            chunk = os.read(main, 4096)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(main)
    return proc.wait(timeout=120), b"".join(chunks).decode("utf-8", "replace")


def test_a_cold_search_index_shows_its_progress_on_a_terminal_only(repo: Repo) -> None:
    for n in range(3):
        repo.gridgit("send", "--to", "executor-002", "--content", f"progress {n}", agent="executor-001")
    code, err = _run(repo, "search", "progress", tty=True)
    assert code == 0 and "indexing .grid/ for search (files): 1/" in err
    assert err.endswith("\r\x1b[K")  # the line is cleared when the work is done
    (repo.grid / ".cache" / "search.sqlite3").unlink()
    assert _run(repo, "search", "progress", "--json", tty=True) == (0, "")  # --json: quiet
    (repo.grid / ".cache" / "search.sqlite3").unlink()
    assert _run(repo, "search", "progress", tty=False) == (0, "")  # a pipe: quiet


def test_a_bad_progress_delay_is_named_by_doctor(repo: Repo) -> None:
    doctor = repo.gridgit("doctor", env={"GRIDGIT_PROGRESS_AFTER": "soon"}, check=False)
    assert "GRIDGIT_PROGRESS_AFTER='soon': expected a number of seconds" in doctor.stdout
