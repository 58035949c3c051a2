"""Merge-conflict prediction: the merges agents' branches would make, computed before anyone merges.

For every pair of agent branches, and each against the base, `git merge-tree --write-tree`
computes the merge (gridgit.git.mergetree). A conflicted file is a `conflict`; its regions are
where both sides' changes since the merge base meet (changed lines that overlap or touch). A
file git merges cleanly whose changes on both sides fall in one function (the spans of their
function-context `-W` hunks intersect) is an `overlap`: no conflict, but two agents rewriting
one function.

Agent branches: gridgit.git.branches.
"""

from __future__ import annotations

import itertools
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from gridgit.errors import GridError
from gridgit.git import diffs, mergetree, treediff
from gridgit.git.branches import Side, sides
from gridgit.store import gitcmd
from gridgit.store.layout import Layout

CONFLICT = "conflict"
OVERLAP = "overlap"
_FUNCTION_CHARS = 80


@dataclass(frozen=True)
class Region:
    """Where both sides changed a file: BASE lines (merge base), LEFT / RIGHT lines (each side), the FUNCTION."""

    base: tuple[int, int]
    left: tuple[int, int] | None
    right: tuple[int, int] | None
    function: str


@dataclass
class FilePrediction:
    """One file of a pair: SEVERITY `conflict` or `overlap`, KIND (`content`, `binary`, `same function` ...)."""

    path: str
    severity: str
    kind: str
    message: str = ""
    regions: list[Region] = field(default_factory=list)
    blobs: tuple[str, str] = ("", "")  # each side's blob: a new prediction is one with other blobs

    def functions(self) -> list[str]:
        return list(dict.fromkeys(r.function for r in self.regions if r.function))


@dataclass
class PairPrediction:
    """The merge of LEFT and RIGHT: the files it would conflict or overlap in (none: a clean merge)."""

    left: Side
    right: Side
    merge_base: str | None = None
    files: list[FilePrediction] = field(default_factory=list)
    error: str | None = None
    new: bool = False  # set when this prediction was announced for the first time

    @property
    def severity(self) -> str | None:
        kinds = {f.severity for f in self.files}
        return CONFLICT if CONFLICT in kinds else OVERLAP if kinds else None

    @property
    def key(self) -> str:
        return f"{self.left.name}...{self.right.name}"

    def agents(self) -> list[str]:
        return [a for a in (self.left.agent, self.right.agent) if a]

    def fingerprint(self) -> list[list[str]]:
        """What makes this prediction the same one again: each file, its severity and both sides' blobs."""
        return sorted([f.path, f.severity, *f.blobs] for f in self.files)

    def summary(self) -> str:
        """One line for a person or an agent."""
        if self.error:
            return f"{self.left.label()} and {self.right.label()}: cannot predict ({self.error})"
        if not self.files:
            return f"{self.left.label()} and {self.right.label()} merge cleanly"
        verb = "would conflict" if self.severity == CONFLICT else "both change the same function"
        shown = []
        for item in [f for f in self.files if f.severity == self.severity][:3]:
            where = ", ".join(item.functions()[:2])
            shown.append(f"{item.path} ({where})" if where else item.path)
        more = len([f for f in self.files if f.severity == self.severity]) - len(shown)
        return f"{self.left.label()} and {self.right.label()} {verb} in {', '.join(shown)}" + (
            f" and {more} more file(s)" if more > 0 else ""
        )

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["severity"] = self.severity
        data["agents"] = self.agents()
        data["summary"] = self.summary()
        return data


@dataclass
class Prediction:
    """Every pair's prediction, against BASE; ANNOUNCED counts the `merge_conflict_predicted` events emitted."""

    base: Side
    pairs: list[PairPrediction] = field(default_factory=list)
    announced: int = 0

    @property
    def conflicts(self) -> list[PairPrediction]:
        return [p for p in self.pairs if p.severity == CONFLICT]

    @property
    def overlaps(self) -> list[PairPrediction]:
        return [p for p in self.pairs if p.severity == OVERLAP]

    def to_dict(self) -> dict[str, Any]:
        return {
            "base": asdict(self.base),
            "pairs": [p.to_dict() for p in self.pairs],
            "conflicts": len(self.conflicts),
            "overlaps": len(self.overlaps),
            "announced": self.announced,
        }


