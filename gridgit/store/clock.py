"""Timestamps in the spec's format (`2026-01-24T14:30:00Z`) and their parsing.

`datetime` is imported by the functions that need it, not here: an agent hook that only
stamps an event and reads a time window back (`now_iso`, `now_seconds`, `iso`) does with the
`time` module, and `datetime` costs it about 1 ms to import.
"""

from __future__ import annotations

import os
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from datetime import datetime

_FORMAT = "%Y-%m-%dT%H:%M:%SZ"


def now() -> datetime:
    """The current UTC time; GRIDGIT_NOW (ISO 8601) pins it for reproducible runs."""
    from datetime import datetime, timezone

    pinned = os.environ.get("GRIDGIT_NOW")
    return _pinned(pinned) if pinned else datetime.now(timezone.utc)


def _pinned(text: str) -> datetime:
    """GRIDGIT_NOW's time: ISO 8601 within years 1970-9000 (windows and ages are computed around it)."""
    from datetime import timezone

    try:
        moment = parse(text.strip())
        if 1970 <= moment.astimezone(timezone.utc).year <= 9000:
            return moment
    except (ValueError, OverflowError):
        pass
    from gridgit.errors import BadInput

    raise BadInput(f"GRIDGIT_NOW={text[:40]!r}: expected an ISO 8601 time such as 2026-01-24T15:00:00Z (or unset it)")


def now_seconds() -> float:
    """now() as seconds since the epoch (GRIDGIT_NOW's when set)."""
    pinned = os.environ.get("GRIDGIT_NOW")
    return _pinned(pinned).timestamp() if pinned else time.time()


def iso(seconds: float) -> str:
    """SECONDS since the epoch in the spec's format; before the epoch is the epoch (no event is older)."""
    return time.strftime(_FORMAT, time.gmtime(max(seconds, 0.0)))


def now_iso() -> str:
    return iso(now_seconds())


def format_iso(moment: datetime) -> str:
    from datetime import timezone

    return moment.astimezone(timezone.utc).strftime(_FORMAT)


def parse(text: str) -> datetime:
    """Parse an ISO 8601 timestamp (a trailing Z allowed); naive times are taken as UTC."""
    from datetime import datetime, timezone

    moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


def minutes_since(text: str, reference: datetime | None = None) -> float:
    return ((reference or now()) - parse(text)).total_seconds() / 60
