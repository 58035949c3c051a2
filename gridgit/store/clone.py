"""This clone's id: a random name kept in `.git/config` (`gridgit.clone`), made on first use.

It tells two clones' records apart without naming a machine or a path (the shared history
must hold neither): a block taken in two clones at the same second goes to the take whose
(timestamp, clone id) sorts first, the same answer in every clone. The key is not in the
`grid` section: a `[grid` line in the config makes every command ask git for `grid.dir`.
"""

from __future__ import annotations

import os

from gridgit.store import gitcmd
from gridgit.store.layout import Layout
from gridgit.store.lazyre import lazy

KEY = "gridgit.clone"
_ID_RE = lazy(r"^[0-9a-f]{12}$")


def clone_id(layout: Layout) -> str:
    """This clone's id (12 hex digits), written to `.git/config` the first time it is asked for."""
    found = gitcmd.config_get(layout.main_root, KEY)
    if found and _ID_RE.match(found):
        return found
    gitcmd.run(layout.main_root, "config", KEY, os.urandom(6).hex())
    # Two processes may both have made one: the value git kept is the clone's id.
    return gitcmd.config_get(layout.main_root, KEY) or ""
