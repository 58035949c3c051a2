"""`gridgit setup codex` makes the real Codex run gridgit's hooks (issue 34, findings 1 and 2), set up as a user does:
Codex installed and the project trusted first, then `gridgit setup codex`, which trusts gridgit's hooks through
Codex's own app server, and nothing else (no trust granted by the test). `doctor` reads the same trust."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e.conftest import require
from tests.e2e.drivers import DRIVERS, Codex, codex_hooks, trust_codex_hooks
from tests.e2e.findings import tools
from tests.e2e.modelserver import say
from tests.e2e.session import World
from tests.e2e.story import A


class SetUpByGridgit(Codex):
    """Codex prepared as a user would: its config and the project trusted, then `gridgit setup codex` run there."""

    def prepare(
        self, exe: str, home: Path, cwd: Path, url: str, env: dict[str, str], trust_hooks: bool = True
    ) -> dict[str, str]:
        added = super().prepare(exe, home, cwd, url, env, trust_hooks=False)
        full = {**env, **added, "PATH": f"{Path(exe).parent}:{env['PATH']}"}
        done = subprocess.run([sys.executable, "-m", "gridgit", "setup", "codex", "--json"], cwd=cwd, env=full,
                              capture_output=True, text=True)  # fmt: skip
        assert done.returncode == 0, done.stderr
        said = json.loads(done.stdout)["data"]
        assert said["steps"] == [] and any("trusted gridgit's" in n for n in said["notes"]), said
        return added


@pytest.fixture
def by_gridgit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(DRIVERS, "codex", SetUpByGridgit)


@pytest.mark.parametrize("tool", tools("codex"))
@pytest.mark.usefixtures("by_gridgit")
def test_setup_codex_in_a_linked_worktree_makes_codex_run_the_hooks_there(e2e_root: Path, tool: str) -> None:
    require(tool)
    world = World.make(tool, e2e_root, setup=False)
    worktree = world.worktree("x")
    run = world.session([say("Nothing to do.")], cwd=worktree, agent_id=A, trust_hooks=False)
    assert f"you are {A}" in run.turns[0].text(), run.describe()


def stale_then_renewed(world: World, exe: str, env: dict[str, str]) -> None:
    """`gridgit setup codex` trusts the hooks doctor found untrusted; an older gridgit's hooks trusted by the person,
    then this gridgit's written where Codex is not on PATH, are stale for doctor; setup renews them."""

    def doctor() -> tuple[int, str]:
        done = world.gridgit("doctor", check=False, env=env)
        return done.returncode, done.stdout

    world.gridgit("setup", "codex", env=env)
    assert {h["trustStatus"] for h in codex_hooks(exe, env, world.repo)} == {"trusted"}
    assert "Codex skips" not in doctor()[1]
    hooks = world.repo / ".codex" / "hooks.json"
    config = json.loads(hooks.read_text(encoding="utf-8"))
    config["hooks"]["Stop"][0]["hooks"][0]["timeout"] = 16
    hooks.write_text(json.dumps(config), encoding="utf-8")
    trust_codex_hooks(exe, env, world.repo)
    world.gridgit("setup", "codex", env={**env, "PATH": world.env()["PATH"]})
    assert {h["trustStatus"] for h in codex_hooks(exe, env, world.repo)} == {"trusted", "modified"}
    code, said = doctor()
    assert code == 1 and "1 changed since trusted (stale)" in said, said
    world.gridgit("setup", "codex", env=env)  # trusted again
    assert {h["trustStatus"] for h in codex_hooks(exe, env, world.repo)} == {"trusted"}
    assert "Codex skips" not in doctor()[1]
