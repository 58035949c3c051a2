"""`python -m gridgit.agents TOOL EVENT` (and `statusline`): what the agent tools' configs run."""

from __future__ import annotations

import sys

if sys.argv[1:2] == ["statusline"]:  # the status line runs after every message: not even the hook runner
    from gridgit.agents.statusline import main as statusline

    sys.exit(statusline(sys.argv[2:]))
from gridgit.agents.runner import main

sys.exit(main(sys.argv[1:]))
