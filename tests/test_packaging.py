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
    assert third_party == {"mcp", "pydantic", "typing_extensions", "anyio"} and third_party <= declared


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


def test_the_metadata_a_package_index_shows() -> None:
    """issue 38.5: no classifiers, urls, keywords or authors."""
    project = PYPROJECT["project"]
    meta = importlib.metadata.metadata("gridgit")
    assert project["authors"] and meta["Author"] == "the gridgit authors"
    assert {"git", "mcp", "ai-agents"} <= set(project["keywords"])
    classifiers = meta.get_all("Classifier") or []
    oldest = project["requires-python"].removeprefix(">=")
    assert f"Programming Language :: Python :: {oldest}" in classifiers and "Typing :: Typed" in classifiers
    assert "Topic :: Software Development :: Version Control :: Git" in classifiers
    urls = dict(u.split(", ", 1) for u in meta.get_all("Project-URL") or [])
    assert set(urls) >= {"Homepage", "Documentation", "Changelog", "Issues"}
    assert urls["Changelog"].endswith("/CHANGELOG.md") and (ROOT / "CHANGELOG.md").exists()


def test_mypy_checks_as_the_oldest_python_gridgit_supports() -> None:
    assert PYPROJECT["tool"]["mypy"]["python_version"] == PYPROJECT["project"]["requires-python"].removeprefix(">=")
    assert PYPROJECT["tool"]["ruff"]["target-version"] == "py" + PYPROJECT["tool"]["mypy"]["python_version"].replace(
        ".", ""
    )


def test_the_dev_tools_are_a_dependency_group_install_sh_installs() -> None:
    """PEP 735: tools to develop gridgit are no extra its users could ask for; pip installs a group from 25.1."""
    assert "dev" not in PYPROJECT["project"]["optional-dependencies"]
    dev = {req.split(">")[0].split("=")[0].strip() for req in PYPROJECT["dependency-groups"]["dev"]}
    assert {"pytest", "mypy", "ruff", "pytest-xdist", "jsonschema"} <= dev
    install = (ROOT / "install.sh").read_text(encoding="utf-8")
    assert "-m pip install --upgrade pip" in install and '-e ".[mcp]" --group dev' in install
    assert "[dev" not in (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    pip = importlib.metadata.version("pip").split(".")
    assert (int(pip[0]), int(pip[1])) >= (25, 1)


def test_the_changelog_keeps_a_changelog() -> None:
    """https://keepachangelog.com/en/1.1.0/: newest first, an Unreleased section, each release a dated heading."""
    import re

    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert text.startswith("# Changelog\n") and "## [Unreleased]" in text
    releases = re.findall(r"^## \[(\d+\.\d+\.\d+)\] - (\d{4}-\d{2}-\d{2})$", text, re.M)
    assert releases and releases[0][0] == gridgit.__version__
    sections = set(re.findall(r"^### (\w+)$", text, re.M))
    assert sections <= {"Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"} and "Added" in sections
