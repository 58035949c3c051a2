"""Which clone a grid commit came from, as its `Grid-Clone:` trailer says: never a host or a path.

Each clone is named by a random id that gridgit keeps in the repository's git config
(`gridgit.cloneid`, made at the first snapshot), and by a name its user may set
(`git config gridgit.clonename "alice laptop"`): the grid ref is pushed to a shared remote,
and a machine's paths are nobody else's business.
"""

from __future__ import annotations

import secrets

from gridgit.errors import BadInput
from gridgit.store import gitcmd, lazyre
from gridgit.store.layout import Layout

ID_KEY = "gridgit.cloneid"
NAME_KEY = "gridgit.clonename"
_ID_RE = lazyre.lazy(r"c-[0-9a-f]{12}")


def _settings(layout: Layout) -> dict[str, str]:
    """{key: value} of this repository's `gridgit.clone*` settings (one git call)."""
    out = gitcmd.run(layout.root, "config", "-z", "--get-regexp", r"^gridgit\.clone", check=False)
    return {k.lower(): v for k, _, v in (record.partition("\n") for record in out.split("\0") if record)}


def clone_id(layout: Layout, settings: dict[str, str] | None = None) -> str:
    """This clone's id (`c-` and 12 hex digits), made and kept in the git config the first time."""
    found = (_settings(layout) if settings is None else settings).get(ID_KEY)
    if found and _ID_RE.fullmatch(found):
        return found
    made = f"c-{secrets.token_hex(6)}"
    gitcmd.run(layout.root, "config", ID_KEY, made)
    return made


def label(layout: Layout) -> str:
    """The clone as a trailer names it: `NAME (ID)` when its user named it, else its id."""
    settings = _settings(layout)
    ident = clone_id(layout, settings)
    raw = settings.get(NAME_KEY)
    if raw:
        from gridgit.store.usertext import clean_name

        try:
            name = clean_name(raw, NAME_KEY)
        except BadInput:
            name = None  # a name with control characters is no name: the id alone
        if name:
            return f"{name} ({ident})"
    return ident
