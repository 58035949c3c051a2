"""install.sh: one summary line on success; on a failure the error shows and the exit code stands.

pip is replaced by a stand-in interpreter in .venv/bin (a real install takes minutes): the
script's own output handling is what is tested.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

FAKE_PYTHON = """#!/bin/sh
case "$*" in
  *"--group dev"*) echo "WARNING: setuptools: a deprecation, forty lines of it"; echo "building..."
                 if [ -n "${FAIL_PIP:-}" ]; then echo "ERROR: No matching distribution for click" >&2; exit 7; fi ;;
  *) echo "WARNING: pip is noisy" ;;
esac
exit 0
"""


@pytest.mark.parametrize("fail", [False, True])
def test_install_prints_a_summary_or_the_error(tmp_path: Path, fail: bool) -> None:
    shutil.copy(ROOT / "install.sh", tmp_path / "install.sh")
    bin_dir = tmp_path / ".venv" / "bin"
    bin_dir.mkdir(parents=True)
    (bin_dir / "python").write_text(FAKE_PYTHON)
    (bin_dir / "gridgit").write_text("#!/bin/sh\necho 'gridgit, version 9.9'\n")
    for exe in bin_dir.iterdir():
        exe.chmod(0o755)
    env = {"PATH": "/usr/bin:/bin", **({"FAIL_PIP": "1"} if fail else {})}
    proc = subprocess.run(["sh", str(tmp_path / "install.sh")], capture_output=True, text=True, env=env)
    if fail:
        assert proc.returncode == 7
        assert proc.stdout == ""
        assert "installing gridgit and its dev tools failed (exit 7)" in proc.stderr
        assert "ERROR: No matching distribution for click" in proc.stderr
    else:
        assert proc.returncode == 0 and proc.stderr == ""
        assert proc.stdout.splitlines() == [
            "gridgit installed: gridgit, version 9.9 in .venv (3 warning line(s) from pip and the build in .venv/install.log)"
        ]
