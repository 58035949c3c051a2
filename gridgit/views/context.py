"""Context packs: what an agent reads before it starts, packed to its type's token budget.

The spec's `gather_context_for_planning` made real: a compact STATE header, open blockers,
questions and warnings (wherever they are: scratchpad, archive, STATE), the messages to the
agent it has not acknowledged, the handoffs not taken and the recent ones, the phase's entries
ranked against the query, what earlier phases hold on it, and relevant learnings, added
best-first until the budget is spent. Tokens are estimated as characters / 4
(gridgit.memory.budget); the estimate covers the whole rendered pack, headings included.
"""

from __future__ import annotations

import os
import re

from gridgit.errors import BadInput
from gridgit.memory.budget import estimate_tokens
from gridgit.model import permissions, state
from gridgit.scratchpad.entry import Entry, headline
from gridgit.store.commandline import said
from gridgit.store.record import Record

TYPE_CHECKING = False  # typing costs the session-start hook ~2.5 ms (see gridgit.store.record)
if TYPE_CHECKING:
    from typing import Any

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
    ("blocker", "Open blockers, questions and warnings"),
    ("message", "Messages to you (`{ack}` once read)"),
    ("handoff", "Handoffs"),
    ("confirm", "Waiting for validations: confirm what you met (`gridgit confirm ID`)"),
    ("entry", "Phase entries"),
    ("history", "From earlier phases"),
    ("learning", "Learnings"),
)
MAX_HISTORY = 8  # hits of the search across phases the pack considers


def keywords(query: str | None) -> list[str]:
    """The spec's extract_keywords: lowercase words of 2+ characters, stop words dropped, in order."""
    words = re.findall(r"[a-z0-9][a-z0-9_.-]*", (query or "").lower())
    return list(dict.fromkeys(w.strip("._-") for w in words if len(w) >= 2 and w not in _STOPWORDS))


class Item(Record):
    """One piece of the pack, with why it was chosen."""

    FIELDS = ("section", "key", "text", "score", "tokens", "data")
    __slots__ = FIELDS

    def __init__(
        self, section: str, key: str, text: str, score: float, tokens: int = 0, data: dict[str, Any] | None = None
    ) -> None:
        self.section = section
        self.key = key
        self.text = text
        self.score = score
        self.tokens = tokens
        self.data = data if data is not None else {}


class ContextPack(Record):
    FIELDS = (
        "agent_id", "agent_type", "phase_id", "query", "keywords", "budget", "header", "items", "omitted", "tokens",
    )  # fmt: skip
    __slots__ = FIELDS

    def __init__(
        self,
        agent_id: str,
        agent_type: str,
        phase_id: str,
        query: str | None,
        keywords: list[str],
        budget: int,
        header: str,
        items: list[Item],
        omitted: list[Item],
        tokens: int = 0,
    ) -> None:
        self.agent_id = agent_id
        self.agent_type = agent_type
        self.phase_id = phase_id
        self.query = query
        self.keywords = keywords
        self.budget = budget
        self.header = header
        self.items = items
        self.omitted = omitted
        self.tokens = tokens

    def render(self) -> str:
        """The pack as markdown, ending with its token estimate."""
        parts = [self.header]
        for section, title in _SECTIONS:
            chosen = [i.text for i in self.items if i.section == section]
            if chosen:
                parts.append(f"## {title.format(ack=said('ack', 'ID'))}\n\n" + "\n\n".join(chosen))
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
            "items": [i.fields() for i in self.items],  # DATA holds plain values only: nothing to convert
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


def _history_items(layout: Layout, phase: str, words: list[str]) -> list[Item]:
    """The best hits for WORDS among earlier phases' entries, memory/ and block plans (gridgit search,
    any word, BM25); scored to sit below the phase's own matching entries and above its unmatched ones."""
    from gridgit.errors import GridError

    if not words or not (layout.memory_dir.is_dir() or any(p != phase for p in layout.phase_ids())):
        return []  # no earlier phase and no memory/: nothing to search, and the index is not opened
    from gridgit.search import query

    try:
        found = query.search(layout, " ".join(words), limit=MAX_HISTORY, any_word=True,
                             kinds=("entry", "archived", "memory", "plan", "summary"), exclude_phase=phase)  # fmt: skip
    except GridError:
        return []  # the pack goes on without them: its other sections do not need the index
    items = []
    for rank, hit in enumerate(found.hits):
        what = " | ".join(part for part in (hit.category, hit.topic) if part)
        text = f"### {hit.where()} {what} ({', '.join(p for p in (hit.agent, hit.timestamp) if p)})".replace(" ()", "")
        text += "\n" + _clip(hit.snippet.replace("[", "").replace("]", "") if hit.snippet else hit.title)
        score = 1.0 + 3.0 * (1 - rank / len(found.hits))
        items.append(Item("history", f"{hit.kind}:{hit.id or hit.path}", text, round(score, 3), data=hit.to_dict()))
    return items


