"""One entry's markdown: format and parse it, split a body into entries (pure functions of text)."""

from __future__ import annotations

import re

from gridgit.errors import BadInput
from gridgit.scratchpad.entry import (
    CATEGORIES,
    RELEVANCES,
    Entry,
    Resolution,
    Validation,
    check_one_line,
    default_title,
)
from gridgit.store import ids
from gridgit.store.escaping import LineEscaper
from gridgit.store.lazyre import lazy

HEADER_RE = lazy(r"^### \[(\d+)\] \[([^\]\n]+)\] (\S+) \| (\S+) \| (.+)$", re.MULTILINE)
# A content line that would read as an entry header (or as an escaped one) gets one more
# backslash, so content is escaped, never dropped, and the escape is undone exactly.
_ESCAPER = LineEscaper(r"### \[", ("### [",))
SEPARATOR = "\n\n---\n\n"

escape = _ESCAPER.escape
unescape = _ESCAPER.unescape


def format_entry(entry: Entry) -> str:
    """The markdown of ENTRY, ending with its `---` separator and a blank line."""
    lines = [
        f"### [{entry.id}] [{entry.timestamp}] {entry.agent_id} | {entry.category} | {entry.topic}",
        "",
        f"**Topic:** {check_one_line('title', entry.title or default_title(entry.topic))}",
        f"**Tags:** {', '.join(entry.tags)}",
        f"**Relevance:** {entry.relevance}",
        f"**Block:** {check_one_line('block', entry.block_id)}",
    ]
    if entry.contributors:
        lines.append(f"**Contributors:** {', '.join(entry.contributors)}")
    if entry.uid:
        lines.append(f"**Id:** {check_one_line('id', entry.uid)}")
    if entry.carried_from:
        lines.append(f"**Carried From:** {check_one_line('carried from', entry.carried_from)}")
    if entry.supersedes:
        lines.append(f"**Supersedes:** {check_one_line('supersedes', entry.supersedes)}")
    if entry.affects_phases:
        lines.append(f"**Affects Phases:** {', '.join(entry.affects_phases)}")
    if entry.resolution is not None:
        lines += entry.resolution.lines()
    lines += [check_one_line("validation", v.line()) for v in entry.validations]
    return "\n".join(lines) + "\n\n" + escape(entry.content) + SEPARATOR


def format_listing(entries: list[Entry]) -> str:
    """ENTRIES as `gridgit read` prints them; open work only the archive holds under a line saying so."""
    text = "".join(format_entry(e) for e in entries if not e.archived)
    held = [e for e in entries if e.archived]
    if held:
        text += "# Open, in the phase's archive (numbered there; resolve it by its **Id:**)\n\n"
        text += "".join(format_entry(e) for e in held)
    return text.rstrip("\n") or "(no entries)"


_META_RE = lazy(
    r"^\*\*(Topic|Tags|Relevance|Block|Contributors|Id|Carried From|Supersedes|Affects Phases|Resolved|Resolution"
    r"|Answer|Validated):\*\*[ ]?(.*)$"
)
# The one metadata line an entry may have several of: one per agent that confirmed it.
_REPEATED = "Validated"
_UNKNOWN_META_RE = lazy(r"^\*\*([^*\n:]{1,40}):\*\*")
_RESOLVED_RE = lazy(r"^(\S+) by (\S+)$")
_VALIDATED_RE = lazy(r"^(\S+) by ([^\s:]+)(?:: (.*))?$")


def _split_list(text: str) -> list[str]:
    return [t.strip() for t in text.split(",") if t.strip()]


def _resolution(meta: dict[str, str], where: str) -> Resolution | None:
    if "Resolved" not in meta:
        return None
    match = _RESOLVED_RE.match(meta["Resolved"].strip())
    if match is None:
        raise BadInput(f"{where}: expected `**Resolved:** TIMESTAMP by AGENT`, got {meta['Resolved']!r}")
    return Resolution(match.group(1), match.group(2), meta.get("Resolution", ""), meta.get("Answer", ""))


def _validation(text: str, where: str) -> Validation:
    match = _VALIDATED_RE.match(text)
    if match is None:
        raise BadInput(f"{where}: expected `**Validated:** TIMESTAMP by AGENT[: note]`, got {text!r}")
    return Validation(match.group(1), match.group(2), match.group(3) or "")


# Entries parsed, by their exact markdown: a scratchpad is read again on every write, and
# all but its newest entries are text this process has parsed before. The text decides
# the entry (LINE_NO and SOURCE only name errors, and errors are not kept).
_PARSED: dict[str, Entry] = {}
_parsed_chars = 0  # the texts' total length: the cache starts over past _PARSED_MAX_CHARS
_PARSED_MAX_CHARS = 4_000_000  # ~8,000 entries of usual size; a long-lived server stays small


def parse_entry(chunk: str, line_no: int, source: str) -> Entry:
    """Parse one entry's markdown (from its header to the next); LINE_NO locates errors.

    A fresh Entry every time (callers change theirs), parsed once per distinct text.
    """
    global _parsed_chars
    parsed = _PARSED.get(chunk)
    if parsed is None:
        parsed = _parse_entry(chunk, line_no, source)
        if _parsed_chars + len(chunk) > _PARSED_MAX_CHARS:
            _PARSED.clear()
            _parsed_chars = 0
        _PARSED[chunk] = parsed
        _parsed_chars += len(chunk)
    return parsed.copy()


