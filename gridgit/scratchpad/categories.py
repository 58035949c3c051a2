"""What each entry category must say: the spec's required fields (blackboard-spec section 2,
"Categories") and its content templates (scratchpad protocol 3.4), pure functions of text."""

from __future__ import annotations

import functools
import re

from gridgit.scratchpad.entry import check_category
from gridgit.store.lazyre import may_hold

# category -> required fields, each with the labels that count for it (the protocol's own
# templates write `Found:` for the table's Finding and `Files to Review:` for Files).
REQUIRED_FIELDS: dict[str, tuple[tuple[str, tuple[str, ...]], ...]] = {
    "discovery": (("Finding", ("Finding", "Found", "Discovery")), ("Impact", ("Impact",)), ("Evidence", ("Evidence",))),
    "decision": (("Decision", ("Decision",)), ("Rationale", ("Rationale",)), ("Affects", ("Affects",))),
    "gotcha": (("Gotcha", ("Gotcha",)), ("First Hit", ("First Hit",)), ("Fix", ("Fix",))),
    "pattern": (("Pattern", ("Pattern",)), ("Where Found", ("Where Found",)), ("Usage", ("Usage",))),
    "warning": (("Warning", ("Warning",)), ("Risk Level", ("Risk Level",)), ("Mitigation", ("Mitigation",))),
    "question": (("Question", ("Question",)), ("Context", ("Context",)), ("Urgency", ("Urgency",))),
    "blocker": (("Blocker", ("Blocker",)), ("Type", ("Type",)), ("Action Required", ("Action Required",))),
    "handoff": (
        ("Completed", ("Completed",)),
        ("For Next Agent", ("For Next Agent",)),
        ("Files", ("Files to Review", "Files")),
    ),
    "heartbeat": (("Status", ("Status",)), ("Progress", ("Progress",)), ("Current Action", ("Current Action",))),
}

# Scratchpad protocol 3.4, one per category.
TEMPLATES: dict[str, str] = {
    "discovery": """Found: {What was discovered}
Impact: {Who/what is affected}
Action: {What was done about it}

Evidence:
- File: {filepath}
- Line: {line numbers}
- Commit: {commit hash}""",
    "decision": """Decision: {What was decided}
Rationale: {Why this choice}
Affects: {Components/files affected}
Alternatives: {What was considered but rejected}""",
    "gotcha": """Gotcha: {The trap/pitfall}
First Hit: {How it was discovered - symptoms}
Fix: {How to avoid/fix it}
Evidence: {Where in code}""",
    "pattern": """Pattern: {Pattern name or description}
Where Found: {Files/components where observed}
Usage: {How to apply this pattern}
Examples:
- {Example 1}
- {Example 2}""",
    "warning": """Warning: {The concern}
Risk Level: {low|medium|high}
Mitigation: {How to address}
Monitor: {What to watch for}""",
    "question": """Question: {The question}
Context: {Why this question arose}
Urgency: {low|medium|high}
Attempted: {What was tried to resolve}""",
    "blocker": """Blocker: {What is blocked}
Type: {missing_credential|external_api|permission|dependency}
Required: {What is needed}
Blocking: {Thread/task being blocked}
Action Required: {Specific action user must take}""",
    "handoff": """Handoff: {What is being handed off}

**Completed:**
- {Task 1 done}
- {Task 2 done}

**For Next Agent:**
- {Key info 1}
- {Key info 2}

**Files to Review:**
- {filepath1}
- {filepath2}

**Watch Out For:**
- {Known issue}""",
    "heartbeat": """**Status:** {Current task/thread}
**Progress:** {percent}%
**Current Action:** {What agent is doing right now}
**Files Touched:** {Files modified this session}
**Duration:** {Time since last heartbeat}""",
}


@functools.cache
def _label_re(labels: tuple[str, ...]) -> re.Pattern[str]:
    # `Found: x`, `- Impact: x`, `**Completed:**`, `**Files to Review**:`, `> Fix: x`.
    # Compiled on first use, one field at a time: all of them cost ~5 ms, a write needs few.
    names = "|".join(re.escape(label).replace(r"\ ", r"[ \t]+") for label in labels)
    return re.compile(rf"^[ \t>]*(?:[-*+][ \t]+)?\**[ \t]*(?:{names})[ \t]*\**[ \t]*:", re.IGNORECASE | re.MULTILINE)


def _label_line(labels: tuple[str, ...], content: str) -> re.Match[str] | None:
    """The first `Label:` line of CONTENT for one of LABELS (up to its colon), or None."""
    # Every such line holds a label's first word: without one, no pattern is compiled for it.
    if not may_hold(content, tuple(label.split()[0].lower() for label in labels)):
        return None
    return _label_re(labels).search(content)


def template(category: str) -> str:
    """The spec's content template for CATEGORY (`gridgit write --template CATEGORY`)."""
    return TEMPLATES[check_category(category)]


def missing_fields(category: str, content: str) -> list[str]:
    """The required fields of CATEGORY that CONTENT has no `Label:` line for, in the spec's order."""
    fields = REQUIRED_FIELDS[check_category(category)]
    return [name for name, labels in fields if _label_line(labels, content) is None]


def field_value(category: str, name: str, content: str) -> str | None:
    """What CONTENT says on the line of CATEGORY's field NAME (`Decision: use JWT` -> `use JWT`), or None."""
    match = _label_line(dict(REQUIRED_FIELDS[check_category(category)])[name], content)
    if match is None:
        return None
    end = content.find("\n", match.end())
    return content[match.end() : end if end != -1 else len(content)].strip(" \t*") or None


# The fields an entry's one-line summary is made of, where its first line says too little:
# every heartbeat's first line is `Status: Working on ...`, the same from one to the next.
SUMMARY_FIELDS: dict[str, tuple[str, ...]] = {"heartbeat": ("Progress", "Current Action")}


def summary(category: str, content: str) -> str:
    """One line saying what an entry of CATEGORY says: its summary fields (`40% · writing the parser`), else its headline."""
    from gridgit.scratchpad.entry import headline

    said = [value for name in SUMMARY_FIELDS.get(category, ()) if (value := field_value(category, name, content))]
    return " · ".join(said) or headline(content)
