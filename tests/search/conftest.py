"""The mission of tests/memory/mission.py, for the search tests."""

from __future__ import annotations

from tests.memory.mission import mission

__all__ = ["mission"]
