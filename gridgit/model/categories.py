"""Category names in either spelling: an entry's category is singular (`gotcha`), a LEARNINGS.md section plural
(`gotchas`); every `--category` (and the Python API, and the MCP tools) takes both.

One table: what an entry's category is promoted to (spec 8.7), what a section's learnings are
searched as, and how a name in the other spelling is read.
"""

from __future__ import annotations

from gridgit.scratchpad.entry import CATEGORIES

# The categories an agent writes (a heartbeat has a command of its own).
WRITTEN = tuple(c for c in CATEGORIES if c != "heartbeat")

# An entry's category -> the LEARNINGS.md section its learnings go to (a user preference is a tag, not a category).
SECTION_OF = {
    "decision": "decisions",
    "gotcha": "gotchas",
    "pattern": "patterns",
    "discovery": "discoveries",
    "user_preference": "user_preferences",
}
CATEGORY_OF = {section: category for category, section in SECTION_OF.items()}


def section(name: str) -> str:
    """NAME as a LEARNINGS.md section: `gotcha` is `gotchas`; any other name is left for its check to refuse."""
    return SECTION_OF.get(name, name)


def entry_category(name: str) -> str:
    """NAME as an entry's category: `gotchas` is `gotcha`, `blockers` is `blocker`; any other name is left as it is."""
    if name in CATEGORY_OF:
        return CATEGORY_OF[name]
    return name[:-1] if name.endswith("s") and not name.endswith("ss") else name
