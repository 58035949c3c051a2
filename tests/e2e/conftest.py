"""The end-to-end tier's fixtures: each agent program installed once, each tool's story played once per test run.

Every test is parametrized by TOOL (tests/e2e/findings.py `tools`), in TOOL's xdist group, so
under `pytest -n 2 --dist loadgroup` (.ci/run) one worker plays each program's story and runs
all its tests.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.e2e import programs
from tests.e2e.story import Story, play

HERE = Path(__file__).parent
TIMEOUT = 900  # a test that installs a program (npm, once) and plays its story on a loaded machine


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The tier's tests get a longer time limit than the suite's 300 s: the first of a tool installs and plays."""
    for item in items:
        if HERE in item.path.parents:
            item.add_marker(pytest.mark.timeout(TIMEOUT))


def require(tool: str) -> str:
    """TOOL's executable at its pinned version; a skip where it cannot be installed, a failure naming both versions."""
    try:
        return programs.executable(tool)
    except programs.Unavailable as exc:
        pytest.skip(f"{tool}: {exc}")
    except programs.WrongVersion as exc:
        pytest.fail(str(exc))


@pytest.fixture(scope="session")
def stories(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], Story]:
    """TOOL -> its story (tests/e2e/story.py), played at the first test that asks, once per test run."""
    played: dict[str, Story | BaseException] = {}

    def get(tool: str) -> Story:
        require(tool)
        if tool not in played:
            try:
                played[tool] = play(tool, tmp_path_factory.mktemp(f"story-{tool}"))
            except Exception as exc:  # told to every test of the tool, not replayed by each
                played[tool] = exc
        found = played[tool]
        if isinstance(found, BaseException):
            raise AssertionError(f"{tool}: the story could not be played: {found}") from found
        return found

    return get


@pytest.fixture
def e2e_root(tmp_path: Path) -> Path:
    """A folder for a world of one test's own."""
    root = tmp_path / "e2e"
    root.mkdir()
    return root