def _parse_entry(chunk: str, line_no: int, source: str) -> Entry:
    header, _, rest = chunk.partition("\n")
    match = HEADER_RE.match(header)
    if match is None:
        raise BadInput(f"{source} line {line_no}: not an entry header: {header[:80]!r}")
    entry_id, timestamp, agent_id, category, topic = match.groups()
    if category not in CATEGORIES:
        raise BadInput(f"{source} line {line_no}: unknown category {category!r}")
    meta: dict[str, str] = {}
    validations: list[Validation] = []
    # Walk the metadata lines by offset (the content after them is taken whole, not split
    # into lines and joined again: this runs for every entry of every scratchpad read).
    i, pos = (1, 1) if rest.startswith("\n") or not rest else (0, 0)
    line = ""
    while pos <= len(rest):
        end = rest.find("\n", pos)
        line = rest[pos:] if end == -1 else rest[pos:end]
        m = _META_RE.match(line)
        if m is None:
            break
        if m.group(1) == _REPEATED:
            validations.append(_validation(m.group(2), f"{source} line {line_no + i + 1}: entry [{entry_id}]"))
        elif m.group(1) in meta:
            # Keeping one of two would change the entry's meaning on the next write: report it.
            raise BadInput(f"{source} line {line_no + i + 1}: entry [{entry_id}] has a second **{m.group(1)}:** line")
        else:
            meta[m.group(1)] = m.group(2)
        i, pos = i + 1, (len(rest) + 1 if end == -1 else end + 1)
    if pos <= len(rest) and line.startswith("**") and (unknown := _UNKNOWN_META_RE.match(line)):
        # Moved into the content, it would be re-rendered below a fresh header: text that moves.
        raise BadInput(
            f"{source} line {line_no + i + 1}: entry [{entry_id}] has an unknown header line "
            f"**{unknown.group(1)}:** (put it in the content, after a blank line)"
        )
    relevance = meta.get("Relevance", "").strip()
    if relevance not in RELEVANCES:
        raise BadInput(f"{source} line {line_no + i}: entry [{entry_id}] has relevance {relevance!r}")
    body = rest[pos:]
    # Our own writes put exactly one blank line after the metadata and SEPARATOR at the end;
    # a hand edit may not, so strip leniently only when the exact shape is absent.
    body = body[1:] if body.startswith("\n") else body
    if body.endswith(SEPARATOR):
        content = body[: -len(SEPARATOR)]
    elif body.endswith(SEPARATOR[:-1]):
        content = body[: -len(SEPARATOR) + 1]
    else:
        content = re.sub(r"\n*(---\s*)?\Z", "", body.rstrip())
    return Entry(
        id=int(entry_id),
        timestamp=timestamp,
        agent_id=agent_id,
        category=category,
        topic=topic.strip(),
        tags=_split_list(meta.get("Tags", "")),
        relevance=relevance,
        block_id=meta.get("Block", ""),
        content=unescape(content),
        title=meta.get("Topic", ""),
        contributors=_split_list(meta.get("Contributors", "")),
        uid=meta.get("Id", "").strip(),
        carried_from=meta.get("Carried From", "").strip(),
        resolution=_resolution(meta, f"{source} line {line_no}: entry [{entry_id}]"),
        validations=validations,
        supersedes=meta.get("Supersedes", "").strip(),
        affects_phases=_split_list(meta.get("Affects Phases", "")),
    )


# What a line that starts like an entry header starts with: a header, or (our own writes
# escape such content lines) a hand edit that broke one.
_HEADER_START = "### ["


def _next_header(body: str, after: int) -> int:
    """Where the next line that starts with `### [` begins after offset AFTER, or -1.

    str.find, not a multiline pattern: this runs over the whole body on every read and write.
    """
    found = body.find("\n" + _HEADER_START, after)
    return found + 1 if found != -1 else -1


def split_body(body: str, source: str, first_line: int = 1) -> tuple[str, list[tuple[int, str]]]:
    """(preamble, [(offset, entry chunk)]) of a scratchpad body, in one pass over it.

    A line that starts like an entry header but does not parse is an error naming SOURCE and
    its line (FIRST_LINE being the body's first line in the file).
    """
    starts = []
    at = 0 if body.startswith(_HEADER_START) else _next_header(body, 0)
    while at != -1:
        if not HEADER_RE.match(body, at):  # MULTILINE: `^` and `$` hold at this line's ends
            end = body.find("\n", at)
            line = body[at : end if end != -1 else len(body)]
            line_no = first_line + body.count("\n", 0, at)
            raise BadInput(f"{source} line {line_no}: broken entry header: {line[:80]!r}")
        starts.append(at)
        at = _next_header(body, at)
    if not starts:
        return body, []
    bounds = [*starts, len(body)]
    return body[: starts[0]], [(bounds[i], body[bounds[i] : bounds[i + 1]]) for i in range(len(starts))]


def parse_entries(body: str, source: str, first_line: int = 1, phase_id: str = "") -> tuple[str, list[Entry]]:
    """(preamble, every entry of BODY in file order); FIRST_LINE is the body's line in the file.

    Entries written by an earlier gridgit (no `**Id:**` line) get their derived uid (see
    assign_legacy_uids); PHASE_ID being the phase whose scratchpad or archive BODY is.
    """
    preamble, chunks = split_body(body, source, first_line)
    entries = []
    line_no = first_line + preamble.count("\n")
    for _, chunk in chunks:
        entries.append(parse_entry(chunk, line_no, source))
        line_no += chunk.count("\n")
    assign_legacy_uids(entries, phase_id)
    return preamble, entries


def assign_legacy_uids(entries: list[Entry], phase_id: str) -> None:
    """Give each entry without a uid its derived one: two clones reading one legacy file agree."""
    seen: dict[tuple[str, str, str, str], int] = {}
    for entry in entries:
        if entry.uid:
            continue
        key = (entry.timestamp, entry.agent_id, entry.category, entry.topic)
        seen[key] = seen.get(key, -1) + 1
        entry.uid = ids.legacy_entry_id(phase_id, *key, ordinal=seen[key])
