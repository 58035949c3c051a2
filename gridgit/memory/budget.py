"""Token budgets: the one estimate they are counted in, and the spec's sizes.

Tokens are estimated as characters / 4, the usual rule of thumb for English text and code
with BPE tokenizers: cheap, tokenizer-free, and close enough to budget with.
"""

from __future__ import annotations

import math

CHARS_PER_TOKEN = 4
# The spec's Memory Budget: `scratchpad_filtered: 500` ("topic/category subset") and
# `learnings_filtered: 500`, the size of a compressed phase by default (memory.compressed_tokens).
FILTERED_TOKENS = 500


def estimate_tokens(text: str) -> int:
    """Characters / 4, rounded up."""
    return math.ceil(len(text) / CHARS_PER_TOKEN)
