"""Three-way merges of the work files (pure functions of text), as gridgit.history.merge calls them.

- a block's PLAN file: its take settled by gridgit.work.contest (the first take wins, the other
  is kept as contested), every other field key by key, the plan by lines;
- a SUMMARY file and a debug investigation: frontmatter key by key, the body by lines (two
  sides that appended to one place keep both);
- budget.json: usage united by bucket, each counter base + both sides' additions.
"""

from __future__ import annotations

import json
from typing import Any

from gridgit.history.textmerge import merge_lines
from gridgit.history.threeway import MISSING, CannotMerge, merge_mapping


def _split(text: str, source: str) -> tuple[dict[str, Any], str]:
    from gridgit.errors import BadInput
    from gridgit.store import frontmatter

    if not text.strip():
        return {}, ""
    try:
        return frontmatter.parse(text, source)
    except BadInput as exc:
        raise CannotMerge(str(exc)) from None


def _later(mine: Any, other: Any) -> Any:
    """A field both sides set differently: the value that sorts last (a later time, `closed` over `open`)."""
    return max(mine, other, key=lambda v: json.dumps(v, sort_keys=True, default=str))


def _body(base: str, ours: str, theirs: str) -> str:
    """By lines; where both changed one place, ours with theirs' lines it lacks appended (notes are appended)."""
    merged = merge_lines(base, ours, theirs)
    if merged is not None:
        return merged
    have = set(ours.splitlines())
    extra = [line for line in theirs.splitlines() if line not in have]
    return ours.rstrip("\n") + "\n" + "".join(line + "\n" for line in extra) if extra else ours


def merge_document(base: str, ours: str, theirs: str, source: str) -> str:
    from gridgit.store import frontmatter

    (b, b_body), (o, o_body), (t, t_body) = (_split(x, source) for x in (base, ours, theirs))
    return frontmatter.render(merge_mapping(b, o, t, _later), _body(b_body, o_body, t_body))


def merge_plan(base: str, ours: str, theirs: str, source: str) -> str:
    from gridgit.store import frontmatter
    from gridgit.work.blockfile import TAKE_FIELDS
    from gridgit.work.contest import contest_key, settle

    (b, b_body), (o, o_body), (t, t_body) = (_split(x, source) for x in (base, ours, theirs))
    take, lost = settle(*({k: side.get(k) for k in TAKE_FIELDS} for side in (b, o, t)))
    rest = [{k: v for k, v in side.items() if k not in (*TAKE_FIELDS, "contested")} for side in (b, o, t)]
    meta = merge_mapping(rest[0], rest[1], rest[2], _later)
    contested = {contest_key(c): c for side in (o, t) for c in side.get("contested") or [] if isinstance(c, dict)}
    contested.update({contest_key(c): c for c in lost})
    order = list(o) or list(t)
    merged = {**meta, **{k: v for k, v in take.items() if k in o or k in t or v is not None}}
    merged["contested"] = sorted(contested.values(), key=lambda c: contest_key(c))
    ordered = {k: merged[k] for k in order if k in merged}
    ordered.update({k: v for k, v in merged.items() if k not in ordered})
    return frontmatter.render(ordered, _body(b_body, o_body, t_body))


def merge_budget(base: str, ours: str, theirs: str, source: str) -> str:
    from gridgit.errors import BadInput
    from gridgit.work import budget

    try:
        b, o, t = (budget.parse(x, source) if x.strip() else MISSING for x in (base, ours, theirs))
    except BadInput as exc:
        raise CannotMerge(str(exc)) from None
    empty = budget.empty()
    return budget.render(budget.merge(empty if b is MISSING else b, empty if o is MISSING else o,
                                      empty if t is MISSING else t))  # fmt: skip
