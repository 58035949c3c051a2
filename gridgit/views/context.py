"""Context packs: what an agent reads before it starts, packed to its type's token budget.

The spec's `gather_context_for_planning` made real: a compact STATE header, open blockers and
questions, recent handoffs, the phase's entries ranked against the query, and relevant
learnings, added best-first until the budget is spent. Tokens are estimated as characters / 4
(the usual rule of thumb for English text and code with BPE tokenizers); the estimate covers
the whole rendered pack, headings included.
"""

from __future__ import annotations

import math
import re
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from gridgit.errors import BadInput
from gridgit.model import permissions, state
from gridgit.scratchpad.entry import Entry

if TYPE_CHECKING:
    from gridgit.model.learnings import Learning
    from gridgit.store.layout import Layout

# The spec's Memory Budget table ("agent_blackboard_budget"); mc and gridgit's own `system`
# are not in it and get the memory agent's full-access budget.
BUDGETS: dict[str, int] = {
    "executor": 2000,
    "planner": 3000,
    "scout": 1000,
    "recognizer": 1500,
    "memory": 5000,
    "mc": 5000,
    "system": 5000,
}
CHARS_PER_TOKEN = 4
MAX_LEARNINGS = 10  # the spec's filter_learnings_for_context(max_entries=10)
MAX_HANDOFFS = 5
MAX_ENTRY_CHARS = 1200  # one long entry must not crowd out everything else
_RELEVANCE_SCORE = {"HIGH": 3.0, "MEDIUM": 2.0, "LOW": 1.0}
_STOP_TEXT = (
    "a an and are as at be but by do for from has have how i in into is it its of on or our so that the "
    "then there this to was we what when where which who why will with you your should would could need "
    "needs use using add fix make work"
)
_STOPWORDS = frozenset(_STOP_TEXT.split())
_SECTIONS = (
    ("block", "Your block and the queue"),
    ("blocker", "Open blockers and questions"),
    ("handoff", "Recent handoffs"),
    ("entry", "Phase entries"),
    ("learning", "Learnings"),
)


def estimate_tokens(text: str) -> int:
    """Characters / 4, rounded up: cheap, tokenizer-free, and close enough to budget with."""
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def keywords(query: str | None) -> list[str]:
    """The spec's extract_keywords: lowercase words of 2+ characters, stop words dropped, in order."""
    words = re.findall(r"[a-z0-9][a-z0-9_.-]*", (query or "").lower())
    return list(dict.fromkeys(w.strip("._-") for w in words if len(w) >= 2 and w not in _STOPWORDS))


@dataclass
class Item:
    """One piece of the pack, with why it was chosen."""

    section: str
    key: str
    text: str
    score: float
    tokens: int = 0
    data: dict[str, Any] = field(default_factory=dict)


@dataclass
class ContextPack:
    agent_id: str
    agent_type: str
    phase_id: str
    query: str | None
    keywords: list[str]
    budget: int
    header: str
    items: list[Item]
    omitted: list[Item]
    tokens: int = 0

    def render(self) -> str:
        """The pack as markdown, ending with its token estimate."""
        parts = [self.header]
        for section, title in _SECTIONS:
            chosen = [i.text for i in self.items if i.section == section]
            if chosen:
                parts.append(f"## {title}\n\n" + "\n\n".join(chosen))
        return "\n\n".join(parts) + "\n\n" + self.footer()

    def footer(self) -> str:
        left = f", {len(self.omitted)} left out" if self.omitted else ""
        return (
            f"-- context pack for {self.agent_id}: ~{self.tokens} tokens of {self.budget} "
            f"({self.agent_type} budget), {len(self.items)} items{left}"
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "agent_id": self.agent_id,
            "agent_type": self.agent_type,
            "phase_id": self.phase_id,
            "query": self.query,
            "keywords": self.keywords,
            "budget": self.budget,
            "tokens": self.tokens,
            "items": [asdict(i) for i in self.items],
            "omitted": [{"section": i.section, "key": i.key, "tokens": i.tokens} for i in self.omitted],
            "text": self.render(),
        }


def _matches(words: list[str], text: str) -> int:
    lowered = text.lower()
    return sum(1 for w in words if w in lowered)