def _work_items(layout: Layout, agent_id: str, kind: str, phase: str) -> list[Item]:
    """The agent's block with its plan, or (for an agent that may take one) the blocks ready to take."""
    from gridgit.errors import GridError
    from gridgit.work.blockfile import PLAN_RE

    folders = [layout.phase_dir(p) for p in layout.phase_ids()]
    if not any(PLAN_RE.match(name) for folder in folders for name in os.listdir(folder)):
        return []  # no block planned anywhere: the work queue is not loaded
    from gridgit.work import blocks, queue

    try:
        mine = next((b for b in blocks.load_all(layout) if b.owner == agent_id and b.held), None)
        # Master Control's ready blocks are in its resume lines; scouts take none.
        offers = queue.ready(layout, phase) if mine is None and kind not in ("scout", "mc") else []
    except GridError as exc:
        return [Item("block", "work", f"(blocks not read: {exc})", 200.0)]
    if mine is not None:
        files = f"\nFiles (claimed for you): {', '.join(mine.files)}" if mine.files else ""
        head = f"### Your block {mine.block_id}: {mine.name or '-'} ({mine.status}, wave {mine.wave}){files}"
        done = f"\nWhen done: `{said('block complete', mine.block_id, summary='-')}`"
        return [
            Item("block", f"block:{mine.block_id}", head + "\n" + _clip(mine.plan) + done, 200.0, data=mine.to_dict())
        ]
    if not offers:
        return []
    shown = ", ".join(f"{o.block.block_id} {o.block.name or ''}".strip() for o in offers[:5])
    said_take = said("take")
    return [Item("block", "ready", f"Ready to take (`{said_take}`): {shown}", 200.0, data={"ready": len(offers)})]


def _your_topics(pad: Any, agent_id: str, words: list[str]) -> set[str]:
    """The topics AGENT_ID works on: its subscriptions' (`*`: all), its own entries', and the query's words."""
    from gridgit.scratchpad import subscriptions

    topics = {e.topic for e in pad.entries if agent_id in (e.agent_id, *e.contributors)} | set(words)
    for sub in subscriptions.listed(pad):
        if sub.get("agent_id") == agent_id:
            listed = sub.get("topics") or []
            topics |= {str(t) for t in ([listed] if isinstance(listed, str) else listed)}
    return topics


def _confirm_items(layout: Layout, agent_id: str, kind: str, phase: str, pad: Any, words: list[str]) -> list[Item]:
    """The HIGH patterns, gotchas and discoveries of the agent's topics that wait for validations and are
    not its own nor confirmed by it: what it may confirm if it met them (gridgit.phases.promotion)."""
    from gridgit.scratchpad import promotable

    if kind not in permissions.SCRATCHPAD_WRITERS:
        return []  # `gridgit confirm` writes the entry: an agent that may not write one is not told to
    needed = promotable.min_validations(layout)
    topics = _your_topics(pad, agent_id, words)
    items = []
    for n, entry in enumerate(reversed(pad.entries)):
        mine = agent_id in (entry.agent_id, *entry.contributors, *entry.validated_by())
        if mine or not promotable.waits_for_validations(entry, needed) or not ({"*", entry.topic} & topics):
            continue
        head = f"- {phase}#{entry.id} {entry.category} | {entry.topic}: {_clip(headline(entry.content) or entry.title)}"
        text = f"{head} ({entry.agent_id}; {len(entry.validated_by())}/{needed} validations)"
        items.append(Item("confirm", f"{phase}#{entry.id}", text, 40.0 - n, data=entry.to_dict()))
    return items


