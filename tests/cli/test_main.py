"""The CLI shell: lazy loading, --version, --help everywhere, the error boundary."""

from __future__ import annotations

import subprocess
import sys

import pytest

from gridgit import __version__
from gridgit.cli.main import COMMANDS
from tests.conftest import Repo

_PROBE = (
    "import sys, atexit\n"
    "atexit.register(lambda: print(sorted(m for m in ('yaml', 'git', 'watchdog', 'filelock') if m in sys.modules),"
    " file=sys.stderr))\n"
    "from gridgit.cli.main import main\n"
    "main(sys.argv[1:])\n"
)


def test_version_imports_nothing_heavy() -> None:
    proc = subprocess.run([sys.executable, "-c", _PROBE, "--version"], capture_output=True, text=True)
    assert proc.returncode == 0
    assert proc.stdout.strip() == f"gridgit, version {__version__}"
    assert proc.stderr.strip() == "[]"


def test_top_level_help_lists_commands(repo: Repo) -> None:
    out = repo.gridgit("--help").stdout
    for name in ("init", "state", "status"):
        assert name in out


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_every_command_has_help(repo: Repo, name: str) -> None:
    proc = repo.gridgit(name, "--help")
    assert proc.stdout.startswith(f"Usage: gridgit {name}")


def test_unknown_command_is_a_usage_error(repo: Repo) -> None:
    proc = repo.gridgit("frobnicate", check=False)
    assert proc.returncode == 2
    assert "No such command" in proc.stderr
