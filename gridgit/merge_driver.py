"""Compatibility: `python -m gridgit.merge_driver`, the merge driver command earlier versions
registered in `.git/config`. `gridgit hooks install` registers gridgit.git.merge_driver instead."""

from __future__ import annotations

import sys

from gridgit.git.merge_driver import main

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
