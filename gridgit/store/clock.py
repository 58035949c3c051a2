"""Timestamps in the spec's format (`2026-01-24T14:30:00Z`) and their parsing."""

from __future__ import annotations

import os
from datetime import datetime, timezone

_FORMAT = "%Y-%m-%dT%H:%M:%SZ"


def now() -> datetime:
    """The current UTC time; GRIDGIT_NOW (ISO 8601) pins it for reproducible runs."""
    pinned = os.environ.get("GRIDGIT_NOW")
    return parse(pinned) if pinned else datetime.now(timezone.utc)


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
