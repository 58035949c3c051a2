"""`python -m gridgit.agents TOOL EVENT` (and `statusline`): what configs of earlier gridgit versions run."""

from __future__ import annotations

import sys

from gridgit.agents.hook import main

sys.exit(main(sys.argv[1:]))
