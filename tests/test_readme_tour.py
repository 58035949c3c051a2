"""README's two-minute tour, run as written in a real repository (a sentence of the docs is a test)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from tests.conftest import Repo

README = Path(__file__).resolve().parents[1] / "README.md"
# Lines that never end on their own (a live view, a browser) are left out.
LIVE = ("--watch", "serve --open", "--follow")


def tour_commands() -> list[str]:
    text = README.read_text(encoding="utf-8")
    tour = text[text.index("## A two-minute tour") :]
    tour = tour[: tour.index("\n## ", 5)]
    commands: list[str] = []
    for block in re.findall(r"```sh\n(.*?)```", tour, re.S):
        for line in block.replace("\\\n", " ").splitlines():
            line = line.split("  #")[0].strip()
            if line and not any(live in line for live in LIVE):
                commands.append(line)
    return commands


def test_the_readme_tour_runs_on_the_new_model(bare_repo: Repo) -> None:
    bare_repo.write("src/config.py", "CURRENCY = ''\n")
    bare_repo.git("add", "-A")
    bare_repo.git("commit", "-q", "-m", "config")
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    commands = tour_commands()
    assert any(c.startswith("gridgit init") for c in commands) and any("Grid-Phase-Complete" in c for c in commands)
    # A command answers non-zero only where the tour says it may: conflicts commands answer 6 when they find one.
    script = ['check() { rc=$?; case " $2 " in *" $rc "*) ;; *) echo "tour command $1 failed ($rc)"; exit 1;; esac; }']
    for n, command in enumerate(commands):
        if command.startswith("gridgit touch"):
            script.append("echo 'CURRENCY = \"EUR\"' > src/config.py")  # the edit the tour's agent made
        script += [command, f"check {n} '{'0 6' if command.startswith('gridgit conflicts') else '0'}'"]
    proc = subprocess.run(["bash", "-c", "\n".join(script)], cwd=bare_repo.path, env=env, capture_output=True,
                          text=True)  # fmt: skip
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr
    assert "warning" not in proc.stderr  # issue 38: the tour's own `write -c gotcha` printed one
    # The Blackboard is no file of the branch; the agent tool's hook config is the user's to commit.
    assert bare_repo.git("status", "--porcelain") == (
        "?? .claude/\n" if any("setup claude" in c for c in commands) else ""
    )
    assert "- Commit: " in (bare_repo.grid / "phases/01-foundation/scratchpad_archived.md").read_text(encoding="utf-8")
    assert len(bare_repo.git("log", "--format=%H", "grid").split()) >= 3  # snapshots after each commit
    assert "complete" in bare_repo.git("show", "grid:STATE.md")
