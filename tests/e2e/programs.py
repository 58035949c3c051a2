"""The real agent programs of the end-to-end tier: pinned versions, installed once from npm, found again.

Each CLI is installed with npm at its pinned version into a folder of its own under the tier's
ignored folder (`.e2e/` at the repository's root, or `$GRIDGIT_E2E_DIR`), once: a later run
finds it there. `GRIDGIT_E2E_<TOOL>` (e.g. `GRIDGIT_E2E_CLAUDE=/usr/local/bin/claude`) runs
another installation instead; its version must still be the pinned one. A program that cannot
be had is a skip naming why (npm missing or the registry out of reach); a program of another
version is a failure naming both versions.
"""

from __future__ import annotations

import fcntl
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Pin:
    """TOOL's npm PACKAGE at VERSION, whose executable is BIN."""

    tool: str
    package: str
    version: str
    bin: str


# The versions issue 34 was tried with (docs/agent-tools.md, "Tested with").
PINS = {
    "claude": Pin("claude", "@anthropic-ai/claude-code", "2.1.197", "claude"),
    "codex": Pin("codex", "@openai/codex", "0.171.0", "codex"),
    "opencode": Pin("opencode", "opencode-ai", "1.18.33", "opencode"),
    "gemini": Pin("gemini", "@google/gemini-cli", "0.61.0", "gemini"),
    "copilot": Pin("copilot", "@github/copilot", "1.0.102", "copilot"),
}
TOOLS = tuple(PINS)
INSTALL_SECONDS = 900  # five packages of 100-400 MB each from the registry, on a slow day


class Unavailable(Exception):
    """The program cannot be had here (a skip: the reason says why)."""


class WrongVersion(Exception):
    """The program found is not the pinned version (a failure: the message names both)."""


def install_dir() -> Path:
    return Path(os.environ.get("GRIDGIT_E2E_DIR") or ROOT / ".e2e")


def version_of(executable: str) -> str:
    """The version EXECUTABLE reports (`--version`), as x.y.z."""
    try:
        done = subprocess.run(
            [executable, "--version"], capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
            env={**os.environ, "COPILOT_AUTO_UPDATE": "false", "NO_COLOR": "1"},
        )  # fmt: skip
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise Unavailable(f"{executable} --version did not run: {exc}") from None
    found = re.search(r"\d+\.\d+\.\d+", done.stdout + done.stderr)
    if found is None:
        raise Unavailable(f"{executable} --version printed no version: {(done.stdout + done.stderr)[:200]!r}")
    return found.group(0)


def check_version(pin: Pin, executable: str) -> str:
    """EXECUTABLE, once its version is PIN's; WrongVersion naming both otherwise."""
    found = version_of(executable)
    if found != pin.version:
        raise WrongVersion(
            f"{pin.tool}: {executable} is version {found}, the end-to-end tier is pinned to {pin.version} "
            f"({pin.package}@{pin.version}; tests/e2e/programs.py PINS)"
        )
    return executable


def _npm_install(pin: Pin, folder: Path) -> None:
    npm = shutil.which("npm")
    if npm is None:
        raise Unavailable("npm is not installed (the end-to-end tier installs the agent CLIs with it)")
    log = folder / "install.log"
    folder.mkdir(parents=True, exist_ok=True)
    with log.open("w", encoding="utf-8") as out:
        done = subprocess.run(
            [npm, "install", "--prefix", str(folder), "--no-audit", "--no-fund", "--loglevel=error",
             f"{pin.package}@{pin.version}"],
            stdout=out, stderr=subprocess.STDOUT, timeout=INSTALL_SECONDS, stdin=subprocess.DEVNULL,
        )  # fmt: skip
    if done.returncode != 0:
        tail = log.read_text(encoding="utf-8", errors="replace").strip().splitlines()[-3:]
        raise Unavailable(f"npm could not install {pin.package}@{pin.version}: {' | '.join(tail)}")


def executable(tool: str) -> str:
    """TOOL's executable at its pinned version: GRIDGIT_E2E_<TOOL>, else installed (once) under install_dir()."""
    pin = PINS[tool]
    given = os.environ.get(f"GRIDGIT_E2E_{tool.upper()}")
    if given:
        return check_version(pin, given)
    folder = install_dir() / f"{tool}-{pin.version}"
    binary = folder / "node_modules" / ".bin" / pin.bin
    folder.parent.mkdir(parents=True, exist_ok=True)
    # pytest-xdist's workers may both want it: one installs, the other waits and finds it done.
    with (folder.parent / f".{tool}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not binary.exists():
            _npm_install(pin, folder)
        if not binary.exists():
            raise Unavailable(f"{pin.package}@{pin.version} installed no {pin.bin} under {folder}")
    return check_version(pin, str(binary))
