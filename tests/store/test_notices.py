"""User warnings: one stderr line without loading logging, or a record when the program uses logging."""

from __future__ import annotations

import logging
import subprocess
import sys

import pytest

from gridgit.store import notices

_SCRIPT = """
import sys
from gridgit.store import notices
notices.warn("gridgit.test", "gridgit: warning: advice")
print("logging" in sys.modules)
"""


def test_without_logging_it_is_one_stderr_line() -> None:
    proc = subprocess.run([sys.executable, "-c", _SCRIPT], capture_output=True, text=True, check=True)
    assert proc.stderr == "gridgit: warning: advice\n"
    assert proc.stdout.strip() == "False"


def test_a_program_that_uses_logging_gets_a_record(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="gridgit.test"):
        notices.warn("gridgit.test", "100% sure")
    assert [(r.name, r.getMessage()) for r in caplog.records] == [("gridgit.test", "100% sure")]