def score_entry(entry: Entry, words: list[str], rank: int, total: int, block: str | None) -> float:
    """Topic match first, then tags, title and content; then relevance, recency and the agent's block."""
    topic_parts = set(re.split(r"[-_.]", entry.topic)) | {entry.topic}
    tags = {t.lower() for t in entry.tags}
    score = 5.0 * sum(1 for w in words if w in topic_parts)
    score += 3.0 * sum(1 for w in words if w in tags)
    score += 2.0 * _matches(words, entry.title)
    score += min(3.0, 1.0 * _matches(words, entry.content))
    score += _RELEVANCE_SCORE.get(entry.relevance, 1.0)
    score += 1.0 - rank / max(total, 1)  # rank 0 is the newest; less than one relevance step
    if block and block in entry.block_id:
        score += 2.0
    return round(score, 3)


def _clip(text: str) -> str:
    text = text.strip()
    return text if len(text) <= MAX_ENTRY_CHARS else text[:MAX_ENTRY_CHARS].rstrip() + " …(truncated)"


def entry_text(entry: Entry, phase_id: str) -> str:
    tags = f" [{', '.join(entry.tags)}]" if entry.tags else ""
    head = (
        f"### {phase_id}#{entry.id} {entry.category} | {entry.topic} "
        f"({entry.relevance}, {entry.agent_id}, {entry.timestamp}){tags}"
    )
    return head + "\n" + _clip(entry.content)


def _header(st: dict[str, Any], agent_id: str, me: dict[str, Any], phase_id: str) -> str:
    """STATE in a few lines; ME is the agent's own agents.active registration ({} when there is none)."""
    pos = st.get("position", {})
    percent = st.get("progress", {}).get("percent", 0)
    active = st.get("agents", {}).get("active", [])
    lines = [
        f"# Context for {agent_id} (phase {phase_id})",
        "",
        f"Mission: {st.get('cluster')} [{st.get('status')}, {st.get('mode')}], {percent}% done",
        f"Position: phase {pos.get('phase')}/{st.get('phases', {}).get('total')} {pos.get('phase_id')} "
        f"{pos.get('phase_name') or ''}, block {pos.get('block_id') or pos.get('block') or '-'}, "
        f"thread {pos.get('thread') or '-'}/{pos.get('thread_total') or '-'}",
    ]
    if me:
        lines.append(
            f"You: {me.get('task') or 'no task recorded'}"
            + (f" (block {me['block']})" if me.get("block") else "")
            + (f", worktree {me['worktree']}" if me.get("worktree") else "")
        )
    others = [str(a.get("id")) for a in active if isinstance(a, dict) and a.get("id") != agent_id]
    lines.append("Other agents: " + (", ".join(others) or "none"))
    decisions = st.get("persistent", {}).get("decisions", [])
    for decision in decisions[-3:]:
        if isinstance(decision, dict):
            lines.append(f"Decision {decision.get('id', '')}: {decision.get('decision', '')}")
    if st.get("resume", {}).get("last_commit"):
        lines.append(f"Last commit: {st['resume']['last_commit']}")
    return "\n".join(lines)


def _learning_items(found: list[Learning], words: list[str]) -> list[Item]:
    """Learnings that mention the query's keywords (all of them without a query), newest first."""
    items = []
    for rank, learning in enumerate(reversed(found)):  # appended at the end of a section: newest last
        about = " ".join([learning.title, learning.topic, *learning.tags])
        match = 3 * _matches(words, about) + min(3, _matches(words, learning.content))
        if words and not match:
            continue
        score = match + 1.5 * (1 - rank / max(len(found), 1))
        text = f"### {learning.category}: {learning.title}\n{_clip(learning.content)}"
        if learning.phase_id:
            text += f"\n(from {learning.phase_id}#{learning.entry_id} by {learning.agent_id})"
        key = f"learning:{learning.origin or learning.title}"
        items.append(Item("learning", key, text, round(score, 3), data=learning.to_dict()))
    items.sort(key=lambda i: -i.score)
    return items[:MAX_LEARNINGS]


def _work_items(layout: Layout, agent_id: str, kind: str, phase: str) -> list[Item]:
    """The agent's block with its plan, or (for an agent that may take one) the blocks ready to take."""
    from gridgit.errors import GridError
    from gridgit.work import blocks, queue

    try:
        mine = next((b for b in blocks.load_all(layout) if b.owner == agent_id and b.held), None)
        offers = queue.ready(layout, phase) if mine is None and kind != "scout" else []
    except GridError as exc:
        return [Item("block", "work", f"(blocks not read: {exc})", 200.0)]
    if mine is not None:
        files = f"\nFiles (claimed for you): {', '.join(mine.files)}" if mine.files else ""
        head = f"### Your block {mine.block_id}: {mine.name or '-'} ({mine.status}, wave {mine.wave}){files}"
        done = f"\nWhen done: `gridgit block complete {mine.block_id} --summary -`"
        return [
            Item("block", f"block:{mine.block_id}", head + "\n" + _clip(mine.plan) + done, 200.0, data=mine.to_dict())
        ]
    if not offers:
        return []
    shown = ", ".join(f"{o.block.block_id} {o.block.name or ''}".strip() for o in offers[:5])
    return [Item("block", "ready", f"Ready to take (`gridgit take`): {shown}", 200.0, data={"ready": len(offers)})]


