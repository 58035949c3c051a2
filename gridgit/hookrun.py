"""Compatibility: git hook shims written by earlier versions run `from gridgit.hookrun import main`.

`gridgit doctor` reports those shims as outdated and `gridgit hooks install` rewrites them to
call gridgit.git.hookrun; until then they keep working through this module.
"""

from __future__ import annotations

from gridgit.git.hookrun import main

__all__ = ["main"]
