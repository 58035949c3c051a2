"""STATE's whole picture (issue 36): the tech stack from the repository's manifests and languages and
the agents' `tech` entries, and the artifacts blocks made and later phases use."""

from __future__ import annotations

import json
from typing import Any

from gridgit.memory import artifacts
from tests.conftest import Repo

PYPROJECT = """[project]
name = "shop"
requires-python = ">=3.10"
dependencies = ["fastapi>=0.110", "sqlalchemy[asyncio]>=2; python_version >= '3.10'"]
"""
PACKAGE = {"name": "web", "engines": {"node": ">=20"}, "dependencies": {"react": "^18", "zod": "^3"}}
GO_MOD = "module example.com/svc\n\ngo 1.22\n\nrequire (\n\tgithub.com/go-chi/chi/v5 v5.0.12\n)\n"
CARGO = '[package]\nname = "cli"\nedition = "2021"\n\n[dependencies]\nclap = "4"\n'


def _stack(repo: Repo) -> dict[str, Any]:
    found: dict[str, Any] = repo.gridgit_json("state", "show", "--field", "persistent.tech_stack")
    return found


def _commit(repo: Repo, files: dict[str, str], message: str, agent: str = "executor-001") -> str:
    for rel, text in files.items():
        repo.write(rel, text)
        repo.git("add", rel)
    repo.git("commit", "-q", "-m", message, env={"GRID_AGENT_ID": agent, "GRIDGIT_HOOK_SYNC": "1"})
    return repo.git("rev-parse", "--short", "HEAD").strip()


def test_the_tech_stack_is_read_from_the_manifests_and_languages(repo: Repo) -> None:
    repo.gridgit("state", "update", "--set", "persistent.tech_stack.database=postgres", agent="memory-001")
    _commit(repo, {"pyproject.toml": PYPROJECT, "web/package.json": json.dumps(PACKAGE), "svc/go.mod": GO_MOD,
                   "cli/Cargo.toml": CARGO, "app/main.py": "", "app/db.py": "", "web/App.tsx": "",
                   "broken/package.json": "{not json"}, "the stack")  # fmt: skip
    found = _stack(repo)
    assert found["database"] == "postgres"  # a person's value is kept
    assert found["runtime"] == "python>=3.10"  # the shallowest manifest's
    assert found["languages"] == {"Python": 2, "TypeScript": 1}
    assert found["manifests"] == ["pyproject.toml", "broken/package.json", "cli/Cargo.toml", "svc/go.mod",
                                  "web/package.json"]  # fmt: skip
    packages = {p["name"]: (p["added_phase"], p["source"]) for p in found["added_packages"]}
    assert packages == {
        "fastapi": ("01-foundation", "pyproject.toml"), "sqlalchemy": ("01-foundation", "pyproject.toml"),
        "clap": ("01-foundation", "cli/Cargo.toml"), "github.com/go-chi/chi/v5": ("01-foundation", "svc/go.mod"),
        "react": ("01-foundation", "web/package.json"), "zod": ("01-foundation", "web/package.json"),
    }  # fmt: skip
    (skipped,) = found["skipped"]
    assert skipped["path"] == "broken/package.json" and "Expecting property name" in skipped["reason"]

    repo.gridgit("phase", "complete", "01-foundation", agent="mc")
    tech = (repo.grid / "memory" / "tech-context.md").read_text(encoding="utf-8")
    assert "None recorded yet" not in tech and "- runtime: python>=3.10" in tech
    _commit(repo, {"pyproject.toml": PYPROJECT.replace('"fastapi>=0.110"', '"fastapi>=0.110", "httpx"')}, "httpx")
    packages = {p["name"]: p["added_phase"] for p in _stack(repo)["added_packages"]}
    assert (packages["httpx"], packages["fastapi"]) == ("02-core", "01-foundation")  # each from when it came


def test_what_agents_write_with_a_tech_tag_is_noted_in_the_stack(repo: Repo) -> None:
    written = repo.gridgit_json("write", "-c", "discovery", "-t", "db", "--tags", "tech,postgres", "--content",
                                "Found: the pool is per thread", agent="executor-001")  # fmt: skip
    (note,) = _stack(repo)["notes"]
    assert (note["id"], note["note"], note["source"], note["phase_id"]) == (
        f"tech-{written['uid']}",
        "Found: the pool is per thread",
        "executor-001",
        "01-foundation",
    )
    repo.gridgit("memory", "rebuild", agent="memory-001")  # the stack read again from the files: notes kept
    assert [n["id"] for n in _stack(repo)["notes"]] == [note["id"]] and "languages" in _stack(repo)


def test_a_blocks_new_files_are_artifacts_used_by_later_phases(repo: Repo) -> None:
    repo.gridgit("block", "plan", "01-01", "--name", "Schema", agent="mc")
    repo.gridgit("take", agent="executor-001")
    _commit(repo, {"prisma/schema.prisma": "model User {}\n", "tests/test_user.py": ""}, "s")
    _commit(repo, {"README.md": "# y\n", "src/app.py": ""}, "readme")  # README changed (no artifact), app.py added
    repo.gridgit("block", "complete", "01-01", "--summary", "the schema", agent="executor-001")
    found = {a["path"]: a for a in repo.gridgit_json("state", "show", "--field", "persistent.artifacts")}
    assert sorted(found) == ["prisma/schema.prisma", "src/app.py", "tests/test_user.py"]
    schema = found["prisma/schema.prisma"]
    assert (schema["type"], schema["created_phase"], schema["block"], schema["used_by_phases"]) == (
        "schema",
        "01-foundation",
        "01-01",
        ["01-foundation"],
    )
    assert (
        schema["id"] == artifacts.artifact_id("prisma/schema.prisma") and found["tests/test_user.py"]["type"] == "test"
    )
    repo.gridgit("phase", "complete", "01-foundation", agent="mc")
    _commit(repo, {"prisma/schema.prisma": "model User { id Int }\n"}, "a column")
    later = {a["path"]: a for a in repo.gridgit_json("state", "show", "--field", "persistent.artifacts")}
    assert later["prisma/schema.prisma"]["used_by_phases"] == ["01-foundation", "02-core"]


def test_kinds_of_files() -> None:
    assert [artifacts.kind(p) for p in ("db/migrations/001.sql", "api/schema.graphql", "src/a_test.go",
                                        "docs/x.txt", "config/app.yaml", "src/app.py")] == [
        "migration", "schema", "test", "doc", "config", "code",
    ]  # fmt: skip
