"""A three-way merge of plain text by lines (diff3's clean case), with no conflict markers.

The merge succeeds when the two sides changed different regions of the base, and returns
None when they changed the same region differently: the caller decides what to keep.
"""

from __future__ import annotations

from difflib import SequenceMatcher


def _sync_regions(base: list[str], ours: list[str], theirs: list[str]) -> list[tuple[int, int, int, int, int, int]]:
    """Regions unchanged on both sides: (base start, base end, ours start, ours end, theirs start, theirs end)."""
    o_blocks = SequenceMatcher(None, base, ours, autojunk=False).get_matching_blocks()
    t_blocks = SequenceMatcher(None, base, theirs, autojunk=False).get_matching_blocks()
    regions = []
    i = j = 0
    while i < len(o_blocks) and j < len(t_blocks):
        o_base, o_at, o_len = o_blocks[i]
        t_base, t_at, t_len = t_blocks[j]
        start, end = max(o_base, t_base), min(o_base + o_len, t_base + t_len)
        if start < end:
            o_start, t_start = o_at + start - o_base, t_at + start - t_base
            regions.append((start, end, o_start, o_start + end - start, t_start, t_start + end - start))
        if o_base + o_len < t_base + t_len:
            i += 1
        else:
            j += 1
    regions.append((len(base), len(base), len(ours), len(ours), len(theirs), len(theirs)))
    return regions


def merge_lines(base: str, ours: str, theirs: str) -> str | None:
    """OURS and THEIRS merged against BASE line by line, or None where both changed one region."""
    b, o, t = base.splitlines(keepends=True), ours.splitlines(keepends=True), theirs.splitlines(keepends=True)
    out: list[str] = []
    at_b = at_o = at_t = 0
    for b_start, b_end, o_start, o_end, t_start, t_end in _sync_regions(b, o, t):
        old, mine, other = b[at_b:b_start], o[at_o:o_start], t[at_t:t_start]
        if mine == other or other == old:
            out += mine
        elif mine == old:
            out += other
        else:
            return None
        out += b[b_start:b_end]
        at_b, at_o, at_t = b_end, o_end, t_end
    return "".join(out)
