"""This clone's id: a random name kept in `.git/config` (`gridgit.clone`), made on first use.

It tells two clones' records apart without naming a machine or a path (the shared history
must hold neither): a block taken in two clones at the same second goes to the take whose
(timestamp, clone id) sorts first, the same answer in every clone. The key is not in the
`grid` section: a `[grid` line in the config makes every command ask git for `grid.dir`.
"""

from __future__ import annotations

import os
import re

from gridgit.store import gitcmd
from gridgit.store.layout import Layout
from gridgit.store.lazyre import lazy

KEY = "gridgit.clone"
# The value as `git config` writes it: a [gridgit] section holding `clone = <12 hex digits>`.
_WRITTEN_RE = lazy(r"^\[gridgit\]\n(?:\t[^\n]*\n)*?\tclone = ([0-9a-f]{12})$", re.MULTILINE)


def local_config(layout: Layout) -> str | None:
    """The text of the main repository's `.git/config`, or None when git must be asked (a `.git` file, no access)."""
    try:
        return (layout.main_root / ".git" / "config").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def clone_id(layout: Layout) -> str:
    """This clone's id (12 hex digits), written to `.git/config` the first time it is asked for."""
    # Read from the file when git wrote it there: a take pays no git process for it.
    found = _WRITTEN_RE.search(local_config(layout) or "")
    if found:
        return found.group(1)
    known = gitcmd.config_get(layout.main_root, KEY)
    if known:
        return known
    gitcmd.run(layout.main_root, "config", KEY, os.urandom(6).hex())
    # Two processes may both have made one: the value git kept is the clone's id.
    return gitcmd.config_get(layout.main_root, KEY) or ""