# ---- one pair -------------------------------------------------------------------------------


def _touch(a: diffs.Change, b: diffs.Change) -> bool:
    """True when two changes of one base overlap or are adjacent: where git's merge stops with a conflict."""
    return a.old_start <= b.old_end + 1 and b.old_start <= a.old_end + 1


def _span(change: diffs.Change) -> tuple[int, int] | None:
    return (change.new_start, change.new_end) if change.new_end >= change.new_start else None


def _label(text: str) -> str:
    return text if len(text) <= _FUNCTION_CHARS else text[: _FUNCTION_CHARS - 1] + "…"


def conflict_regions(left: list[diffs.Hunk], right: list[diffs.Hunk]) -> list[Region]:
    """Where LEFT's and RIGHT's changes (function-context hunks of one file) meet."""
    regions = []
    for hunk_l, hunk_r in itertools.product(left, right):
        for a, b in itertools.product(hunk_l.changes, hunk_r.changes):
            if _touch(a, b):
                base = (min(a.old_start, b.old_start), max(a.old_end, b.old_end, a.old_start, b.old_start))
                function = hunk_l.first_line if hunk_l.old_start >= hunk_r.old_start else hunk_r.first_line
                regions.append(Region(base, _span(a), _span(b), _label(function)))
    return list(dict.fromkeys(regions))


def overlap_regions(left: list[diffs.Hunk], right: list[diffs.Hunk]) -> list[Region]:
    """Functions both sides changed: the spans of their function-context hunks intersect."""
    regions = []
    for hunk_l, hunk_r in itertools.product(left, right):
        start, end = max(hunk_l.old_start, hunk_r.old_start), min(hunk_l.old_end, hunk_r.old_end)
        if start > end or not hunk_l.changes or not hunk_r.changes:
            continue
        # Both spans open on a function line, so the later start is the function they share.
        function = hunk_l.first_line if hunk_l.old_start >= hunk_r.old_start else hunk_r.first_line
        new_l = [s for c in hunk_l.changes if (s := _span(c))]
        new_r = [s for c in hunk_r.changes if (s := _span(c))]
        regions.append(
            Region(
                (start, end),
                (min(s for s, _ in new_l), max(e for _, e in new_l)) if new_l else None,
                (min(s for s, _ in new_r), max(e for _, e in new_r)) if new_r else None,
                _label(function),
            )
        )
    return regions


def _merge(root: Path, left: Side, right: Side) -> tuple[PairPrediction, mergetree.MergeResult | None]:
    """The pair's merge and merge base; a GridError from git (unrelated histories ...) becomes the pair's error."""
    result = PairPrediction(left, right)
    try:
        merged = mergetree.merge(root, left.commit, right.commit)
        result.merge_base = gitcmd.run(root, "merge-base", left.commit, right.commit).strip() or None
    except GridError as exc:
        if mergetree.FEATURE in str(exc):
            raise
        result.error = str(exc)
        return result, None
    return result, merged


