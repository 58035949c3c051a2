"""This clone's id: a random name kept in the repository's git config (`gridgit.cloneid`), made on first use.

It tells two clones' records apart without naming a machine or a path (the shared history
must hold neither): the `Grid-Clone:` trailer of each grid commit (gridgit.history.clone),
and a block taken in two clones at the same second, which goes to the take whose
(timestamp, clone id) sorts first, the same answer in every clone. The key is not in the
`grid` section: a `[grid` line in the config makes every command ask git for `grid.dir`.
"""

from __future__ import annotations

import os
import re

from gridgit.store import gitcmd
from gridgit.store.layout import Layout
from gridgit.store.lazyre import lazy
from gridgit.store.locks import locked

ID_KEY = "gridgit.cloneid"
NAME_KEY = "gridgit.clonename"
_ID_RE = lazy(r"c-[0-9a-f]{12}")
# The value as `git config` writes it: a [gridgit] section holding `cloneid = c-<12 hex digits>`.
_WRITTEN_RE = lazy(r"^\[gridgit\]\n(?:\t[^\n]*\n)*?\tcloneid = (c-[0-9a-f]{12})$", re.MULTILINE)


def local_config(layout: Layout) -> str | None:
    """The text of the main repository's `.git/config`, or None when git must be asked (a `.git` file, no access)."""
    try:
        return (layout.main_root / ".git" / "config").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def settings(layout: Layout) -> dict[str, str]:
    """{key: value} of this repository's `gridgit.clone*` settings (one git call)."""
    out = gitcmd.run(layout.root, "config", "-z", "--get-regexp", r"^gridgit\.clone", check=False)
    return {k.lower(): v for k, _, v in (record.partition("\n") for record in out.split("\0") if record)}


def clone_id(layout: Layout, known: dict[str, str] | None = None) -> str:
    """This clone's id (`c-` and 12 hex digits), made and kept in the git config the first time.

    KNOWN: `settings(layout)` when the caller has them already.
    """
    if known is None:
        # Read from the file when git wrote it there: a take pays no git process for it.
        written = _WRITTEN_RE.search(local_config(layout) or "")
        if written:
            return written.group(1)
        known = settings(layout)
    found = known.get(ID_KEY)
    if found and _ID_RE.fullmatch(found):
        return found
    # Read and made under one lock: `git config` refuses a writer while another holds
    # `.git/config.lock` (16 first takes at once), and two ids made at once would each be
    # used by the process that made it.
    with locked(layout.git_common / "gridgit" / "cloneid"):
        found = settings(layout).get(ID_KEY)
        if found and _ID_RE.fullmatch(found):
            return found
        made = f"c-{os.urandom(6).hex()}"
        gitcmd.run(layout.root, "config", ID_KEY, made)
        return made
