"""Every command that follows something until stopped ends the same way on Ctrl-C and SIGTERM:
exit 130 and `gridgit: interrupted`, also when started with SIGINT ignored (as job runners and
test harnesses start processes, which made the SIGINT test of `events tail -f` flaky)."""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import threading

import pytest

from tests.conftest import Repo

FOLLOWERS = {
    "events tail -f": ["events", "tail", "-n", "1", "--follow", "--interval", "0.05"],
    "status --watch": ["status", "--watch", "--interval", "0.2"],
    "daemon logs -f": ["daemon", "logs", "--follow"],
}


def _ignore_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
@pytest.mark.parametrize("command", list(FOLLOWERS))
def test_followers_stop_with_130(repo: Repo, command: str, sig: signal.Signals) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "gridgit", *FOLLOWERS[command]],
        cwd=repo.path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={k: v for k, v in os.environ.items() if k != "GRID_AGENT_ID"},
        preexec_fn=_ignore_sigint,
    )
    lines: queue.Queue[str] = queue.Queue()

    def drain() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.put(line)

    threading.Thread(target=drain, daemon=True).start()
    try:
        lines.get(timeout=60)  # it is following now: its handlers are set
        proc.send_signal(sig)
        assert proc.wait(timeout=60) == 130
        assert proc.stderr is not None and proc.stderr.read().strip() == "gridgit: interrupted"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
