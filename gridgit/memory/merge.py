"""Two versions of a memory file, both changed since their base (`gridgit sync`): merged without a conflict.

Every memory file is made from the files that are the truth, which sync merges by their ids:
what two clones wrote here differs only by what each had seen. So INDEX.md keeps the lines of
both (by id, in each block; a line both have is LEAD's), and the other files keep one version
whole: a memory agent's compressed phase over gridgit's own, else LEAD (the version the merge
puts first, so the result is the same whichever side is ours). The next phase completion or
`gridgit memory rebuild` makes them exact again.
"""

from __future__ import annotations

from gridgit.errors import BadInput
from gridgit.memory import compress, files, index
from gridgit.store import frontmatter


def _written_by_an_agent(text: str, source: str) -> bool:
    try:
        meta, _ = frontmatter.parse(text, source)
    except BadInput:
        return False
    return meta.get("written_by") not in (None, compress.GRIDGIT)


def merge(base: str, lead: str, other: str, source: str) -> str:
    """The merge of memory file SOURCE (a path ending in `memory/<name>`); BASE is not needed."""
    rel = source.rsplit("memory/", 1)[-1]
    kind = files.kind(rel)
    if kind == "index":
        try:
            mine, theirs = index.parse(lead, source), index.parse(other, source)
        except BadInput:
            return lead  # a version gridgit did not write: validate names it, a rebuild restores it
        for name, rows in theirs.items():
            held = {row.id for row in mine.setdefault(name, [])}
            mine[name] += [row for row in rows if row.id not in held]
        return index.render(mine)
    if kind == "compressed" and _written_by_an_agent(other, source) and not _written_by_an_agent(lead, source):
        return other
    return lead
