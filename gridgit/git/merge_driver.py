"""git's merge driver for .grid/ files: `python -m gridgit.git.merge_driver %O %A %B %P`.

Writes the merge of ours (%A) and theirs (%B) against the base (%O) into %A and exits 0;
where it cannot merge it falls back to git's own line merge (`git merge-file`), which
leaves standard conflict markers in %A, and exits 1, as git expects of a driver. The
merges themselves are gridgit.history.merge's.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from gridgit.errors import BadInput
from gridgit.history.merge import merger_for
from gridgit.history.threeway import CannotMerge
from gridgit.store import fileio


def _read(path: str) -> str:
    try:
        return Path(path).read_bytes().decode("utf-8")
    except FileNotFoundError:
        return ""  # no merge base: git passes an empty file, or none at all


def _text_merge(base: str, ours: str, theirs: str, label: str) -> int:
    """git's own line merge into OURS; returns 0 when clean, 1 when conflict markers were left."""
    base_file = base if Path(base).exists() else "/dev/null"
    proc = subprocess.run(
        ["git", "merge-file", "-L", f"ours:{label}", "-L", "base", "-L", f"theirs:{label}", ours, base_file, theirs],
        capture_output=True,
        check=False,
    )
    return 0 if proc.returncode == 0 else 1


def run(base: str, ours: str, theirs: str, path: str = "") -> int:
    """Merge THEIRS into OURS (against BASE) for .grid/ file PATH; 0 merged cleanly, 1 conflict markers left."""
    merger = merger_for(path or ours)
    if merger is None:
        return _text_merge(base, ours, theirs, path)
    try:
        merged = merger(_read(base), _read(ours), _read(theirs), path or ours)
    except (CannotMerge, BadInput, UnicodeDecodeError) as exc:
        sys.stderr.write(f"gridgit: merge-driver: {path}: {exc}; leaving conflict markers\n")
        return _text_merge(base, ours, theirs, path) or 1
    except Exception as exc:  # a driver crash must never leave %A half-written or block the merge silently
        sys.stderr.write(f"gridgit: merge-driver: {path}: failed ({exc}); falling back to a line merge\n")
        return _text_merge(base, ours, theirs, path)
    try:
        # Atomic: a failed write (a full disk) leaves %A as it was, never half of the merge.
        fileio.atomic_write(Path(ours), merged)
    except OSError as exc:
        sys.stderr.write(
            f"gridgit: merge-driver: {path}: cannot write the merge ({exc}); falling back to a line merge\n"
        )
        return _text_merge(base, ours, theirs, path) or 1
    return 0


def main(argv: list[str]) -> int:
    """`python -m gridgit.git.merge_driver BASE OURS THEIRS [PATH]`, as hooks.install registers it."""
    if len(argv) < 3:
        sys.stderr.write("usage: python -m gridgit.git.merge_driver BASE OURS THEIRS [PATH]\n")
        return 2
    return run(*argv[:4])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
