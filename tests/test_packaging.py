"""Packaging as Python users expect: one version, a license pip shows, types for the API, pre-commit's manifest,
and every third-party import of an optional part declared in its extra."""

from __future__ import annotations

import ast
import importlib.metadata
import shlex
import sys
from pathlib import Path

import tomllib

import gridgit
from tests.conftest import Repo

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_one_version_source_and_an_spdx_license() -> None:
    project = PYPROJECT["project"]
    assert "version" not in project and "version" in project["dynamic"]
    assert PYPROJECT["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "gridgit.__version__"}
    assert importlib.metadata.version("gridgit") == gridgit.__version__
    assert project["license"] == "MIT" and project["license-files"] == ["LICENSE"]  # PEP 639
    assert (ROOT / "LICENSE").read_text(encoding="utf-8").startswith("MIT License")
    assert importlib.metadata.metadata("gridgit")["License-Expression"] == "MIT"


def test_the_api_ships_its_types() -> None:
    assert (ROOT / "gridgit" / "py.typed").exists()  # PEP 561
    assert "py.typed" in PYPROJECT["tool"]["setuptools"]["package-data"]["gridgit"]


def test_tomli_backs_tomllib_before_python_3_11() -> None:
    assert "tomli>=1.1; python_version < '3.11'" in PYPROJECT["project"]["dependencies"]


def test_the_mcp_extra_declares_every_third_party_import_of_gridgit_mcp() -> None:
    imported = set()
    for path in (ROOT / "gridgit" / "mcp").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            names += [node.module] if isinstance(node, ast.ImportFrom) and node.module and not node.level else []
            imported |= {n.split(".")[0] for n in names}
    third_party = imported - set(sys.stdlib_module_names) - {"gridgit", "__future__"}
    declared = {
        req.split(">")[0].split("<")[0].split("=")[0].strip()
        for req in PYPROJECT["project"]["optional-dependencies"]["mcp"]
    }
    assert third_party == {"mcp", "pydantic"} and third_party <= declared


def test_pre_commit_runs_gridgit_validate(repo: Repo) -> None:
    """The manifest pre-commit reads (its own loader checks it), and its entry run as pre-commit runs it."""
    from pre_commit.clientlib import load_manifest

    (hook,) = load_manifest(str(ROOT / ".pre-commit-hooks.yaml"))
    assert hook["id"] == "gridgit-validate" and hook["language"] == "python" and not hook["pass_filenames"]
    command = shlex.split(hook["entry"])
    assert command[0] in PYPROJECT["project"]["scripts"]
    import subprocess

    ok = subprocess.run(command, cwd=repo.path, capture_output=True, text=True)
    assert ok.returncode == 0, ok.stderr
    (repo.grid / "STATE.md").write_text("---\nphase: [\n---\n", encoding="utf-8")
    broken = subprocess.run(command, cwd=repo.path, capture_output=True, text=True)
    assert broken.returncode != 0 and "STATE.md" in broken.stdout + broken.stderr
