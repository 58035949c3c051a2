"""One scratchpad entry: the record, its resolution, and the rules of its fields (pure functions).

Its markdown (format and parse) is gridgit.scratchpad.entry_markdown.
"""

from __future__ import annotations

from gridgit.errors import BadInput
from gridgit.store import usertext
from gridgit.store.lazyre import lazy
from gridgit.store.record import FrozenRecord, Record
from gridgit.store.redaction import redact

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

CATEGORIES = (
    "discovery", "decision", "gotcha", "pattern", "warning", "question", "blocker", "handoff", "heartbeat",
)  # fmt: skip
RELEVANCES = ("HIGH", "MEDIUM", "LOW")
# What stays open until someone closes it (`gridgit resolve`): a blocker, a question, a
# warning, and a handoff until its recipient takes it. Open entries never leave the live
# scratchpad through an auto-archive (DESIGN.md invariant 7).
OPEN_CATEGORIES = ("blocker", "question", "warning", "handoff")
MAX_CONTENT_BYTES = usertext.LIMITS["content"]

_TOPIC_RE = lazy(r"^[a-z0-9][a-z0-9_.-]*$")


class Entry(Record):
    """The spec's entry dict, with the human topic title, merge contributors and a stable id.

    ID is the spec's display number ([N], renumbered when entries are archived); UID is the
    entry's identity (a ULID, see gridgit.store.ids) that merges, archive, promotion,
    carry-forward and evidence go by; CARRIED_FROM is the uid of the entry it was carried from.
    VALIDATIONS are the other agents that confirmed it (`gridgit confirm`), SUPERSEDES the uid of an
    earlier entry of its topic it replaces, AFFECTS_PHASES the phases a decision bears on.
    """

    FIELDS = (
        "id", "timestamp", "agent_id", "category", "topic", "tags", "relevance", "block_id", "content",
        "title", "contributors", "uid", "carried_from", "resolution", "validations", "supersedes", "affects_phases",
    )  # fmt: skip
    __slots__ = FIELDS

    def __init__(
        self,
        id: int,
        timestamp: str,
        agent_id: str,
        category: str,
        topic: str,
        tags: list[str],
        relevance: str,
        block_id: str,
        content: str,
        title: str = "",
        contributors: list[str] | None = None,
        uid: str = "",
        carried_from: str = "",
        resolution: Resolution | None = None,
        validations: list[Validation] | None = None,
        supersedes: str = "",
        affects_phases: list[str] | None = None,
    ) -> None:
        self.id = id
        self.timestamp = timestamp
        self.agent_id = agent_id
        self.category = category
        self.topic = topic
        self.tags = tags
        self.relevance = relevance
        self.block_id = block_id
        self.content = content
        self.title = title
        self.contributors = contributors if contributors is not None else []
        self.uid = uid
        self.carried_from = carried_from
        self.resolution = resolution
        self.validations = validations if validations is not None else []
        self.supersedes = supersedes
        self.affects_phases = affects_phases if affects_phases is not None else []

    def copy(self) -> Entry:
        """An entry equal to this one that shares no list with it (a Resolution is never changed in place)."""
        return Entry(
            self.id, self.timestamp, self.agent_id, self.category, self.topic, list(self.tags), self.relevance,
            self.block_id, self.content, self.title, list(self.contributors), self.uid, self.carried_from,
            self.resolution, list(self.validations), self.supersedes, list(self.affects_phases),
        )  # fmt: skip

    @property
    def resolved(self) -> bool:
        """Closed by `gridgit resolve` (or, as before, tagged `resolved` by hand)."""
        return self.resolution is not None or "resolved" in self.tags

    @property
    def archived(self) -> bool:
        """True for an entry read from its phase's archive (see ArchivedEntry)."""
        return False

    @property
    def is_open(self) -> bool:
        """Open work: a blocker, question, warning or handoff nobody resolved (or took) yet."""
        return self.category in OPEN_CATEGORIES and not self.resolved

    def validated_by(self) -> list[str]:
        """The agents that confirmed the entry, each once (never its author: see gridgit.coordination.confirmation)."""
        return list(dict.fromkeys(v.by for v in self.validations))

    def to_dict(self) -> dict[str, Any]:
        data = self.fields()
        data["tags"], data["contributors"] = list(self.tags), list(self.contributors)
        data["resolution"] = self.resolution.fields() if self.resolution is not None else None
        data["validations"] = [v.fields() for v in self.validations]
        data["affects_phases"] = list(self.affects_phases)
        for optional in ("contributors", "carried_from", "resolution", "validations", "supersedes", "affects_phases"):
            if not data[optional]:
                del data[optional]
        return data


