"""git diff-tree over pairs of trees, in one process for all the pairs: what changed, and the hunks.

Conflict prediction asks what each agent branch changed since its merge base, for every pair;
evidence staleness asks what changed since every cited commit. `git diff-tree --stdin` takes
one `TREE1 TREE2` line per pair and prints each pair's diff after that same line, so a whole
prediction or check costs one git process for the changed files and one for the hunks.
"""

from __future__ import annotations

import functools
import os
import re
from pathlib import Path

from gridgit.git import diffs
from gridgit.store import gitcmd
from gridgit.store.layout import template_path

# Output independent of the user's diff settings: no colour, pager, external diff or textconv,
# the usual a/ b/ prefixes (diff.noprefix and diff.mnemonicPrefix would change them), paths
# from the top of the tree (diff.relative), non-ASCII names unquoted.
DIFF_OPTIONS = ("--no-color", "--no-ext-diff", "--no-textconv", "--src-prefix=a/", "--dst-prefix=b/", "--no-relative")


@functools.cache
def _funcname_attributes(root: Path) -> str | None:
    """gridgit's diff-driver attributes file, unless the user has a global attributes file of their own."""
    if gitcmd.config_get(root, "core.attributesFile"):
        return None
    xdg = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    if os.path.exists(os.path.join(xdg, "git", "attributes")):
        return None
    return str(template_path("gitattributes-diff"))


TreePair = tuple[str, str]


def _diff_tree(root: Path, pairs: list[TreePair], *args: str) -> str:
    """`git diff-tree --stdin -r -M ARGS` over (old tree, new tree) PAIRS: one process for all of them."""
    attributes = _funcname_attributes(root)
    # Built-in diff drivers (python, rust, golang ...) find a method inside a class as its function,
    # where git's default finds the class: applied only when the user has no attributes file of their own.
    config = ["-c", f"core.attributesFile={attributes}"] if attributes else []
    lines = "".join(f"{a} {b}\n" for a, b in pairs)
    return gitcmd.run(
        root, *config, "-c", "core.quotePath=false", "diff-tree", "--stdin", "-r", "-M", *args, input_text=lines
    )


def tree_changes(root: Path, pairs: list[TreePair]) -> dict[TreePair, dict[str, diffs.RawChange]]:
    """For each (old tree, new tree) pair, what changed by the path in the old tree (renames followed)."""
    if not pairs:
        return {}
    raw = diffs.parse_raw(_diff_tree(root, pairs, "-z", "--no-abbrev"))
    return {pair: {c.old_path: c for c in raw.get(pair, [])} for pair in pairs}


def tree_patches(
    root: Path, pairs: list[TreePair], paths: list[str], function_context: bool = False
) -> dict[TreePair, dict[str, diffs.FileDiff]]:
    """The `-U0` hunks of PATHS for each pair, by old path; FUNCTION_CONTEXT (`-W`): each spans its function."""
    if not pairs or not paths:
        return {}
    options = ["-p", "-U0", *DIFF_OPTIONS, *(["-W"] if function_context else [])]
    out = _diff_tree(root, pairs, *options, "--", *(f":(literal){p}" for p in paths))
    found: dict[TreePair, dict[str, diffs.FileDiff]] = {}
    for chunk in re.split(r"^(?=[0-9a-f]{40,64} [0-9a-f]{40,64}$)", out, flags=re.MULTILINE):
        header, _, body = chunk.partition("\n")
        if diffs.TREE_PAIR_RE.fullmatch(header + "\n"):
            first, second = header.split(" ")
            found[(first, second)] = {f.path: f for f in diffs.parse(body)}
    return found
