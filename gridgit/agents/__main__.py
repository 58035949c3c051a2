"""`python -m gridgit.agents TOOL EVENT` (and `statusline`): what configs of earlier gridgit versions run."""

from __future__ import annotations

import sys

from gridgit.agents.hook import run

run(sys.argv[1:])