class ArchivedEntry(Entry):
    """An entry as its phase's archive holds it (ids in archive numbering): shown where open work is."""

    __slots__ = ()

    @classmethod
    def of(cls, entry: Entry) -> ArchivedEntry:
        return cls(**entry.fields())

    @property
    def archived(self) -> bool:
        return True

    def to_dict(self) -> dict[str, Any]:
        return {**super().to_dict(), "archived": True}


class Resolution(Record):
    """Who closed a blocker, question or warning, when, how (note), and a question's answer."""

    FIELDS = ("at", "by", "note", "answer")
    __slots__ = FIELDS

    def __init__(self, at: str, by: str, note: str = "", answer: str = "") -> None:
        self.at = at
        self.by = by
        self.note = note
        self.answer = answer

    def lines(self) -> list[str]:
        """The entry's metadata lines for it (see entry_markdown.format_entry)."""
        found = [f"**Resolved:** {self.at} by {self.by}"]
        found += [f"**Resolution:** {self.note}"] if self.note else []
        return found + ([f"**Answer:** {self.answer}"] if self.answer else [])


class Validation(FrozenRecord):
    """One agent's confirmation of an entry (the spec's "3+ validations"): who, when, and an optional note."""

    FIELDS = ("at", "by", "note")
    __slots__ = FIELDS

    def __init__(self, at: str, by: str, note: str = "") -> None:
        self.at = at
        self.by = by
        self.note = note

    def line(self) -> str:
        """The entry's metadata line for it (one per validation, see entry_markdown.format_entry)."""
        return f"**Validated:** {self.at} by {self.by}" + (f": {self.note}" if self.note else "")


# `5`, `[5]`, `#5`, `02-core#5` (how `gridgit status` names an entry).
_NUMBER_RE = lazy(r"^(?:(\d{2}-[a-z0-9][a-z0-9-]*)#|#|\[)?(\d+)\]?$")


def parse_ref(ref: str) -> tuple[str | None, int | None]:
    """(phase, entry number) of `5`, `[5]`, `#5` or `02-core#5`; (None, None) for any other id."""
    match = _NUMBER_RE.match(ref.strip())
    if match is None:
        return None, None
    return match.group(1), int(match.group(2))


def default_title(topic: str) -> str:
    return topic.replace("_", " ").replace("-", " ").title()


def normalise_topic(topic: str) -> str:
    """A lowercase keyword; spaces become dashes; empty or multi-word-with-bars is refused."""
    value = usertext.check_size(topic or "", "topic").strip().lower().replace(" ", "-")
    if not value:
        raise BadInput("topic is empty")
    if not _TOPIC_RE.match(value):
        raise BadInput(f"invalid topic {topic!r}: use a lowercase keyword such as auth or database")
    if redact(value) != value:  # a topic is a keyword, an index key and an event field: never a secret
        raise BadInput("invalid topic: it looks like a secret")
    return value


def check_category(category: str) -> str:
    if category not in CATEGORIES:
        raise BadInput(f"unknown category {category!r} (one of: {', '.join(CATEGORIES)})")
    return category


