"""The mission of tests/memory/mission.py, for the memory tests."""

from __future__ import annotations

from tests.memory.mission import mission

__all__ = ["mission"]