def _judge(
    result: PairPrediction,
    merged: mergetree.MergeResult,
    changes: tuple[dict[str, diffs.RawChange], dict[str, diffs.RawChange]],
    hunks: tuple[dict[str, diffs.FileDiff], dict[str, diffs.FileDiff]],
    both: set[str],
    conflicted: dict[str, str],
) -> None:
    """Fill RESULT with its files: CONFLICTED ones (base path -> merged path), and overlaps among BOTH."""
    changes_l, changes_r = changes
    for old in sorted(both):
        side_l, side_r = hunks[0].get(old), hunks[1].get(old)
        found_l, found_r = (side_l.hunks if side_l else []), (side_r.hunks if side_r else [])
        blobs = (changes_l[old].new_oid if old in changes_l else "", changes_r[old].new_oid if old in changes_r else "")
        if old in conflicted:
            kind, message = merged.conflict_kind(conflicted[old])
            regions = conflict_regions(found_l, found_r)
            result.files.append(FilePrediction(conflicted[old], CONFLICT, kind, message, regions, blobs))
        elif blobs[0] != blobs[1] and (regions := overlap_regions(found_l, found_r)):  # one edit twice: no risk
            path = next((c[old].new_path for c in (changes_l, changes_r) if c[old].new_path != old), old)
            result.files.append(FilePrediction(path, OVERLAP, "same function", "", regions, blobs))


def predict(layout: Layout, base: str | None = None, branches: list[str] | None = None) -> Prediction:
    """Predict every pair of agent branches, and each against the base (see the module's docstring)."""
    gitcmd.require_version(mergetree.MINIMUM_GIT, mergetree.FEATURE)
    return compare(layout, *sides(layout, branches, base))


def compare(layout: Layout, base_side: Side, agents: list[Side]) -> Prediction:
    """The prediction for every pair of AGENTS and each of them against BASE_SIDE.

    git runs a `merge-tree` and a `merge-base` per pair; what each side changed since its merge
    base, and the hunks of the files both sides changed, come from one `diff-tree --stdin` each
    for all the pairs.
    """
    root = layout.root
    grid = layout.grid
    # .grid/ files have a merge of their own (the merge driver): never a predicted conflict.
    prefix = grid.relative_to(layout.main_root).as_posix() + "/" if layout.main_root in grid.parents else "\0"
    prediction = Prediction(base_side)
    merges = []
    for left, right in [*itertools.combinations(agents, 2), *((a, base_side) for a in agents)]:
        if left.commit != right.commit:
            result, merged = _merge(root, left, right)
            prediction.pairs.append(result)
            if merged is not None and result.merge_base:
                merges.append((result, merged))
    commits = sorted({c for r, _ in merges for c in (r.merge_base or "", r.left.commit, r.right.commit)})
    tree = dict(zip(commits, gitcmd.resolve(root, [f"{c}^{{tree}}" for c in commits]), strict=True))

    def sides_of(result: PairPrediction) -> tuple[treediff.TreePair, treediff.TreePair]:
        base = tree[result.merge_base or ""] or ""
        return (base, tree[result.left.commit] or ""), (base, tree[result.right.commit] or "")

    changes = treediff.tree_changes(root, sorted({p for r, _ in merges for p in sides_of(r)}))
    changes = {pair: {p: c for p, c in found.items() if not p.startswith(prefix)} for pair, found in changes.items()}
    plans = []
    for result, merged in merges:
        pair_l, pair_r = sides_of(result)
        renamed = {c.new_path: c.old_path for c in [*changes[pair_l].values(), *changes[pair_r].values()]}
        conflicted = {renamed.get(p, p): p for p in merged.stages if not p.startswith(prefix)}
        both = (set(changes[pair_l]) & set(changes[pair_r])) | set(conflicted)
        if both:
            plans.append((result, merged, pair_l, pair_r, both, conflicted))
    wanted = {
        (pair, p)
        for *_, pair_l, pair_r, both, _ in plans
        for pair in (pair_l, pair_r)
        for old in both
        if old in changes[pair]
        for p in (old, changes[pair][old].new_path)
    }
    hunks = treediff.tree_patches(
        root, sorted({pair for pair, _ in wanted}), sorted({p for _, p in wanted}), function_context=True
    )
    for result, merged, pair_l, pair_r, both, conflicted in plans:
        side_changes = (changes[pair_l], changes[pair_r])
        _judge(result, merged, side_changes, (hunks.get(pair_l, {}), hunks.get(pair_r, {})), both, conflicted)
    return prediction