def _mark_stale(layout: Layout, items: list[Item], cited: list[Any]) -> None:
    """Say on each item whose evidence went stale what changed (its text grows, so it counts in the budget)."""
    from gridgit.errors import GridError
    from gridgit.git import staleness

    try:
        marks = staleness.check(layout.root, cited, attribute=False).stale_keys()
    except GridError:
        return  # a git that fails leaves the pack unmarked, never missing
    for item in items:
        if item.key in marks:
            item.text += "\n(stale evidence: " + "; ".join(f.describe() for f in marks[item.key]) + ")"
            item.data["stale_evidence"] = [f.describe() for f in marks[item.key]]


def gather(
    layout: Layout,
    agent_id: str,
    phase_id: str | None = None,
    query: str | None = None,
    budget: int | None = None,
) -> ContextPack:
    """The context pack for AGENT_ID in PHASE_ID (default: the current phase)."""
    from gridgit.git import evidence
    from gridgit.model import learnings
    from gridgit.scratchpad import store
    from gridgit.views import status

    kind = permissions.agent_type(agent_id)
    if budget is not None and budget < 1:
        raise BadInput(f"--budget must be a positive number of tokens, got {budget}")
    budget = budget or BUDGETS[kind]
    phase = state.resolve_phase(layout, phase_id)
    st = state.read(layout)
    words = keywords(query)
    pad = store.load(layout, phase)
    active = st.get("agents", {}).get("active", [])
    me: dict[str, Any] = next((a for a in active if isinstance(a, dict) and a.get("id") == agent_id), {})
    block = str(me.get("block") or "") or None

    candidates: list[Item] = []
    for n, open_item in enumerate(status.open_items(st, phase, pad.entries)):
        text = f"- {open_item['kind']} {open_item['source']}: {open_item['text']}"
        if open_item.get("agent"):
            text += f" ({open_item['agent']})"
        candidates.append(Item("blocker", f"open:{open_item['source']}", text, 100.0 - n, data=open_item))
    newest_first = list(reversed(pad.entries))
    handoffs = [e for e in newest_first if e.category == "handoff"][:MAX_HANDOFFS]
    for n, entry in enumerate(handoffs):
        mine = 5.0 if block and block in entry.block_id else 0.0
        candidates.append(
            Item("handoff", f"{phase}#{entry.id}", entry_text(entry, phase), 50.0 + mine - n, data=entry.to_dict())
        )
    ranked = [e for e in newest_first if e.category not in ("heartbeat", "handoff", "blocker", "question")]
    for rank, entry in enumerate(ranked):
        score = score_entry(entry, words, rank, len(ranked), block)
        candidates.append(Item("entry", f"{phase}#{entry.id}", entry_text(entry, phase), score, data=entry.to_dict()))
    found = learnings.read(layout)
    candidates += _learning_items(found, words)
    candidates += _work_items(layout, agent_id, kind, phase)
    _mark_stale(layout, candidates, evidence.entry_citations(phase, pad.entries) + evidence.learning_citations(found))
    return pack(agent_id, kind, phase, query, words, budget, _header(st, agent_id, me, phase), candidates)


def pack(
    agent_id: str,
    kind: str,
    phase: str,
    query: str | None,
    words: list[str],
    budget: int,
    header: str,
    candidates: list[Item],
) -> ContextPack:
    """Add CANDIDATES best-first (blockers, then handoffs, then by score) while the budget allows."""
    result = ContextPack(agent_id, kind, phase, query, words, budget, header, [], [])
    order = {"block": -1, "blocker": 0, "handoff": 1}
    for item in sorted(candidates, key=lambda i: (order.get(i.section, 2), -i.score)):
        item.tokens = estimate_tokens(item.text + "\n\n")
        result.items.append(item)
        result.tokens = estimate_tokens(result.render())
        if result.tokens > budget:
            result.items.pop()
            result.omitted.append(item)
    result.tokens = estimate_tokens(result.render())
    while result.tokens > budget and result.items:  # the footer's counts grew by a digit
        result.omitted.append(result.items.pop())
        result.tokens = estimate_tokens(result.render())
    return result
