"""`python -m gridgit.agents TOOL EVENT` (and `statusline`): what the agent tools' configs run."""

from __future__ import annotations

import sys

from gridgit.agents.runner import main

sys.exit(main(sys.argv[1:]))
