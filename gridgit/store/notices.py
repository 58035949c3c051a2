"""Warnings for the user (advice, never errors): through `logging` when the program uses it.

logging costs ~5 ms to import, and a CLI write that warns about a missing field would pay it
on every call. A program that set up logging has imported it, so then the warning goes to
its logger; otherwise nothing could have configured a handler, and logging would print the
bare message on stderr (its last-resort handler): this writes that same line directly.
"""

from __future__ import annotations

import sys


def warn(logger: str, message: str) -> None:
    """MESSAGE as a WARNING of LOGGER: to logging when it is loaded, else one line on stderr."""
    if "logging" in sys.modules:
        import logging

        logging.getLogger(logger).warning("%s", message)
    else:
        sys.stderr.write(message + "\n")