def check_relevance(relevance: str) -> str:
    value = (relevance or "").upper()
    if value not in RELEVANCES:
        raise BadInput(f"unknown relevance {relevance!r} (one of: HIGH, MEDIUM, LOW)")
    return value


def determine_relevance(category: str, tags: list[str], affects_multiple: bool = False) -> str:
    """Spec 4.2: the relevance of an entry written without one."""
    tagset = {t.lower() for t in tags}
    if category == "blocker":
        return "HIGH"
    if category == "decision" and "architectural" in tagset:
        return "HIGH"
    if tagset & {"user_preference", "security", "auth"} or affects_multiple:
        return "HIGH"
    if category in ("gotcha", "pattern", "discovery", "decision", "warning"):
        return "MEDIUM"
    return "LOW"


def relevance_rank(relevance: str) -> int:
    """HIGH 3, MEDIUM 2, LOW 1: `rank >= rank(minimum)` is the spec's minimum-relevance filter."""
    return {"HIGH": 3, "MEDIUM": 2, "LOW": 1}.get(relevance, 0)


def check_tags(tags: list[str]) -> list[str]:
    """Tags are comma-separated on disk: each must be one line with no comma."""
    clean = [t.strip() for t in tags if t and t.strip()]
    for tag in clean:
        if "," in tag or "\n" in tag:
            raise BadInput(f"invalid tag {tag!r}: tags may not contain commas or newlines")
    return clean


def check_content(content: str) -> str:
    size = len(content.encode("utf-8"))
    if size > MAX_CONTENT_BYTES:
        raise BadInput(f"content is {size} bytes; the limit is {MAX_CONTENT_BYTES} (64 KiB)")
    return content


SCOPES = ("phase", "mission")


def scoped_tags(category: str, tags: list[str], scope: str) -> list[str]:
    """TAGS of an entry written for SCOPE: `mission` marks a decision architectural (L2 -> L3).

    A blocker reaches STATE whatever its scope; any other category has no mission scope.
    """
    if scope not in SCOPES:
        raise BadInput(f"unknown scope {scope!r} (one of: {', '.join(SCOPES)})")
    if scope == "phase" or category == "blocker" or "architectural" in tags:
        return tags
    if category != "decision":
        raise BadInput(
            f"a {category} has no mission scope: --scope mission is for decisions (blockers reach STATE anyway)"
        )
    return [*tags, "architectural"]


def check_one_line(name: str, value: str) -> str:
    if "\n" in value or "\r" in value:
        raise BadInput(f"{name} must be one line")
    return value


def check_block(value: str | None) -> str:
    """An entry's block (`01-02`, `01-02 -> executor-003`), stripped: one line of printable text (the gate of
    paths: no control character, no U+2028) that git could not read as an option."""
    block = check_one_line("block", (value or "").strip())
    if block:
        usertext.check_path(block, "block")
        if block.startswith("-"):
            raise BadInput(f"block {block[:60]!r}: starts with '-' (a block id is NN-MM, e.g. 01-02)")
    return block


# The first line of an entry carried into the next phase (gridgit.phases.carry_forward).
CARRY_MARKER_RE = lazy(r"^\[(?:Carried|Context) from [^\]]+\]$")


def headline(content: str) -> str:
    """The first line of CONTENT that says something: markdown, code fences and carry markers skipped."""
    for line in content.splitlines():
        if line.lstrip().startswith(("```", "~~~")):
            continue
        text = line.strip().lstrip("#>*-+ ").replace("**", "").replace("`", "").strip()
        if text and not (text.startswith("[") and CARRY_MARKER_RE.match(text)):
            return text
    return ""


def clip(text: str, limit: int) -> str:
    """TEXT cut at a word boundary to at most LIMIT characters (and an ellipsis)."""
    if len(text) <= limit:
        return text
    return text[:limit].rsplit(" ", 1)[0] + "…"
