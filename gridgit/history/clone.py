"""Which clone a grid commit came from, as its `Grid-Clone:` trailer says: never a host or a path.

Each clone is named by a random id that gridgit keeps in the repository's git config
(`gridgit.cloneid`, gridgit.store.clone), and by a name its user may set
(`git config gridgit.clonename "alice laptop"`): the grid ref is pushed to a shared remote,
and a machine's paths are nobody else's business.
"""

from __future__ import annotations

from gridgit.errors import BadInput
from gridgit.store import clone
from gridgit.store.layout import Layout


def label(layout: Layout) -> str:
    """The clone as a trailer names it: `NAME (ID)` when its user named it, else its id."""
    known = clone.settings(layout)
    ident = clone.clone_id(layout, known)
    raw = known.get(clone.NAME_KEY)
    if raw:
        from gridgit.store.usertext import clean_name

        try:
            name = clean_name(raw, clone.NAME_KEY)
        except BadInput:
            name = None  # a name with control characters is no name: the id alone
        if name:
            return f"{name} ({ident})"
    return ident
