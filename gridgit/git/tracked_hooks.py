"""Hooks in a folder the repository commits: `core.hooksPath` pointing into the work tree
(husky up to v8 uses `.husky/`, with the team's hook scripts tracked).

A shim there would be committed with this machine's interpreter path in it, and would run
on every teammate's machine. So gridgit keeps its shims machine-local, under
`$(git rev-parse --git-common-dir)/gridgit/hooks/`, and adds to each hook script of the
tracked folder one call that finds them at run time: on a machine without gridgit the call
is a no-op, and nothing committed names a path of this machine.
"""

from __future__ import annotations

import os
from pathlib import Path

from gridgit.errors import GridError
from gridgit.store import fileio, gitcmd
from gridgit.store.layout import Layout

CALL_MARKER = "# gridgit-hook-call v1"
_NEW_SCRIPT = "#!/usr/bin/env sh\n"


def call_text(hook: str) -> str:
    """The lines added to a tracked HOOK script: run this clone's gridgit shim when there is one."""
    return (
        f"{CALL_MARKER}: runs gridgit's hook where gridgit is installed (gridgit hooks install), nothing elsewhere\n"
        f'gridgit_hook="$(git rev-parse --git-common-dir)/gridgit/hooks/{hook}"\n'
        'if [ -x "$gridgit_hook" ]; then "$gridgit_hook" "$@" || exit $?; fi\n'
    )


def is_tracked_folder(layout: Layout, folder: Path) -> bool:
    """True when FOLDER is inside the work tree and git would commit a hook written there."""
    folder, root = folder.resolve(), layout.root.resolve()
    if not folder.is_relative_to(root) or folder.is_relative_to(_common_dir(layout).resolve()):
        return False  # outside the work tree, or in .git/ (the default hooks folder)
    probe = (folder / "pre-commit").relative_to(root).as_posix()
    # check-ignore exits 0 for an ignored path (husky v9's `.husky/_/` ignores itself), 1 otherwise.
    return gitcmd.call(layout.root, "check-ignore", "-q", "--", probe).returncode != 0


def local_dir(layout: Layout) -> Path:
    """Where the machine-local shims live: in the git directory every worktree shares."""
    return _common_dir(layout) / "gridgit" / "hooks"


def _common_dir(layout: Layout) -> Path:
    common = Path(gitcmd.run(layout.root, "rev-parse", "--git-common-dir").strip())
    return common if common.is_absolute() else layout.root / common


def write_script(path: Path, text: str) -> None:
    fileio.atomic_write(path, text)
    os.chmod(path, 0o755)


def _read(script: Path) -> str:
    try:
        return script.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise GridError(f"{script}: not UTF-8 text; add gridgit's call to it by hand (docs/hooks.md)") from None


def has_call(script: Path) -> bool:
    try:
        return CALL_MARKER in script.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False


def install(layout: Layout, folder: Path, shims: dict[str, str]) -> list[str]:
    """Write SHIMS (hook name -> text) machine-locally and a call to each into FOLDER's scripts."""
    local = local_dir(layout)
    local.mkdir(parents=True, exist_ok=True)
    changed = []
    for hook, text in shims.items():
        shim = local / hook
        if not shim.exists() or shim.read_text(encoding="utf-8", errors="replace") != text:
            write_script(shim, text)
            changed.append(f"wrote {shim}")
        script = folder / hook
        if has_call(script):
            continue
        existing = _read(script) if script.exists() else _NEW_SCRIPT
        if existing and not existing.endswith("\n"):
            existing += "\n"
        write_script(script, existing + call_text(hook))
        changed.append(f"added a call to gridgit to {script.name} (commit it: it names no path of this machine)")
    return changed


def uninstall(layout: Layout, folder: Path, hooks: tuple[str, ...]) -> list[str]:
    """Take the calls out of FOLDER's scripts (a script gridgit created goes) and remove the local shims."""
    changed = []
    for hook in hooks:
        script = folder / hook
        if has_call(script):
            text = _read(script).replace(call_text(hook), "")
            if text in ("", _NEW_SCRIPT):
                script.unlink()
                changed.append(f"removed {script.name}")
            else:
                write_script(script, text)
                changed.append(f"removed the call to gridgit from {script.name}")
        shim = local_dir(layout) / hook
        if shim.exists():
            shim.unlink()
            changed.append(f"removed {shim}")
    return changed
