"""Timestamps in the spec's format (`2026-01-24T14:30:00Z`) and their parsing."""

from __future__ import annotations

import os
from datetime import datetime, timezone

_FORMAT = "%Y-%m-%dT%H:%M:%SZ"


def now() -> datetime:
    """The current UTC time; GRIDGIT_NOW (ISO 8601) pins it for reproducible runs."""
    pinned = os.environ.get("GRIDGIT_NOW")
    return _pinned(pinned) if pinned else datetime.now(timezone.utc)


def _pinned(text: str) -> datetime:
    """GRIDGIT_NOW's time: ISO 8601 within years 1970-9000 (windows and ages are computed around it)."""
    try:
        moment = parse(text.strip())
        if 1970 <= moment.astimezone(timezone.utc).year <= 9000:
            return moment
    except (ValueError, OverflowError):
        pass
    from gridgit.errors import BadInput

    raise BadInput(f"GRIDGIT_NOW={text[:40]!r}: expected an ISO 8601 time such as 2026-01-24T15:00:00Z (or unset it)")


def now_iso() -> str:
    return format_iso(now())


def format_iso(moment: datetime) -> str:
    return moment.astimezone(timezone.utc).strftime(_FORMAT)


def parse(text: str) -> datetime:
    """Parse an ISO 8601 timestamp (a trailing Z allowed); naive times are taken as UTC."""
    moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


def minutes_since(text: str, reference: datetime | None = None) -> float:
    return ((reference or now()) - parse(text)).total_seconds() / 60