def _mark_stale(layout: Layout, items: list[Item], cited: list[Any]) -> None:
    """Say on each item whose evidence went stale what changed (its text grows, so it counts in the budget)."""
    if not cited:
        return  # nothing cites a file: git is not asked, and its modules are not loaded
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
    from gridgit.coordination import messages
    from gridgit.git import evidence
    from gridgit.model import learnings
    from gridgit.scratchpad import reads, store
    from gridgit.views import status

    kind = permissions.agent_type(agent_id)
    if budget is not None and budget < 1:
        raise BadInput(f"--budget must be a positive number of tokens, got {budget}")
    budget = budget or BUDGETS[kind]
    phase = state.resolve_phase(layout, phase_id)
    st = state.read(layout)
    words = keywords(query)
    pad = store.load(layout, phase)
    me = state.registered_agent(st, agent_id)
    block = str(me.get("block") or "") or None

    candidates: list[Item] = []
    held = reads.archived_open(layout, phase, pad.entries)
    open_items = [i for i in status.open_items(st, phase, [*pad.entries, *held]) if i["kind"] != "handoff"]
    for n, open_item in enumerate(open_items):
        text = f"- {open_item['kind']} {open_item['source']}: {open_item['text']}"
        if open_item.get("agent"):
            text += f" ({open_item['agent']})"
        if open_item.get("archived"):  # numbered in the archive: its stable id is what `gridgit resolve` takes
            text += f" [id {open_item['uid']}]"
        candidates.append(Item("blocker", f"open:{open_item['source']}", text, 100.0 - n, data=open_item))
    for n, message in enumerate(messages.unacked_for(layout, agent_id, lambda: block)):
        text = f"- {message.id} from {message.sender} ({message.sent_at}): {_clip(message.content)}"
        candidates.append(Item("message", f"message:{message.id}", text, 80.0 - n, data=message.to_dict()))
    newest_first = list(reversed(pad.entries))
    # Handoffs not taken yet, wherever they are, then the latest others up to MAX_HANDOFFS.
    handoffs = [e for e in [*newest_first, *reversed(held)] if e.category == "handoff" and e.is_open]
    handoffs += [e for e in newest_first if e.category == "handoff" and not e.is_open]
    for n, entry in enumerate(handoffs[: max(MAX_HANDOFFS, sum(e.is_open for e in handoffs))]):
        mine = 5.0 if block and block in entry.block_id else 0.0
        key = f"{phase} archive#{entry.id}" if entry.archived else f"{phase}#{entry.id}"
        candidates.append(Item("handoff", key, entry_text(entry, phase), 50.0 + mine - n, data=entry.to_dict()))
    confirming = _confirm_items(layout, agent_id, kind, phase, pad, words)
    candidates += confirming
    shown = {item.key for item in confirming}  # said once: not again among the phase's entries
    ranked = [e for e in newest_first if e.category not in ("heartbeat", "handoff") and not e.is_open
              and f"{phase}#{e.id}" not in shown]  # fmt: skip
    for rank, entry in enumerate(ranked):
        score = score_entry(entry, words, rank, len(ranked), block)
        candidates.append(Item("entry", f"{phase}#{entry.id}", entry_text(entry, phase), score, data=entry.to_dict()))
    found = learnings.read(layout)
    learned = _learning_items(found, words)
    candidates += learned
    # Without a query, the agent's registered task says what it is about to do; an entry a
    # learning of the pack was promoted from is not said twice.
    origins = {item.data.get("origin") for item in learned}
    history = _history_items(layout, phase, words or keywords(str(me.get("task") or "")))
    candidates += [item for item in history if item.data.get("id") not in origins]
    candidates += _work_items(layout, agent_id, kind, phase)
    _mark_stale(layout, candidates, evidence.entry_citations(phase, pad.entries) + evidence.learning_citations(found))
    header = _header(st, agent_id, me, phase)
    if kind == "mc":  # Master Control, perhaps restarted: where the mission picks up comes first
        header += "\n" + _resume_lines(layout)
    return pack(agent_id, kind, phase, query, words, budget, header, candidates)


def _resume_lines(layout: Layout) -> str:
    """A few lines of `gridgit resume` (gridgit.views.resume): blocks held, who was active, the checkpoint, next."""
    from gridgit.store import config
    from gridgit.views import resume

    data = resume.gather(layout, config.current(layout))
    held = [f"{h['block_id']} by {h['owner']}{' (quiet)' if h['quiet'] else ''}" for h in data["held"]]
    lines = [f"Resume: {'yes' if data['can_resume'] else 'no'}; blocks held: {', '.join(held) or 'none'}; "
             f"last agent {data['last_agent'] or '-'}"]  # fmt: skip
    if data["checkpoint"]:
        lines.append(f"Checkpoint: {len(data['checkpoint']['conflicts'])} open conflict(s) (`gridgit conflicts list`)")
    return "\n".join(lines + [f"Next: {step}" for step in data["next"]])


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
    """Add CANDIDATES best-first (blockers, messages, handoffs, then by score) while the budget allows."""
    result = ContextPack(agent_id, kind, phase, query, words, budget, header, [], [])
    order = {"block": -1, "blocker": 0, "message": 1, "handoff": 2, "confirm": 2}
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
