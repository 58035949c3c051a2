"""What a file of `.grid/memory/` must be (pure functions of text): `gridgit validate`, the hooks
and the watcher check it through gridgit.validation.rules; `gridgit memory write` before it writes.
"""

from __future__ import annotations

from gridgit.errors import BadInput
from gridgit.memory import compress, files, index
from gridgit.model.permissions import check_agent_id
from gridgit.store import frontmatter, ids
from gridgit.store.layout import PHASE_ID_RE

FIX = "run `gridgit memory rebuild`: memory/ is rebuilt from LEARNINGS.md, the archives and STATE.md"


def expected_kind(rel: str) -> str | None:
    """The `kind:` of memory file REL's frontmatter; None for a file gridgit does not know."""
    found = files.kind(rel)
    if found == "topic":
        return files.TOPICS[rel][0]
    return {"index": "index", "tech": "tech-context", "compressed": "compressed"}.get(found or "")


def problems(rel: str, text: str, source: str) -> list[tuple[int, str]]:
    """(line, message) of each problem of TEXT as memory file REL (inside memory/); a file that
    cannot be read at all is a BadInput naming SOURCE and the line."""
    kind = expected_kind(rel)
    if kind is None:
        return []
    if kind == "index":
        index.parse(text, source)
        return []
    meta, body = frontmatter.parse(text, source)
    if meta.get("kind") != kind:
        return [(2, f"expected `kind: {kind}` in the frontmatter, found {meta.get('kind')!r}")]
    first = frontmatter.body_line(text, body)
    if kind == "compressed":
        return _compressed(rel, meta, body, first)
    if rel in files.TOPICS:
        return _topic(body, first)
    return []


def _compressed(rel: str, meta: dict[str, object], body: str, first: int) -> list[tuple[int, str]]:
    found: list[tuple[int, str]] = []
    phase_id = str(meta.get("phase_id") or "")
    if not PHASE_ID_RE.match(phase_id):
        found.append((2, f"phase_id {phase_id!r} is not NN-slug"))
    elif not files.names_phase(rel, phase_id):
        found.append((2, f"phase_id {phase_id} does not match the file name {rel}"))
    writer = str(meta.get("written_by") or "")
    if writer != compress.GRIDGIT:
        try:
            check_agent_id(writer)
        except BadInput as exc:
            found.append((2, f"written_by: {exc}"))
    for number, _, text, uids in compress.items(body):
        if not uids:
            found.append((first + number - 1, f"list item links to no entry: {text[:60]!r}"))
    return found


def _topic(body: str, first: int) -> list[tuple[int, str]]:
    """Each `### learning` of a topic file names its learning by `- **Id:** <id>`."""
    found: list[tuple[int, str]] = []
    heading = 0
    has_id = True
    for number, line in enumerate([*body.split("\n"), "### "], start=first):
        if line.startswith("### "):
            if not has_id:
                found.append((heading, "learning without a valid `- **Id:** <id>` line"))
            heading, has_id = number, False
        elif line.startswith("- **Id:** "):
            has_id = ids.is_id(line[len("- **Id:** ") :].strip())
    return found
